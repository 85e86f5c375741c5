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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestReadinessGatesTraffic: a pod whose readiness probe fails gets no traffic through the
// app's Service, though it runs and answers on its own address: kube-proxy sends every call
// to the pod that is ready. Once its probe passes, it gets its share.
func TestReadinessGatesTraffic(t *testing.T) {
	// How long each pod's /ready answers 503 after it starts.
	const notReady = 20 * time.Second
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	// A pod turns Ready at its first passing check; three failures in a row, not one slow
	// answer on a loaded node, take the ready pod out of the Service.
	app := builder.DemoApplication(ns, "gated", builder.Image(appImage), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)),
		readyAfter(notReady, 3))
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	ready := expectServing(t, app, 1)[0]
	url := serviceURL(g, app, "/")

	// A second pod: running and answering on its own address, its probe failing.
	updateApp(g, app, func(app *paasv1.DemoApplication) { app.Spec.Replica = ptr.To[int32](2) })
	starting := &corev1.Pod{}
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(podsOf(app)))).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(2))
		for _, p := range pods.Items {
			if p.Name != ready.Name {
				*starting = p
			}
		}
		g.Expect(starting.Status.PodIP).NotTo(BeEmpty())
		answer, err := get(fmt.Sprintf("http://%s:8080/", starting.Status.PodIP))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(answer).To(Equal(starting.Name))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	g.Expect(framework.PodReady(starting)).To(BeFalse(), "the new pod is Ready as soon as it answers")

	// Until it is Ready, every call through the Service goes to the ready pod. Its status is
	// read after each call: a pod not Ready then was not Ready during the call either.
	var calls int
	deadline := time.Now().Add(notReady + time.Minute)
	for ; ; calls++ {
		answer, err := get(url)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(starting), starting)).To(Succeed())
		if framework.PodReady(starting) {
			break
		}
		g.Expect(answer).To(Equal(ready.Name), "call %d, through the Service, went to the pod that is not Ready", calls+1)
		g.Expect(time.Now()).To(BeTemporally("<", deadline), "the new pod is not Ready")
		time.Sleep(100 * time.Millisecond)
	}
	started := starting.Status.ContainerStatuses[0].State.Running.StartedAt.Time
	becameReady := podReadySince(starting)
	t.Logf("%d calls through the Service while %s was not Ready, all to %s; Ready %s after its container started",
		calls, starting.Name, ready.Name, becameReady.Sub(started))
	// The probe held the pod back, not a slow start; timestamps are in whole seconds.
	g.Expect(becameReady.Sub(started)).To(BeNumerically(">=", notReady-time.Second))
	g.Expect(calls).To(BeNumerically(">=", 20))

	// Ready: it gets traffic through the Service too.
	seen := map[string]int{}
	g.Eventually(func(g Gomega) {
		answer, err := get(url)
		g.Expect(err).NotTo(HaveOccurred())
		seen[answer]++
		g.Expect(seen).To(And(HaveKey(starting.Name), HaveKey(ready.Name)))
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	t.Logf("once Ready, calls through the Service: %v", seen)
}

// podReadySince is when p's Ready condition last changed.
func podReadySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}
