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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestContainersOnTheNode runs, side by side, what an app's other containers and its config
// do on the real kubelet: a changed ConfigMap that the app reads through env rolls its pods,
// and a sidecar that crash-loops makes the app Degraded, naming the pod and the sidecar.
func TestContainersOnTheNode(t *testing.T) {
	installOperator(t)
	t.Run("a ConfigMap read through env, changed, rolls the pods", func(t *testing.T) {
		t.Parallel()
		configChangeRollsOut(t)
	})
	t.Run("a sidecar that crash-loops reaches the status", func(t *testing.T) {
		t.Parallel()
		sidecarCrashLoopInStatus(t)
	})
}

// configChangeRollsOut: the pods of an app that reads a ConfigMap's key as an environment
// variable answer its value (podname's /env/NAME); the ConfigMap changed, the operator's
// config hash rolls them, and every pod answers the new value.
func configChangeRollsOut(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8s, "e2e-config-", testenv.ControllersRun)
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "greeting"}, Data: map[string]string{"text": "hello"}}
	g.Expect(k8s.Create(ctx, config)).To(Succeed())
	app := builder.DemoApplication(ns, "greeter", builder.Image(appImage), builder.Replicas(2), builder.Ports(builder.Port("http", 80, 8080)),
		builder.Env(paasv1.EnvVar{Name: "GREETING", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Name: "greeting", Key: "text"}}}))
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	before := expectServing(t, app, 2)
	hash := before[0].Annotations[demoapplication.ConfigHashAnnotation]
	g.Expect(hash).NotTo(BeEmpty(), "the pod's annotations: %v", before[0].Annotations)
	answer, err := get(serviceURL(g, app, "/env/GREETING"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(answer).To(Equal("hello"))

	config.Data["text"] = "goodbye"
	g.Expect(k8s.Update(ctx, config)).To(Succeed())
	changed := time.Now()
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(podsOf(app)))).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(2))
		for _, p := range pods.Items {
			g.Expect(p.Annotations[demoapplication.ConfigHashAnnotation]).NotTo(Equal(hash), p.Name)
			g.Expect(p.Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.PodReady), HaveField("Status", corev1.ConditionTrue))), p.Name)
		}
		// Both pods, by the Service's spread: 10 answers in a row, all the new value.
		for range 10 {
			answer, err := get(serviceURL(g, app, "/env/GREETING"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(answer).To(Equal("goodbye"))
		}
	}, 3*time.Minute, 500*time.Millisecond).Should(Succeed())
	t.Logf("ConfigMap changed to every pod answering its new value, rolled: %s", time.Since(changed).Round(100*time.Millisecond))
}

// sidecarCrashLoopInStatus: an app whose sidecar exits at once (podname's CRASH) is Degraded
// with the reason CrashLoopBackOff and a message naming the pod and the sidecar, in the
// kubelet's words; without the sidecar, the app is Ready.
func sidecarCrashLoopInStatus(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8s, "e2e-sidecar-", testenv.ControllersRun)
	app := builder.DemoApplication(ns, "proxied", builder.Image(appImage), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.Sidecars = []paasv1.Sidecar{{Container: paasv1.Container{Name: "proxy", Image: appImage,
		Env: []paasv1.EnvVar{{Name: "CRASH", Value: "the proxy cannot reach its database"}}}}}
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	start := time.Now()
	degraded := expectDegraded(t, app, paasv1.ReasonCrashLoopBackOff, "", 3*time.Minute)
	pods := &corev1.PodList{}
	g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(podsOf(app)))).To(Succeed())
	g.Expect(pods.Items).To(HaveLen(1))
	g.Expect(degraded.Message).To(HavePrefix("Pod %s, container proxy: ", pods.Items[0].Name))
	g.Expect(strings.Contains(degraded.Message, "exited with code 1")).To(BeTrue(), degraded.Message)
	t.Logf("created to Degraded %s after %s: %s", degraded.Reason, time.Since(start).Round(100*time.Millisecond), degraded.Message)

	updateApp(g, app, func(app *paasv1.DemoApplication) { app.Spec.Sidecars = nil })
	expectServing(t, app, 1)
}
