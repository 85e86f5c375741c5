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

package v1_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestDisruptionBudgetMustAllowADisruption: the CRD, in both versions, refuses a budget that
// lets no pod go at the app's fewest pods, which would block every node drain, and accepts
// one that lets one go, at the edges of each rule: rounding, percentages, and the fewest pods
// coming from replica or from autoscaling's minReplicas.
func TestDisruptionBudgetMustAllowADisruption(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	const (
		noneDown   = "spec.disruptionBudget.maxUnavailable cannot be 0 or 0%"
		allUp      = "spec.disruptionBudget.minAvailable cannot be 100%"
		fewestPods = "spec.disruptionBudget.minAvailable must leave at least one pod free to evict"
		// autoscaling is on CPU, with a CPU request, from minReplicas (1 when unset) to 5.
		autoscaling = `resources: {requests: {cpu: 100m}}, autoscaling: {maxReplicas: 5, targetCPUUtilizationPercentage: 80`
	)
	for _, tc := range []struct {
		name, spec string
		message    string // empty: accepted
	}{
		{"maxUnavailable 0", `{replica: 3, disruptionBudget: {maxUnavailable: 0}}`, noneDown},
		{"maxUnavailable 0%", `{replica: 3, disruptionBudget: {maxUnavailable: 00%}}`, noneDown},
		{"maxUnavailable 1 of one replica", `{replica: 1, disruptionBudget: {maxUnavailable: 1}}`, ""},
		{"maxUnavailable 1%, rounded up to a pod", `{replica: 3, disruptionBudget: {maxUnavailable: 1%}}`, ""},
		{"minAvailable 100%, even of no replica", `{replica: 0, disruptionBudget: {minAvailable: 100%}}`, allUp},
		{"minAvailable 99% of 200 replicas", `{replica: 200, disruptionBudget: {minAvailable: 99%}}`, ""},
		{"minAvailable as many as replica", `{replica: 3, disruptionBudget: {minAvailable: 3}}`, fewestPods},
		{"minAvailable one below replica", `{replica: 3, disruptionBudget: {minAvailable: 2}}`, ""},
		{"minAvailable 1, replica unset (1)", `{disruptionBudget: {minAvailable: 1}}`, fewestPods},
		{"minAvailable 0, replica unset (1)", `{disruptionBudget: {minAvailable: 0}}`, ""},
		{"minAvailable of no replica: no pod to keep", `{replica: 0, disruptionBudget: {minAvailable: 1}}`, ""},
		{"minAvailable 50% of one replica, rounded up to it", `{replica: 1, disruptionBudget: {minAvailable: 50%}}`, fewestPods},
		{"minAvailable 50% of two replicas", `{replica: 2, disruptionBudget: {minAvailable: 50%}}`, ""},
		{"minAvailable as many as minReplicas, whatever replica says",
			`{replica: 5, ` + autoscaling + `, minReplicas: 2}, disruptionBudget: {minAvailable: 2}}`, fewestPods},
		{"minAvailable 1, minReplicas unset (1)", `{replica: 5, ` + autoscaling + `}, disruptionBudget: {minAvailable: 1}}`, fewestPods},
		{"minAvailable below minReplicas, above replica",
			`{replica: 1, ` + autoscaling + `, minReplicas: 3}, disruptionBudget: {minAvailable: 2}}`, ""},
	} {
		for _, version := range []string{"v1", "v1beta1"} {
			t.Run(version+"/"+tc.name, func(t *testing.T) {
				g := NewWithT(t)
				err := k8sClient.Create(ctx, app(g, ns, version, "budget", tc.spec), client.DryRunAll)
				if tc.message == "" {
					g.Expect(err).NotTo(HaveOccurred())
				} else {
					g.Expect(err).To(MatchError(ContainSubstring(tc.message)))
				}
			})
		}
	}
}

// TestScaleSubresource: both versions serve /scale, as kubectl scale, a HorizontalPodAutoscaler
// and KEDA use it: its spec is spec.replica, its status the pods and their selector as the
// operator reports them; a scale sets spec.replica, and is refused, naming why, while
// spec.autoscaling owns the replicas.
func TestScaleSubresource(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	for _, version := range []string{"v1", "v1beta1"} {
		t.Run(version, func(t *testing.T) {
			g := NewWithT(t)
			a := app(g, ns, version, "scaled-"+version, `replica: 2`)
			g.Expect(k8sClient.Create(ctx, a)).To(Succeed())
			g.Expect(unstructured.SetNestedMap(a.Object, map[string]any{"replicas": int64(2), "selector": "app.kubernetes.io/name=scaled"}, "status")).To(Succeed())
			g.Expect(k8sClient.Status().Update(ctx, a)).To(Succeed())

			scale := &unstructured.Unstructured{}
			scale.SetGroupVersionKind(autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
			g.Expect(k8sClient.SubResource("scale").Get(ctx, a, scale)).To(Succeed())
			g.Expect(scale.Object).To(And(
				HaveKeyWithValue("spec", HaveKeyWithValue("replicas", BeEquivalentTo(2))),
				HaveKeyWithValue("status", And(HaveKeyWithValue("replicas", BeEquivalentTo(2)),
					HaveKeyWithValue("selector", "app.kubernetes.io/name=scaled")))))

			g.Expect(unstructured.SetNestedField(scale.Object, int64(4), "spec", "replicas")).To(Succeed())
			g.Expect(k8sClient.SubResource("scale").Update(ctx, a, client.WithSubResourceBody(scale))).To(Succeed())
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(a), a)).To(Succeed())
			g.Expect(a.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("replica", BeEquivalentTo(4))), "the scale sets spec.replica")

			autoscaled := app(g, ns, version, a.GetName(), `{replica: 4, `+cpuAutoscaling+`}`)
			autoscaled.SetResourceVersion(a.GetResourceVersion())
			g.Expect(k8sClient.Update(ctx, autoscaled)).To(Succeed())
			g.Expect(k8sClient.SubResource("scale").Get(ctx, a, scale)).To(Succeed())
			g.Expect(unstructured.SetNestedField(scale.Object, int64(5), "spec", "replicas")).To(Succeed())
			err := k8sClient.SubResource("scale").Update(ctx, a, client.WithSubResourceBody(scale))
			g.Expect(err).To(MatchError(ContainSubstring("spec.replica cannot change while spec.autoscaling is set")),
				"an outside autoscaler or kubectl scale would fight spec.autoscaling")
		})
	}
}
