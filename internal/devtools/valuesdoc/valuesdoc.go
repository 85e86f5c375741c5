/*
Copyright 2026 The demo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package valuesdoc writes a chart README's table of values from the `# --` comments of
// values.yaml (helm-docs' convention), so that the table cannot drift from the values.
package valuesdoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The README lines between which the table lives.
const (
	Begin = "<!-- values:begin: generated from values.yaml by `make helm-readme`; do not edit -->"
	End   = "<!-- values:end -->"
)

// docPrefix opens the comment that documents a value.
const docPrefix = "-- "

// Table renders the values of a values.yaml as a markdown table: key, default, description.
// Every value must be documented, or sit in a map whose keys are.
func Table(values []byte) (string, error) {
	doc, err := yaml.Parse(string(values))
	if err != nil {
		return "", fmt.Errorf("parsing values: %w", err)
	}
	var b strings.Builder
	b.WriteString("| key | default | description |\n|---|---|---|\n")
	if err := rows(&b, "", doc.YNode()); err != nil {
		return "", err
	}
	return b.String(), nil
}

// rows writes a row per documented key under the mapping node, prefixed by path.
func rows(b *strings.Builder, path string, node *yaml.Node) error {
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, value := node.Content[i], node.Content[i+1]
		name := path + key.Value
		description, documented := descriptionOf(key.HeadComment)
		switch {
		case documented:
			def, err := defaultOf(value)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", name, def, strings.ReplaceAll(description, "|", `\|`))
		case value.Kind == yaml.MappingNode && len(value.Content) > 0:
			if err := rows(b, name+".", value); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s has no %q comment: document it in values.yaml", name, "# "+docPrefix)
		}
	}
	return nil
}

// descriptionOf returns the text of the `# --` comment, its continuation lines joined.
func descriptionOf(comment string) (string, bool) {
	var words []string
	found := false
	for _, line := range strings.Split(comment, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if text, ok := strings.CutPrefix(line, docPrefix); ok {
			found, words = true, []string{text}
		} else if found && line != "" {
			words = append(words, line)
		}
	}
	return strings.Join(words, " "), found
}

// defaultOf renders a value as code: a scalar as written, a map or list as compact JSON.
func defaultOf(node *yaml.Node) (string, error) {
	if node.Kind == yaml.ScalarNode {
		if node.Tag == "!!str" && node.Value == "" {
			return "`\"\"`", nil
		}
		return "`" + node.Value + "`", nil
	}
	var v any
	if err := node.Decode(&v); err != nil {
		return "", err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return "`" + strings.TrimSpace(out.String()) + "`", nil
}

// Update replaces the table between Begin and End in readme.
func Update(readme []byte, table string) ([]byte, error) {
	before, rest, ok := bytes.Cut(readme, []byte(Begin))
	if !ok {
		return nil, fmt.Errorf("the README has no %q line", Begin)
	}
	_, after, ok := bytes.Cut(rest, []byte(End))
	if !ok {
		return nil, fmt.Errorf("the README has no %q line", End)
	}
	var out bytes.Buffer
	out.Write(before)
	out.WriteString(Begin + "\n" + table + End)
	out.Write(after)
	return out.Bytes(), nil
}
