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

// Package layout checks the repository's layout rule: imports run from harness towards the
// product, never back, and nothing imports from hack/ (README, "Repository layout").
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

// harness are the folders, below the module root, that the shipped binary must never reach:
// test harness, the test suites, dev commands and tool modules, benchmarks.
var harness = []string{"internal/test", "test", "hack", "bench"}

type pkg struct {
	ImportPath                         string
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

// under reports whether import path p is folder dir of module mod, or below it.
func under(p, mod, dir string) bool {
	return p == mod+"/"+dir || strings.HasPrefix(p, mod+"/"+dir+"/")
}

func TestManagerReachesNoHarness(t *testing.T) {
	mod := modulePath(t)
	manager := goList(t, "-deps", ".")
	if len(manager) == 0 {
		t.Fatal("go list -deps of the manager listed nothing")
	}
	for _, p := range manager {
		for _, dir := range harness {
			if under(p.ImportPath, mod, dir) {
				t.Errorf("the manager binary depends on %s, under %s/: the product must never reach test harness, hack/ or bench", p.ImportPath, dir)
			}
		}
	}
}

func TestNothingImportsHack(t *testing.T) {
	mod := modulePath(t)
	pkgs := goList(t, "./...")
	for _, p := range pkgs {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if under(imp, mod, "hack") {
				t.Errorf("%s imports %s: hack/ holds scripts, package main dev commands and tool modules, never a library", p.ImportPath, imp)
			}
		}
	}
	if len(pkgs) < 10 {
		t.Errorf("go list ./... listed %d packages: the check looked at too little", len(pkgs))
	}
}
