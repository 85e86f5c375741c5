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

// Package codegen checks that the committed generated files (the CRD, the RBAC role, the
// DeepCopy methods and the typed client in pkg/generated) are what the generators produce.
package codegen

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestGeneratedClientIsCurrent(t *testing.T) {
	root := testenv.Root()
	for _, tool := range []string{"client-gen", "lister-gen", "informer-gen", "applyconfiguration-gen"} {
		if _, err := testenv.Tool(tool); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(t.TempDir(), "generated")
	out, err := exec.Command(filepath.Join(root, "hack", "update-codegen.sh"), fresh).CombinedOutput()
	if err != nil {
		t.Fatalf("hack/update-codegen.sh: %v\n%s", err, out)
	}

	committed := filepath.Join(root, "pkg", "generated")
	want, got := readTree(t, fresh), readTree(t, committed)
	for _, path := range union(want, got) {
		w, inWant := want[path]
		g, inGot := got[path]
		switch {
		case !inGot:
			t.Errorf("pkg/generated/%s is missing", path)
		case !inWant:
			t.Errorf("pkg/generated/%s is not generated any more", path)
		case !bytes.Equal(w, g):
			t.Errorf("pkg/generated/%s differs from what hack/update-codegen.sh writes", path)
		}
	}
	if t.Failed() {
		t.Log("the typed client is stale: run make generate and commit pkg/generated")
	}
}

// readTree returns the files under dir by their slash-separated path relative to dir.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = content
		return err
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return files
}

// union returns the keys of a and b, sorted so that failures come in a stable order.
func union(a, b map[string][]byte) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
