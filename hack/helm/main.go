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

// Command helm runs the chart's lint, template and package steps with the Helm Go SDK, so
// that `make helm-lint helm-template helm-package` need no helm binary, and writes the values
// table of the chart's README (`make helm-readme`).
//
//	go run ./hack/helm lint     CHART [-f values.yaml]
//	go run ./hack/helm template CHART [-f values.yaml] [-n namespace] [--kube-version v]
//	go run ./hack/helm package  CHART [-d dir] [--app-version v] [--version v]
//	go run ./hack/helm readme   CHART
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/cmft/demo-operator/internal/cli"
	"github.com/cmft/demo-operator/internal/valuesdoc"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: helm lint|template|package|readme CHART [flags]")
		os.Exit(2)
	}
	cmd, chartPath := os.Args[1], os.Args[2]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	valuesFile := fs.String("f", "", "values file")
	namespace := fs.String("n", "demo-operator-system", "release namespace")
	kubeVersion := fs.String("kube-version", "v1.37.1", "Kubernetes version to render for")
	dest := fs.String("d", ".", "package destination")
	appVersion := fs.String("app-version", "", "package with this appVersion")
	version := fs.String("version", "", "package with this chart version")
	_ = fs.Parse(os.Args[3:])

	vals := map[string]interface{}{}
	if *valuesFile != "" {
		var err error
		if vals, err = chartutil.ReadValuesFile(*valuesFile); err != nil {
			cli.Fail(err)
		}
	}

	switch cmd {
	case "lint":
		lint := action.NewLint()
		lint.Strict = true
		lint.Namespace = *namespace
		result := lint.Run([]string{chartPath}, vals)
		for _, msg := range result.Messages {
			fmt.Println(msg)
		}
		if len(result.Errors) > 0 {
			cli.Fail(fmt.Errorf("%d chart(s) failed lint", result.TotalChartsLinted))
		}
	case "template":
		ch, err := loader.Load(chartPath)
		if err != nil {
			cli.Fail(err)
		}
		install := action.NewInstall(&action.Configuration{})
		install.DryRun, install.ClientOnly, install.Replace = true, true, true
		install.ReleaseName, install.Namespace = ch.Name(), *namespace
		if install.KubeVersion, err = chartutil.ParseKubeVersion(*kubeVersion); err != nil {
			cli.Fail(err)
		}
		rel, err := install.Run(ch, vals)
		if err != nil {
			cli.Fail(err)
		}
		fmt.Print(strings.TrimSpace(rel.Manifest) + "\n")
	case "package":
		pkg := action.NewPackage()
		pkg.Destination, pkg.AppVersion, pkg.Version = *dest, *appVersion, *version
		path, err := pkg.Run(chartPath, nil)
		if err != nil {
			cli.Fail(err)
		}
		fmt.Println(path)
	case "readme":
		if err := writeReadme(chartPath); err != nil {
			cli.Fail(err)
		}
	default:
		cli.Fail(fmt.Errorf("unknown command %q", cmd))
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
