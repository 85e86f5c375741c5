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

// Package toolscripts checks a contributor's entry points: make help fits its width, and the
// hack/ scripts which build tools from the Go module proxy resolve what they build (versions,
// commits, source directories) on a new machine: with empty Go module and build caches, as CI's
// fresh clone may run them.
package toolscripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scripts are the tool scripts, with the values each must resolve and a pattern for each.
var scripts = []struct {
	args   []string
	values map[string]string
}{
	{[]string{"hack/control-plane.sh"}, map[string]string{
		"kubernetes": `^v1\.\d+\.\d+$`, "etcd": `^v3\.\d+\.\d+$`, "kwok": `^v\d+\.\d+\.\d+$`, "coredns": `^v\d+\.\d+\.\d+$`,
	}},
	{[]string{"hack/operator-sdk.sh"}, map[string]string{
		"version": `^v\d+\.\d+\.\d+$`, "commit": `^[0-9a-f]{40}$`, "kubernetes": `^\d+\.\d+\.\d+$`, "image": `^v\d+\.\d+\.\d+$`,
	}},
	{[]string{"hack/operator-sdk.sh", "--scorecard-test"}, map[string]string{
		"version": `^v\d+\.\d+\.\d+$`, "commit": `^[0-9a-f]{40}$`, "kubernetes": `^\d+\.\d+\.\d+$`, "image": `^v\d+\.\d+\.\d+$`,
	}},
	{[]string{"hack/olm.sh"}, map[string]string{
		"olm": `^v\d+\.\d+\.\d+$`, "opm": `^v\d+\.\d+\.\d+$`, "olm_crds": `/deploy/chart/crds$`,
	}},
}

func TestScriptsResolveWithEmptyCaches(t *testing.T) {
	// One empty module cache for all scripts: what one has downloaded, the next may rely on, as on
	// a real machine; but none may rely on a download that a build, which RESOLVE_ONLY skips,
	// would have made.
	caches := t.TempDir()
	env := append(os.Environ(), "RESOLVE_ONLY=1",
		"GOMODCACHE="+filepath.Join(caches, "mod"), "GOCACHE="+filepath.Join(caches, "build"),
		// The module cache is read-only by default, which t.TempDir could not remove.
		"GOFLAGS=-modcacherw")
	for _, s := range scripts {
		t.Run(strings.Join(s.args, " "), func(t *testing.T) {
			cmd := exec.Command(s.args[0], s.args[1:]...)
			cmd.Dir = "../.."
			cmd.Env = env
			out := output(t, cmd, fmt.Sprintf("%v with empty caches", s.args))
			got := map[string]string{}
			for line := range strings.Lines(strings.TrimSpace(string(out))) {
				k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
				got[k] = v
			}
			for k, pattern := range s.values {
				if !regexp.MustCompile(pattern).MatchString(got[k]) {
					t.Errorf("%v resolved %s=%q with empty caches, want a match of %s", s.args, k, got[k], pattern)
				}
			}
			if dir, ok := got["olm_crds"]; ok {
				if yamls, _ := filepath.Glob(filepath.Join(dir, "*.yaml")); len(yamls) == 0 {
					t.Errorf("%v: no CRDs in %s", s.args, dir)
				}
			}
		})
	}
}

// output runs cmd and returns its standard output; when it fails, the test stops with what
// (the command as the reader knows it) and its standard error.
func output(t *testing.T, cmd *exec.Cmd, what string) []byte {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = exit.Stderr
		}
		t.Fatalf("%s: %v\n%s", what, err, stderr)
	}
	return out
}
