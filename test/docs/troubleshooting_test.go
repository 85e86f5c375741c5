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

package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestTroubleshootingNamesEveryReason: docs/troubleshooting.md's tables of condition reasons
// and Events list every reason the API declares and every Event the controllers record, and
// name none that the code does not: a new reason without its row, or a row left behind by a
// removed one, fails here.
func TestTroubleshootingNamesEveryReason(t *testing.T) {
	g := NewWithT(t)
	reasons := constants(t, "Reason", "api/v1")
	events := constants(t, "Event", "controllers/demoapplication", "controllers/podlabel")
	g.Expect(reasons).To(ContainElement("ReadinessProbeFailed"), "the API's reasons are read")
	g.Expect(events).To(ContainElement("SecretRolloutOff"), "the controllers' Events are read")

	data, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "troubleshooting.md"))
	g.Expect(err).NotTo(HaveOccurred())
	conditionRows := namesInColumn(section(string(data), "## Condition reasons"), 1)
	eventRows := namesInColumn(section(string(data), "## Events"), 0)

	for _, r := range reasons {
		g.Expect(slices.Contains(conditionRows, r) || slices.Contains(eventRows, r)).To(BeTrue(), "reason %s has no row", r)
	}
	for _, r := range conditionRows {
		g.Expect(reasons).To(ContainElement(r), "the conditions' table names %s, which api/v1 does not declare", r)
	}
	for _, e := range events {
		g.Expect(eventRows).To(ContainElement(e), "Event %s has no row", e)
	}
	for _, e := range eventRows {
		g.Expect(slices.Contains(events, e) || slices.Contains(reasons, e)).To(BeTrue(), "the Events' table names %s, which no controller records", e)
	}
}

// constants returns the string values of the constants whose names start with prefix, declared
// in the non-test Go files of dirs.
func constants(t *testing.T, prefix string, dirs ...string) []string {
	t.Helper()
	var values []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(testenv.Root(), dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.CONST {
					continue
				}
				for _, spec := range gen.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, prefix) || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, err := strconv.Unquote(lit.Value)
							if err != nil {
								t.Fatal(err)
							}
							values = append(values, v)
						}
					}
				}
			}
		}
	}
	return values
}

// section returns the text of doc from the heading to the next heading of its level.
func section(doc, heading string) string {
	_, rest, _ := strings.Cut(doc, "\n"+heading+"\n")
	text, _, _ := strings.Cut(rest, "\n## ")
	return text
}

var codeName = regexp.MustCompile("`([A-Z][A-Za-z]+)`")

// namesInColumn returns the CamelCase names in backticks of column i of the table rows of text.
func namesInColumn(text string, i int) []string {
	var names []string
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !strings.HasPrefix(line, "| ") || len(cells) <= i || strings.HasPrefix(cells[0], "---") {
			continue
		}
		for _, m := range codeName.FindAllStringSubmatch(cells[i], -1) {
			names = append(names, m[1])
		}
	}
	return names
}
