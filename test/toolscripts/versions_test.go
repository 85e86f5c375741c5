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
)

// kubeTools are the programs the Makefile and hack/control-plane.sh build from hack/tools/kube.
var kubeTools = []string{
	"sigs.k8s.io/controller-tools/cmd/controller-gen",
	"sigs.k8s.io/kustomize/kustomize/v5",
	"github.com/elastic/crd-ref-docs",
	"k8s.io/code-generator/cmd/client-gen",
	"k8s.io/code-generator/cmd/lister-gen",
	"k8s.io/code-generator/cmd/informer-gen",
	"k8s.io/code-generator/cmd/applyconfiguration-gen",
	"helm.sh/helm/v3/cmd/helm",
	"github.com/prometheus/prometheus/cmd/promtool",
	"k8s.io/kubernetes/cmd/kube-apiserver",
	"k8s.io/kubernetes/cmd/kube-controller-manager",
	"k8s.io/kubernetes/cmd/kube-scheduler",
	"k8s.io/kubernetes/cmd/kubelet",
	"k8s.io/kubernetes/cmd/kube-proxy",
	"k8s.io/kubernetes/cmd/kubectl",
	"sigs.k8s.io/kwok/cmd/kwok",
	"./cmd/coredns",
}

// TestToolsCompileTheTestsModuleVersions: every module whose packages both the project's tests
// and the tools of hack/tools/kube compile is at one version in both, so that the Go build cache
// compiles those packages once for both (a package is compiled again when any module below it
// differs), on a fresh machine's CI above all.
func TestToolsCompileTheTestsModuleVersions(t *testing.T) {
	project := moduleVersions(t, "../..", "-test", "./...")
	for module, version := range moduleVersions(t, "../..", "-test", "-tags", "e2e,node,olm,olmnode,reliability,imagetools", "./test/...") {
		project[module] = version
	}
	// promtool's build tag, which no other tool's package reads.
	tools := moduleVersions(t, "../../hack/tools/kube", append([]string{"-tags", "remove_all_sd"}, kubeTools...)...)
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
