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
	"k8s.io/utils/ptr"

	"github.com/cmft/demo-operator/internal/valuesdoc"
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

func readme(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
