//go:build node

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

package node

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/health"
)

// TestFailingPodsReachStatus runs, on the real node, an app whose image cannot be pulled and
// one whose container exits at start: each says why in its status within seconds of its pod
// saying it, in the kubelet's words (Degraded and Stalled, kstatus Failed, Argo CD Degraded),
// and becomes Ready once its spec is fixed.
func TestFailingPodsReachStatus(t *testing.T) {
	installOperator(t)
	for _, tc := range []struct {
		name   string
		broken func(app *paasv1.DemoApplication)
		// shows reports whether the kubelet's status of the container shows the cause.
		shows  func(corev1.ContainerStatus) bool
		reason string
		words  string
		fix    func(app *paasv1.DemoApplication)
	}{
		{
			name: "image that cannot be pulled",
			broken: func(app *paasv1.DemoApplication) {
				app.Spec.Image = cluster.RegistryHost() + "/demo-operator-node/missing:e2e"
			},
			shows: func(c corev1.ContainerStatus) bool {
				return c.State.Waiting != nil && slices.Contains([]string{"ErrImagePull", "ImagePullBackOff"}, c.State.Waiting.Reason)
			},
			reason: paasv1.ReasonImagePullBackOff,
			words:  "missing:e2e",
			fix:    func(app *paasv1.DemoApplication) { app.Spec.Image = appImage },
		},
		{
			name: "crash loop",
			broken: func(app *paasv1.DemoApplication) {
				app.Spec.Env = []paasv1.EnvVar{{Name: "CRASH", Value: "no database"}}
			},
			// The first exit, before the kubelet backs off.
			shows: func(c corev1.ContainerStatus) bool {
				return c.State.Terminated != nil || c.LastTerminationState.Terminated != nil
			},
			reason: paasv1.ReasonCrashLoopBackOff,
			words:  "exited with code 1 (Error)",
			fix:    func(app *paasv1.DemoApplication) { app.Spec.Env = nil },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := context.Background()
			ns := framework.NewNamespace(t, k8s, metav1.ObjectMeta{GenerateName: "e2e-"})
			app := builder.DemoApplication(ns, "web", builder.Image(appImage), builder.Ports(builder.Port("http", 80, 8080)))
			tc.broken(app)
			g.Expect(k8s.Create(ctx, app)).To(Succeed())

			// Polled together, so that the two times compare: when the pod first showed the
			// cause, and when the app first said it.
			var shown, said time.Time
			g.Eventually(func(g Gomega) {
				pods := &corev1.PodList{}
				g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(podsOf(app)))).To(Succeed())
				for _, p := range pods.Items {
					for _, c := range p.Status.ContainerStatuses {
						if shown.IsZero() && tc.shows(c) {
							shown = time.Now()
						}
					}
				}
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
				degraded := apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
				g.Expect(degraded).To(And(Not(BeNil()), HaveField("Status", metav1.ConditionTrue), HaveField("Reason", tc.reason)))
				g.Expect(degraded.Message).To(ContainSubstring(tc.words))
				said = time.Now()
			}, 3*time.Minute, 100*time.Millisecond).Should(Succeed())
			g.Expect(shown).NotTo(BeZero(), "the pod showed the cause before the app said it")
			t.Logf("the app said %s %s after its pod showed it: %s", tc.reason, said.Sub(shown).Round(100*time.Millisecond),
				apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded).Message)
			g.Expect(said.Sub(shown)).To(BeNumerically("<=", 10*time.Second))
			g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionStalled)).To(BeTrue())
			g.Expect(health.Kstatus(app)).To(Equal(kstatus.FailedStatus))
			g.Expect(health.ArgoCDOf(app)).To(HaveField("Status", health.Degraded))

			// Fixed: the new pods run, the app is Ready, nothing says the cause any more.
			updateApp(g, app, tc.fix)
			g.Eventually(func(g Gomega) {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
				g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionReady)).To(BeTrue(), "%v", app.Status.Conditions)
				g.Expect(apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)).To(HaveField("Reason", paasv1.ReasonAsExpected))
			}, 3*time.Minute, 200*time.Millisecond).Should(Succeed())
			g.Expect(health.Kstatus(app)).To(Equal(kstatus.CurrentStatus))
			g.Expect(health.ArgoCDOf(app)).To(HaveField("Status", health.Healthy))
		})
	}
}
