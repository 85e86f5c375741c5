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
	"io"
	"net/http"
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

// callsPerService is how many calls each per-pod Service must answer with its own pod.
const callsPerService = 20

// get calls a Service's cluster IP from the machine, through kube-proxy's rules, on a new
// connection each time, so that each call is balanced anew.
func get(url string) (string, error) {
	c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", url, resp.Status)
	}
	return string(body), err
}

// podServiceAnswers calls each pod's Service callsPerService times and returns how many
// answers came from that very pod, and how many calls were made.
func podServiceAnswers(g Gomega, namespace string, pods []corev1.Pod) (correct, calls int) {
	for _, p := range pods {
		svc := &corev1.Service{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: p.Name}, svc)).To(Succeed())
		for range callsPerService {
			calls++
			answer, err := get(fmt.Sprintf("http://%s:80/", svc.Spec.ClusterIP))
			g.Expect(err).NotTo(HaveOccurred())
			if answer == p.Name {
				correct++
			}
		}
	}
	return correct, calls
}

// TestPodServices: each per-pod Service carries traffic to its own pod, and only to it; the
// app's Service spreads over all pods; a pod's Service goes with the pod.
func TestPodServices(t *testing.T) {
	g := NewWithT(t)
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	app := builder.DemoApplication(ns, "podname", builder.Image(appImage), builder.Replicas(3), builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	g.Expect(k8s.Create(context.Background(), app)).To(Succeed())
	selector := map[string]string{"app.kubernetes.io/name": app.Name}

	var pods []corev1.Pod
	start := time.Now()
	g.Eventually(func(g Gomega) {
		pods = framework.ReadyPods(g, k8s, ns, selector)
		g.Expect(pods).To(HaveLen(3))
		for _, p := range pods {
			g.Expect(p.Spec.NodeName).To(Equal("real-node"))
			svc := &corev1.Service{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: p.Name}, svc)).To(Succeed())
			// Its first answer: kube-proxy has programmed the Service.
			answer, err := get(fmt.Sprintf("http://%s:80/", svc.Spec.ClusterIP))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(answer).To(Equal(p.Name))
		}
	}, 3*time.Minute, 500*time.Millisecond).Should(Succeed())
	t.Logf("3 pods Ready and their Services answering after %s", time.Since(start).Round(100*time.Millisecond))

	correct, calls := podServiceAnswers(g, ns, pods)
	t.Logf("per-pod Services: %d/%d answers from their own pod", correct, calls)
	g.Expect(correct).To(Equal(calls))

	main := &corev1.Service{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: app.Name}, main)).To(Succeed())
	// kube-proxy programs the app's Service endpoint by endpoint as the EndpointSlice
	// controller adds the pods: wait until each pod has answered once through it.
	programmed := map[string]bool{}
	g.Eventually(func(g Gomega) {
		answer, err := get(fmt.Sprintf("http://%s:80/", main.Spec.ClusterIP))
		g.Expect(err).NotTo(HaveOccurred())
		programmed[answer] = true
		g.Expect(programmed).To(HaveLen(3))
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	seen := map[string]int{}
	for range 60 {
		answer, err := get(fmt.Sprintf("http://%s:80/", main.Spec.ClusterIP))
		g.Expect(err).NotTo(HaveOccurred())
		seen[answer]++
	}
	t.Logf("the app's Service, 60 calls: %v", seen)
	g.Expect(seen).To(HaveLen(3))
	for _, p := range pods {
		g.Expect(seen).To(HaveKey(p.Name))
	}

	// Scale down: the ReplicaSet deletes one pod, and its Service goes with it.
	g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), app)).To(Succeed())
	app.Spec.Replica = ptr.To[int32](2)
	g.Expect(k8s.Update(context.Background(), app)).To(Succeed())
	var remaining []corev1.Pod
	g.Eventually(func(g Gomega) {
		all := &corev1.PodList{}
		g.Expect(k8s.List(context.Background(), all, client.InNamespace(ns), client.MatchingLabels(selector))).To(Succeed())
		g.Expect(all.Items).To(HaveLen(2))
		remaining = framework.ReadyPods(g, k8s, ns, selector)
		g.Expect(remaining).To(HaveLen(2))
		for _, p := range pods {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: p.Name}, &corev1.Service{})
			g.Expect(err == nil).To(Equal(p.Name == remaining[0].Name || p.Name == remaining[1].Name),
				"Service %s exists: %v", p.Name, err)
		}
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed())
	correct, calls = podServiceAnswers(g, ns, remaining)
	t.Logf("after scaling to 2: %d/%d answers from their own pod", correct, calls)
	g.Expect(correct).To(Equal(calls))
}
