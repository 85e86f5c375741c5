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

// Command helm-readme regenerates the values table of a chart's README.md from the comments in
// its values.yaml (`make helm-readme`); the helm CLI (bin/helm) does the rest.
//
//	go run ./hack/helm-readme CHART
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/cmft/demo-operator/internal/devtools/cli"
	"github.com/cmft/demo-operator/internal/devtools/valuesdoc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: helm-readme CHART")
		os.Exit(2)
	}
	if err := writeReadme(os.Args[1]); err != nil {
		cli.Fail(err)
	}
}

// writeReadme regenerates the values table of the chart's README.md from its values.yaml.
func writeReadme(chartPath string) error {
	values, err := os.ReadFile(filepath.Join(chartPath, chartutil.ValuesfileName))
	if err != nil {
		return err
	}
	table, err := valuesdoc.Table(values)
	if err != nil {
		return err
	}
	path := filepath.Join(chartPath, "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := valuesdoc.Update(readme, table)
	if err != nil {
		return err
	}
	return os.WriteFile(path, updated, 0o644)
}
