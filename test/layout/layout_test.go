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

// Package layout checks the repository's import rules (DEVELOPMENT.md, "Repository layout"): every
// package is product, tools or harness; the product reaches neither tools nor harness, tools
// never reach the harness, nothing imports hack/ or a test suite; and every Eventually and
// Consistently spells its timeout.
package layout

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// tags are every build tag the module's tiers use, so that their files are checked too.
const tags = "e2e node olm olmnode reliability imagetools"

// The three kinds of package, by folder below the module root ("" is the root package alone).
// A package's kind is that of the longest folder it lies in, so that a new package takes the
// rules of its folder: internal/ is the product's, but for the tools' and the harness's homes.
var (
	// product is what the manager image and users' Go code run.
	product = []string{"", "api", "controllers", "internal", "pkg"}
	// tools are the commands users and developers run besides the manager (make run-bundle,
	// make catalog, make demo) and the libraries they share (internal/devtools).
	tools = []string{"cmd", "hack", "internal/devtools"}
	// harness is what only tests and benchmarks run: its libraries (internal/test), the suites
	// and the benchmarks.
	harness = []string{"internal/test", "test", "bench"}
)

type pkg struct {
	ImportPath, Dir                    string
	GoFiles, TestGoFiles, XTestGoFiles []string
	Deps                               []string
	Imports, TestImports, XTestImports []string
}

// goList runs go list -json with args from the module root and decodes its packages.
func goList(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-tags", tags, "-json"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list %v: %v\n%s", args, err, exit.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
}

// modulePath returns the path of the module the repository root holds.
func modulePath(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// kind returns the kind of the package of import path p ("product", "tools", "harness"), or ""
// for a package outside module mod or in no listed folder.
func kind(p, mod string) string {
	if p != mod && !strings.HasPrefix(p, mod+"/") {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, mod), "/")
	best, bestLen := "", -1
	for name, dirs := range map[string][]string{"product": product, "tools": tools, "harness": harness} {
		for _, dir := range dirs {
			if (rel == dir || dir != "" && strings.HasPrefix(rel, dir+"/")) && len(dir) > bestLen {
				best, bestLen = name, len(dir)
			}
		}
	}
	return best
}

// TestEveryPackageHasAKind fails on a package in no folder of product, tools or harness, so
// that a new folder is given its rules.
func TestEveryPackageHasAKind(t *testing.T) {
	mod := modulePath(t)
	pkgs := goList(t, "./...")
	if len(pkgs) < 10 {
		t.Fatalf("go list ./... listed %d packages: the check looks at too little", len(pkgs))
	}
	for _, p := range pkgs {
		if kind(p.ImportPath, mod) == "" {
			t.Errorf("%s is in no folder of product, tools or harness: add its folder to one of them", p.ImportPath)
		}
	}
}

// TestDependenciesRunOneWay checks what each package's code (its tests apart) reaches: the
// product neither tools nor harness, tools no harness. Tests of any package may use the harness.
func TestDependenciesRunOneWay(t *testing.T) {
	mod := modulePath(t)
	forbidden := map[string][]string{"product": {"tools", "harness"}, "tools": {"harness"}}
	for _, p := range goList(t, "./...") {
		from := kind(p.ImportPath, mod)
		for _, dep := range p.Deps {
			if to := kind(dep, mod); slices.Contains(forbidden[from], to) {
				t.Errorf("%s (%s) depends on %s (%s): %s code must never reach %s", p.ImportPath, from, dep, to, from,
					strings.Join(forbidden[from], " or "))
			}
		}
	}
}

// TestNoSuiteIsALibrary fails when a package imports a test suite: what suites share lives in
// the harness's one home, internal/test.
func TestNoSuiteIsALibrary(t *testing.T) {
	mod := modulePath(t)
	for _, p := range goList(t, "./...") {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if imp != p.ImportPath && imp != p.ImportPath+"_test" && (imp == mod+"/test" || strings.HasPrefix(imp, mod+"/test/")) {
				t.Errorf("%s imports %s, a test suite: move what suites share to internal/test", p.ImportPath, imp)
			}
		}
	}
}

func TestNothingImportsHack(t *testing.T) {
	mod := modulePath(t)
	for _, p := range goList(t, "./...") {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if imp == mod+"/hack" || strings.HasPrefix(imp, mod+"/hack/") {
				t.Errorf("%s imports %s: hack/ holds scripts, package main dev commands and tool modules, never a library", p.ImportPath, imp)
			}
		}
	}
}
