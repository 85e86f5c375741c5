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

package demoapplication_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestDisruptionBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web", builder.Replicas(3))
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	one := intstr.FromInt32(1)

	t.Run("several replicas get a budget of one pod down at a time", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			pdb := get(g, ns, "web", &policyv1.PodDisruptionBudget{})
			g.Expect(metav1.IsControlledBy(pdb, app)).To(BeTrue())
			g.Expect(pdb.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
			g.Expect(pdb.Spec.Selector).To(Equal(get(g, ns, "web", &appsv1.Deployment{}).Spec.Selector))
			g.Expect(pdb.Spec.MaxUnavailable).To(Equal(&one))
			g.Expect(pdb.Spec.MinAvailable).To(BeNil())
			g.Expect(pdb.Spec.UnhealthyPodEvictionPolicy).To(Equal(ptr.To(policyv1.AlwaysAllow)))
		}, waitFor, pollEvery).Should(Succeed())
		// Converged, its status moving with the pods, it writes nothing.
		budgets := "/apis/policy/v1/namespaces/" + ns + "/"
		writesNothing(g, budgets)
	})

	t.Run("drift is repaired", func(t *testing.T) {
		g := NewWithT(t)
		pdb := get(g, ns, "web", &policyv1.PodDisruptionBudget{})
		suite.MergePatch(t, pdb, `{"spec":{"maxUnavailable":3}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &policyv1.PodDisruptionBudget{}).Spec.MaxUnavailable).To(Equal(&one))
		}, waitFor, pollEvery).Should(Succeed())

		uid := pdb.UID
		g.Expect(k8sClient.Delete(ctx, pdb)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &policyv1.PodDisruptionBudget{}).UID).NotTo(Equal(uid))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("the budget declared replaces the default", func(t *testing.T) {
		g := NewWithT(t)
		half := intstr.FromString("50%")
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.DisruptionBudget = &paasv1.DisruptionBudget{MinAvailable: &half}
		})
		g.Eventually(func(g Gomega) {
			pdb := get(g, ns, "web", &policyv1.PodDisruptionBudget{})
			g.Expect(pdb.Spec.MinAvailable).To(Equal(&half))
			g.Expect(pdb.Spec.MaxUnavailable).To(BeNil())
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("going down to one replica deletes it: it would refuse every drain", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.DisruptionBudget = nil
			a.Spec.Replica = ptr.To[int32](1)
		})
		g.Eventually(gone(ns, "web", &policyv1.PodDisruptionBudget{}), waitFor, pollEvery).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			g.Expect(eventNotes(g, ns, "web", demoapplication.EventDeleted)).To(ContainElement("Deleted PodDisruptionBudget web"))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("a single replica gets one when it asks", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.DisruptionBudget = &paasv1.DisruptionBudget{MaxUnavailable: &one}
		})
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &policyv1.PodDisruptionBudget{}).Spec.MaxUnavailable).To(Equal(&one))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("a budget of the name someone else holds is left alone", func(t *testing.T) {
		g := NewWithT(t)
		theirs := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}}},
		}
		g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
		taken := builder.DemoApplication(ns, "taken")
		g.Expect(k8sClient.Create(ctx, taken)).To(Succeed())
		expectLeftAlone(g, taken, "PodDisruptionBudget", theirs, func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](1) })
	})
}

// TestDisruptionBudgetRulesRatchet stores an app whose budget lets no pod go under a copy of
// the CRD without the budget's rules, then upgrades that CRD: the app can still be changed
// while its budget and its fewest pods stay as they are, and its budget only changed into
// one that lets a pod go.
func TestDisruptionBudgetRulesRatchet(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "budget.ratchet.paas.cmft.com/v1", "kind": "DemoApplication",
		"metadata": map[string]any{"name": "before", "namespace": ns},
		"spec":     map[string]any{"image": "nginx:1.27", "replica": int64(3), "disruptionBudget": map[string]any{"minAvailable": int64(3)}},
	}}
	change := storedBeforeTheRules(t, app, func(schema any) {
		withoutRules(schema, func(rule string) bool {
			return strings.Contains(rule, "self.disruptionBudget.minAvailable") || strings.Contains(rule, "'^0*100%$'") || strings.Contains(rule, "'^0+%$'")
		})
	})
	const fewestPods = "spec.disruptionBudget.minAvailable must leave at least one pod free to evict"
	another := app.DeepCopy()
	another.SetName("after")
	g.Eventually(func() error { return k8sClient.Create(ctx, another, client.DryRunAll) }, waitFor, pollEvery).Should(MatchError(ContainSubstring(fewestPods)))

	g.Expect(change(func(spec map[string]any) { spec["image"] = "nginx:1.28" })).To(Succeed())
	g.Expect(change(func(spec map[string]any) { spec["replica"] = int64(4) })).To(Succeed())
	g.Expect(change(func(spec map[string]any) { spec["replica"] = int64(2) })).To(MatchError(ContainSubstring(fewestPods)))
	g.Expect(change(func(spec map[string]any) { spec["disruptionBudget"] = map[string]any{"minAvailable": int64(4)} })).
		To(MatchError(ContainSubstring(fewestPods)))
	g.Expect(change(func(spec map[string]any) { spec["disruptionBudget"] = map[string]any{"minAvailable": "100%"} })).
		To(MatchError(ContainSubstring("spec.disruptionBudget.minAvailable cannot be 100%")))
	g.Expect(change(func(spec map[string]any) { spec["disruptionBudget"] = map[string]any{"maxUnavailable": int64(0)} })).
		To(MatchError(ContainSubstring("spec.disruptionBudget.maxUnavailable cannot be 0 or 0%")))
	g.Expect(change(func(spec map[string]any) { spec["disruptionBudget"] = map[string]any{"minAvailable": int64(2)} })).To(Succeed())
}
