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

package chart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/valuesdoc"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestReadmeValuesTableIsCurrent fails when the README's table of values is not the one
// values.yaml's comments make, or when a value has no comment.
func TestReadmeValuesTableIsCurrent(t *testing.T) {
	g := NewWithT(t)
	values, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	table, err := valuesdoc.Table(values)
	g.Expect(err).NotTo(HaveOccurred())
	readme := readme(t)
	want, err := valuesdoc.Update(readme, table)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(readme)).To(Equal(string(want)), "the README's values table is stale: run make helm-readme")

	_, err = valuesdoc.Table([]byte("# -- Documented.\na: 1\nb: 2\n"))
	g.Expect(err).To(MatchError(ContainSubstring("b has no")), "an undocumented value is refused")
}

// TestReadmeProductionExample renders the production values the README shows.
func TestReadmeProductionExample(t *testing.T) {
	g := NewWithT(t)
	_, example, found := strings.Cut(string(readme(t)), "<!-- example:production -->\n```yaml\n")
	g.Expect(found).To(BeTrue(), "the README has no production example")
	example, _, _ = strings.Cut(example, "```")
	m := mustRender(t, values(t, example))

	d := m.deployment(t)
	g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](3)))
	g.Expect(d.Spec.Template.Spec.TopologySpreadConstraints).To(HaveLen(2))
	for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
		g.Expect(c.LabelSelector.MatchLabels).To(Equal(d.Spec.Selector.MatchLabels))
	}
	g.Expect(m).To(HaveKey("PodDisruptionBudget demo-operator-system/demo-operator"))
	g.Expect(m).To(HaveKey("ServiceMonitor demo-operator-system/demo-operator"))
	g.Expect(m).To(HaveKey("Certificate demo-operator-system/demo-operator-metrics-cert"))
	g.Expect(m).To(HaveKey("NetworkPolicy demo-operator-system/demo-operator"))
	binding := &rbacv1.ClusterRoleBinding{}
	m.into(t, "ClusterRoleBinding /demo-operator-metrics-reader", binding)
	g.Expect(binding.Subjects).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: "demo-operator-metrics-scraper", Namespace: releaseNamespace}))
}

// TestReadmeGitOpsExamples checks the Flux and Argo CD objects of docs/operate/gitops.md: they
// name the chart's OCI artifact, the HelmRelease its OCIRepository, and the Application's values
// render, with its annotation on the CRD.
func TestReadmeGitOpsExamples(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "operate", "gitops.md"))
	g.Expect(err).NotTo(HaveOccurred())
	objs := map[string]*unstructured.Unstructured{}
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		for _, doc := range strings.Split(block, "\n---\n") {
			obj := &unstructured.Unstructured{}
			if yaml.Unmarshal([]byte(doc), &obj.Object) != nil || obj.GetAPIVersion() == "" {
				continue
			}
			objs[obj.GetAPIVersion()+" "+obj.GetKind()] = obj
		}
	}
	field := func(key string, path ...string) string {
		g.Expect(objs).To(HaveKey(key))
		value, _, _ := unstructured.NestedString(objs[key].Object, path...)
		return value
	}
	chartName := loadChart(t).Name()

	ociRepository, helmRelease := "source.toolkit.fluxcd.io/v1 OCIRepository", "helm.toolkit.fluxcd.io/v2 HelmRelease"
	g.Expect(field(ociRepository, "spec", "url")).To(Equal("oci://<registry>/charts/" + chartName))
	g.Expect(field(ociRepository, "spec", "layerSelector", "mediaType")).To(Equal("application/vnd.cncf.helm.chart.content.v1.tar+gzip"))
	g.Expect(field(helmRelease, "spec", "chartRef", "kind")).To(Equal("OCIRepository"))
	g.Expect(field(helmRelease, "spec", "chartRef", "name")).To(Equal(objs[ociRepository].GetName()))

	application := "argoproj.io/v1alpha1 Application"
	g.Expect(field(application, "spec", "source", "repoURL")).To(Equal("<registry>/charts"))
	g.Expect(field(application, "spec", "source", "chart")).To(Equal(chartName))
	vals, _, _ := unstructured.NestedMap(objs[application].Object, "spec", "source", "helm", "valuesObject")
	annotations, _, _ := unstructured.NestedStringMap(vals, "crds", "annotations")
	g.Expect(annotations).NotTo(BeEmpty())
	crd := mustRender(t, vals)["CustomResourceDefinition /demoapplications.paas.cmft.com"]
	for k, v := range annotations {
		g.Expect(crd.GetAnnotations()).To(HaveKeyWithValue(k, v))
	}
}

func readme(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
