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

// Package chart_test proves the Helm chart in charts/demo-operator: it lints it, installs and
// uninstalls it on a real kube-apiserver and pushes it to an OCI registry with the helm CLI
// (bin/helm, or $HELM); it renders it for many value sets, and upgrades it to a chart changed in
// memory, with the Helm Go SDK in-process; and it checks the chart carries the CRD and RBAC rules
// config/ holds.
package chart_test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/helmcli"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const (
	releaseName      = "demo-operator"
	releaseNamespace = "demo-operator-system"
)

var chartDir = filepath.Join(testenv.Root(), "charts", "demo-operator")

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	return ch
}

// helmCLI runs bin/helm (make helm), or $HELM, and returns its standard output; it fails the
// test with the output when helm fails.
func helmCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := helmcli.Run(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// values parses a values file given inline.
func values(t *testing.T, doc string) map[string]interface{} {
	t.Helper()
	vals, err := chartutil.ReadValues([]byte(doc))
	if err != nil {
		t.Fatalf("parsing values: %v", err)
	}
	return vals.AsMap()
}

// manifest is a rendered release, its objects keyed by "Kind namespace/name".
type manifest map[string]*unstructured.Unstructured

// render renders the chart as `helm template` does, schema validation included.
func render(t *testing.T, vals map[string]interface{}) (manifest, error) {
	t.Helper()
	rel, err := renderRelease(t, loadChart(t), releaseName, vals)
	if err != nil {
		return nil, err
	}
	return parseManifest(t, rel.Manifest), nil
}

// renderRelease renders ch as release name, as `helm install --dry-run` does: the release
// holds the manifest, the hooks and the notes.
func renderRelease(t *testing.T, ch *chart.Chart, name string, vals map[string]interface{}) (*release.Release, error) {
	t.Helper()
	install := action.NewInstall(&action.Configuration{})
	install.DryRun, install.ClientOnly, install.Replace = true, true, true
	install.ReleaseName, install.Namespace = name, releaseNamespace
	kubeVersion, err := chartutil.ParseKubeVersion("v1.37.1")
	if err != nil {
		t.Fatal(err)
	}
	install.KubeVersion = kubeVersion
	return install.Run(ch, vals)
}

func parseManifest(t *testing.T, text string) manifest {
	t.Helper()
	out := manifest{}
	for _, doc := range releaseutil.SplitManifests(text) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatalf("parsing rendered object: %v\n%s", err, doc)
		}
		if len(obj.Object) == 0 {
			continue
		}
		out[obj.GetKind()+" "+obj.GetNamespace()+"/"+obj.GetName()] = obj
	}
	return out
}

// mustRender renders vals and fails the test on error.
func mustRender(t *testing.T, vals map[string]interface{}) manifest {
	t.Helper()
	m, err := render(t, vals)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	return m
}

// keys lists the rendered objects, for assertions on what a value set adds or removes.
func (m manifest) keys() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// into converts the rendered object key into a typed object.
func (m manifest) into(t *testing.T, key string, obj interface{}) {
	t.Helper()
	u, ok := m[key]
	if !ok {
		t.Fatalf("%s not rendered; rendered: %v", key, m.keys())
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		t.Fatalf("converting %s: %v", key, err)
	}
}

// deployment returns the rendered manager Deployment, the only one the chart renders.
func (m manifest) deployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	var found []string
	for key, obj := range m {
		if obj.GetKind() == "Deployment" {
			found = append(found, key)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one Deployment, rendered: %v", m.keys())
	}
	d := &appsv1.Deployment{}
	m.into(t, found[0], d)
	return d
}

// managerContainer returns the Deployment's manager container.
func managerContainer(t *testing.T, d *appsv1.Deployment) *corev1.Container {
	t.Helper()
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == "manager" {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	t.Fatal("no manager container")
	return nil
}

// managerFlags parses the manager container's args with the binary's own flags (main.go binds
// the manager's and zap's), so that a flag the manager does not define fails the test.
func managerFlags(t *testing.T, d *appsv1.Deployment) (manager.Options, *flag.FlagSet) {
	t.Helper()
	container := managerContainer(t, d)
	var opts manager.Options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	opts.BindFlags(fs)
	(&zap.Options{}).BindFlags(fs)
	if err := fs.Parse(container.Args); err != nil {
		t.Fatalf("manager args %v: %v", container.Args, err)
	}
	if err := opts.Validate(); err != nil {
		t.Fatalf("manager args %v: %v", container.Args, err)
	}
	return opts, fs
}

// managerOptions returns the manager's settings from the Deployment's args.
func managerOptions(t *testing.T, d *appsv1.Deployment) manager.Options {
	t.Helper()
	opts, _ := managerFlags(t, d)
	return opts
}

// managerFlag returns the value the Deployment's args give a manager flag.
func managerFlag(t *testing.T, d *appsv1.Deployment, name string) string {
	t.Helper()
	_, fs := managerFlags(t, d)
	f := fs.Lookup(name)
	if f == nil {
		t.Fatalf("the manager has no flag --%s", name)
	}
	return f.Value.String()
}

// configObject reads a file make manifests generates under config/.
func configObject(t *testing.T, path string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.Root(), path))
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(strings.TrimPrefix(string(data), "---\n")), &obj); err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	return obj
}
