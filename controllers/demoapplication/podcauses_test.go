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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// TestPodCausesReachStatus plays the kubelet, which envtest does not run: a pod of the app
// whose image cannot be pulled, then whose container crash-loops, then runs. The app says
// each cause within seconds, in the pod's words, with one Warning Event per cause, and stops
// saying it once the pod runs: what the app's status reads is the pods' own, watched as
// metadata and read from the API server only while some are not ready.
func TestPodCausesReachStatus(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := suite.NewNamespace(t)
	app := builder.DemoApplication(ns, "web")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	var pod *corev1.Pod
	g.Eventually(func(g Gomega) { pod = newAppPod(g, app, "web-6b7f9-aaaaa") }).Should(Succeed())
	// And the Deployment controller: one pod, not ready.
	d := get(g, ns, app.Name, &appsv1.Deployment{})
	d.Status.Replicas = 1
	g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())

	// setStatus writes the pod's status as the kubelet would, and waits for the app's Degraded
	// condition to say reason.
	setStatus := func(status corev1.ContainerStatus, reason string) *metav1.Condition {
		t.Helper()
		g.Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			pod.Status.Phase, pod.Status.ContainerStatuses = corev1.PodRunning, []corev1.ContainerStatus{status}
			g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		}).Should(Succeed())
		var degraded *metav1.Condition
		g.Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			degraded = meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
			g.Expect(degraded).To(HaveField("Reason", reason))
		}, 10*time.Second, 50*time.Millisecond).Should(Succeed())
		return degraded
	}

	pull := `Back-off pulling image "registry.invalid/nope:1"`
	degraded := setStatus(corev1.ContainerStatus{Name: "app", Image: "registry.invalid/nope:1",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: pull}}}, paasv1.ReasonImagePullBackOff)
	g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container app: " + pull))
	g.Expect(meta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionStalled)).To(BeTrue())

	// The kubelet retries: the reason alternates with ErrImagePull, the app's does not.
	setStatus(corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason: "ErrImagePull", Message: "dial tcp: lookup registry.invalid: no such host"}}}, paasv1.ReasonImagePullBackOff)
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded).Message).To(ContainSubstring("no such host"))
	}, 10*time.Second, 50*time.Millisecond).Should(Succeed())

	exited := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}
	degraded = setStatus(corev1.ContainerStatus{Name: "app", RestartCount: 1, LastTerminationState: exited,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}, paasv1.ReasonCrashLoopBackOff)
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container app: restarted 1 times; last exited with code 2 (Error)"))

	setStatus(corev1.ContainerStatus{Name: "app", Ready: true, RestartCount: 1, LastTerminationState: exited,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}, paasv1.ReasonAsExpected)
	g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionStalled)).To(BeNil())

	// One Warning Event per cause, however often the pod changed.
	g.Eventually(func(g Gomega) []string {
		return append(eventNotes(g, ns, app.Name, paasv1.ReasonImagePullBackOff), eventNotes(g, ns, app.Name, paasv1.ReasonCrashLoopBackOff)...)
	}).Should(ConsistOf("Pod web-6b7f9-aaaaa, container app: "+pull, "Pod web-6b7f9-aaaaa, container app: restarted 1 times; last exited with code 2 (Error)"))
}

// BenchmarkCauseToStatus measures how long a cause takes from where the cluster writes it to
// the app's Degraded condition: on a pod's status (the pod watch as metadata, then a read of
// the app's pods from the API server), beside the Deployment's ReplicaFailure condition (the
// Deployment watch, read from the cache) as the baseline. One operation is one cause.
func BenchmarkCauseToStatus(b *testing.B) {
	g := NewWithT(b)
	ctx := context.Background()
	ns := suite.NewNamespace(b)
	app := builder.DemoApplication(ns, "web")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	var pod *corev1.Pod
	g.Eventually(func(g Gomega) { pod = newAppPod(g, app, "web-6b7f9-aaaaa") }).Should(Succeed())
	d := get(g, ns, app.Name, &appsv1.Deployment{})

	// until polls the app until its Degraded reason is reason.
	until := func(reason string) {
		for {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			if c := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded); c != nil && c.Reason == reason {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}

	b.Run("pod status", func(b *testing.B) {
		d.Status = appsv1.DeploymentStatus{Replicas: 1}
		g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		causes := map[string]corev1.ContainerStateWaiting{
			paasv1.ReasonImagePullBackOff: {Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.invalid/nope:1"`},
			paasv1.ReasonCrashLoopBackOff: {Reason: "CrashLoopBackOff", Message: "back-off 10s restarting failed container=app"},
		}
		reasons := []string{paasv1.ReasonImagePullBackOff, paasv1.ReasonCrashLoopBackOff}
		i := 0
		for b.Loop() {
			reason := reasons[i%2]
			i++
			waiting := causes[reason]
			pod.Status.Phase = corev1.PodPending
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &waiting}}}
			g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
			until(reason)
		}
	})

	b.Run("baseline: Deployment condition", func(b *testing.B) {
		// Every pod ready: only the Deployment's condition says anything.
		pod.Status.ContainerStatuses = nil
		g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		d.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1}
		g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		until(paasv1.ReasonAsExpected)
		failure := appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: `pods "web-6b7f9-bbbbb" is forbidden: exceeded quota`}
		i := 0
		for b.Loop() {
			reason := []string{paasv1.ReasonFailedCreate, paasv1.ReasonAsExpected}[i%2]
			i++
			d.Status.Conditions = nil
			if reason == paasv1.ReasonFailedCreate {
				d.Status.Conditions = []appsv1.DeploymentCondition{failure}
			}
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
			until(reason)
		}
	})
}
