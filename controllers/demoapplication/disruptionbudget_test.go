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
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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

// TestDisruptionBudgetMustAllowADisruption: the CRD, in both versions, refuses a budget that
// lets no pod go at the app's fewest pods, which would block every node drain, and accepts
// one that lets one go: a case of each per rule.
func TestDisruptionBudgetMustAllowADisruption(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	const (
		noneDown   = "spec.disruptionBudget.maxUnavailable cannot be 0 or 0%"
		allUp      = "spec.disruptionBudget.minAvailable cannot be 100%"
		fewestPods = "spec.disruptionBudget.minAvailable must leave at least one pod free to evict"
	)
	budget := func(minAvailable, maxUnavailable *intstr.IntOrString) *paasv1.DisruptionBudget {
		return &paasv1.DisruptionBudget{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable}
	}
	n := func(v int32) *intstr.IntOrString { return ptr.To(intstr.FromInt32(v)) }
	pct := func(v string) *intstr.IntOrString { return ptr.To(intstr.FromString(v)) }
	autoscaling := func(minReplicas *int32) *paasv1.Autoscaling {
		return &paasv1.Autoscaling{MinReplicas: minReplicas, MaxReplicas: 5}
	}
	for _, tc := range []struct {
		name        string
		replica     *int32
		autoscaling *paasv1.Autoscaling
		budget      *paasv1.DisruptionBudget
		message     string // empty: accepted
	}{
		{"maxUnavailable 0", ptr.To[int32](3), nil, budget(nil, n(0)), noneDown},
		{"maxUnavailable 0%", ptr.To[int32](3), nil, budget(nil, pct("00%")), noneDown},
		{"maxUnavailable 1 of one replica", ptr.To[int32](1), nil, budget(nil, n(1)), ""},
		{"maxUnavailable 1%, rounded up to a pod", ptr.To[int32](3), nil, budget(nil, pct("1%")), ""},
		{"minAvailable 100%, even of no replica", ptr.To[int32](0), nil, budget(pct("100%"), nil), allUp},
		{"minAvailable 99% of 200 replicas", ptr.To[int32](200), nil, budget(pct("99%"), nil), ""},
		{"minAvailable as many as replica", ptr.To[int32](3), nil, budget(n(3), nil), fewestPods},
		{"minAvailable one below replica", ptr.To[int32](3), nil, budget(n(2), nil), ""},
		{"minAvailable 1, replica unset (1)", nil, nil, budget(n(1), nil), fewestPods},
		{"minAvailable 0, replica unset (1)", nil, nil, budget(n(0), nil), ""},
		{"minAvailable of no replica: no pod to keep", ptr.To[int32](0), nil, budget(n(1), nil), ""},
		{"minAvailable 50% of one replica, rounded up to it", ptr.To[int32](1), nil, budget(pct("50%"), nil), fewestPods},
		{"minAvailable 50% of two replicas", ptr.To[int32](2), nil, budget(pct("50%"), nil), ""},
		{"minAvailable as many as minReplicas, whatever replica says", ptr.To[int32](5), autoscaling(ptr.To[int32](2)), budget(n(2), nil), fewestPods},
		{"minAvailable 1, minReplicas unset (1)", ptr.To[int32](5), autoscaling(nil), budget(n(1), nil), fewestPods},
		{"minAvailable below minReplicas, above replica", ptr.To[int32](1), autoscaling(ptr.To[int32](3)), budget(n(2), nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := builder.DemoApplication(ns, "budget")
			app.Spec.Replica, app.Spec.DisruptionBudget = tc.replica, tc.budget
			if tc.autoscaling != nil {
				app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
				app.Spec.Autoscaling = tc.autoscaling
				app.Spec.Autoscaling.TargetCPUUtilizationPercentage = ptr.To[int32](80)
			}
			for _, version := range []string{"v1", "v1beta1"} {
				g := NewWithT(t)
				object, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
				g.Expect(err).NotTo(HaveOccurred())
				u := &unstructured.Unstructured{Object: object}
				u.SetAPIVersion(paasv1.GroupVersion.Group + "/" + version)
				u.SetKind("DemoApplication")
				err = k8sClient.Create(ctx, u, client.DryRunAll)
				if tc.message == "" {
					g.Expect(err).NotTo(HaveOccurred(), version)
				} else {
					g.Expect(err).To(MatchError(ContainSubstring(tc.message)), version)
				}
			}
		})
	}
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
