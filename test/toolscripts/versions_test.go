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

package toolscripts

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

// kubeTools are the packages hack/tools/kube builds: its tool directives and its CoreDNS main.
var kubeTools = []string{"tool", "./cmd/coredns"}

// followers are the other tools modules the tests and CI build with CGO_ENABLED=0 -trimpath,
// with the packages and build tags their builds use, and the modules of their own release that
// keep the release's versions (etcd's server needs its own API modules; kube's client is newer).
// OLM is not one: its packageserver is an aggregated API server whose generated OpenAPI
// definitions must match its release's k8s.io/apiserver (built on 0.37, it exits at start).
var followers = []struct {
	dir, tags string
	pkgs      []string
	own       string
}{
	{dir: "operator-sdk", tags: "containers_image_openpgp", pkgs: []string{"tool"}},
	{dir: "opm", tags: "json1,containers_image_openpgp", pkgs: []string{"tool"}},
	{dir: "etcd", pkgs: []string{"./cmd/etcd"}, own: "go.etcd.io/"},
	{dir: "skipper", pkgs: []string{"tool"}},
}

// TestToolsCompileTheTestsModuleVersions: every module whose packages both the project's tests
// and the tools of hack/tools/kube compile is at one version in both, so that the Go build cache
// compiles those packages once for both (a package is compiled again when any module below it
// differs), on a fresh machine's CI above all.
func TestToolsCompileTheTestsModuleVersions(t *testing.T) {
	project := projectVersions(t)
	tools := kubeVersions(t)
	shared := 0
	for module, version := range project {
		tool, ok := tools[module]
		if !ok {
			continue
		}
		shared++
		if tool != version {
			t.Errorf("%s: the tests compile %s, hack/tools/kube's tools %s: raise the lower one (go get %s@<the higher>)",
				module, version, tool, module)
		}
	}
	if shared < 100 {
		t.Errorf("the tests and hack/tools/kube's tools compile packages of only %d modules in common", shared)
	}
}

// TestOtherToolsFollowTheSameVersions: the other tools modules (operator-sdk, opm, etcd,
// Skipper) take, for every module they share with the tests or hack/tools/kube, at least the
// version those compile, so that their builds find those packages compiled; a higher one is
// their release's own minimum.
func TestOtherToolsFollowTheSameVersions(t *testing.T) {
	reference := kubeVersions(t)
	for module, version := range projectVersions(t) {
		if semver.Compare(version, reference[module]) > 0 {
			reference[module] = version
		}
	}
	for _, tool := range followers {
		t.Run(tool.dir, func(t *testing.T) {
			dir := "../../hack/tools/" + tool.dir
			shared := 0
			for module, version := range moduleVersions(t, dir, append([]string{"-tags", tool.tags}, tool.pkgs...)...) {
				want, ok := reference[module]
				if !ok || (tool.own != "" && strings.HasPrefix(module, tool.own)) {
					continue
				}
				shared++
				if semver.Compare(version, want) < 0 {
					t.Errorf("%s: hack/tools/%s compiles %s, the tests or hack/tools/kube %s: (cd hack/tools/%s && go get %s@%s)",
						module, tool.dir, version, want, tool.dir, module, want)
				}
			}
			if shared < 20 {
				t.Errorf("hack/tools/%s shares only %d modules with the tests and hack/tools/kube", tool.dir, shared)
			}
		})
	}
}

// projectVersions returns the module versions the project's tests compile, with every build tag.
func projectVersions(t *testing.T) map[string]string {
	t.Helper()
	project := moduleVersions(t, "../..", "-test", "./...")
	for module, version := range moduleVersions(t, "../..", "-test", "-tags", "e2e,node,olm,olmnode,reliability,imagetools", "./test/...") {
		project[module] = version
	}
	return project
}

// kubeVersions returns the module versions hack/tools/kube's tools compile, with promtool's build
// tag, which no other tool's package reads.
func kubeVersions(t *testing.T) map[string]string {
	t.Helper()
	return moduleVersions(t, "../../hack/tools/kube", append([]string{"-tags", "remove_all_sd"}, kubeTools...)...)
}

// moduleVersions returns the version (after replace directives) of each module whose packages
// go list -deps lists in dir for args, as the Makefile builds them (CGO_ENABLED=0).
func moduleVersions(t *testing.T, dir string, args ...string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f",
		"{{with .Module}}{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}{{end}}"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out := output(t, cmd, "go list in "+dir)
	versions := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if module, version, ok := strings.Cut(strings.TrimSpace(line), " "); ok && version != "" {
			versions[module] = version
		}
	}
	return versions
}
