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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// restrictedDefaults is the security context withPodSecurityDefaults gives a container that
// sets none, in a namespace that enforces the restricted level.
var restrictedDefaults = &corev1.SecurityContext{
	AllowPrivilegeEscalation: ptr.To(false),
	Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	RunAsNonRoot:             ptr.To(true),
}

// TestSidecarsAndInitContainers: the sidecars become the pod's first init containers, which
// restart always, the initContainers follow; in a restricted namespace each gets the app
// container's security defaults, and the pods are admitted. Dropping them from the spec
// drops them from the Deployment.
func TestSidecarsAndInitContainers(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-", testenv.NamespaceLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}))

	app := builder.DemoApplication(ns, "web")
	app.Spec.Volumes = []paasv1.Volume{{Name: "scratch", EmptyDir: &paasv1.EmptyDirVolumeSource{}}}
	app.Spec.InitContainers = []paasv1.Container{{Name: "migrate", Image: "registry.example/migrate:1", Args: []string{"up"},
		VolumeMounts: []paasv1.VolumeMount{{Name: "scratch", MountPath: "/tmp"}}}}
	app.Spec.Sidecars = []paasv1.Sidecar{{
		Container: paasv1.Container{Name: "proxy", Image: "registry.example/proxy:1",
			Resources: &paasv1.ContainerResources{Requests: &paasv1.ResourceAmounts{CPU: ptr.To(resource.MustParse("10m"))}}},
		ReadinessProbe: &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromInt32(5432)}},
	}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	g.Eventually(func(g Gomega) {
		d := get(g, ns, app.Name, &appsv1.Deployment{})
		pod := d.Spec.Template.Spec
		g.Expect(pod.InitContainers).To(HaveLen(2))
		proxy, migrate := pod.InitContainers[0], pod.InitContainers[1]
		g.Expect(proxy.Name).To(Equal("proxy"))
		g.Expect(proxy.RestartPolicy).To(Equal(ptr.To(corev1.ContainerRestartPolicyAlways)))
		g.Expect(proxy.ReadinessProbe.TCPSocket.Port.IntValue()).To(Equal(5432))
		g.Expect(proxy.Resources.Requests.Cpu().String()).To(Equal("10m"))
		g.Expect(migrate.Name).To(Equal("migrate"))
		g.Expect(migrate.RestartPolicy).To(BeNil())
		g.Expect(migrate.Args).To(Equal([]string{"up"}))
		g.Expect(migrate.VolumeMounts).To(Equal([]corev1.VolumeMount{{Name: "scratch", MountPath: "/tmp"}}))
		for _, c := range pod.InitContainers {
			g.Expect(c.SecurityContext).To(Equal(restrictedDefaults), c.Name)
		}
		// The restricted level admits the pods the ReplicaSet would create.
		g.Expect(k8sClient.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-", Namespace: ns, Labels: d.Spec.Template.Labels},
			Spec: d.Spec.Template.Spec}, client.DryRunAll)).To(Succeed())
	}).Should(Succeed())

	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Sidecars, a.Spec.InitContainers = nil, nil })
	g.Eventually(func(g Gomega) []corev1.Container {
		return get(g, ns, app.Name, &appsv1.Deployment{}).Spec.Template.Spec.InitContainers
	}).Should(BeEmpty())
}

// TestHelperContainerFailuresReachStatus plays the kubelet: an init container that keeps
// failing, then, once it completed, a sidecar that crash-loops. The app is Degraded for each,
// naming the pod and the container; a completed init container is not a failure.
func TestHelperContainerFailuresReachStatus(t *testing.T) {
	g := NewWithT(t)
	app, pod := podCauseApp(t, g)
	lastExit := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}

	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodPending,
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "migrate", RestartCount: 3, LastTerminationState: lastExit,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 40s restarting failed container=migrate pod=" + pod.Name}}}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}})
	degraded := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonCrashLoopBackOff)
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container migrate: " +
		"back-off 40s restarting failed container=migrate pod=web-6b7f9-aaaaa; last exited with code 1 (Error)"))

	completed := corev1.ContainerStatus{Name: "migrate",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodRunning,
		InitContainerStatuses: []corev1.ContainerStatus{
			{Name: "proxy", RestartCount: 2, LastTerminationState: lastExit, State: running, Started: ptr.To(true)}, completed},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true), State: running}}})
	g.Eventually(func(g Gomega) metav1.Condition {
		return condition(get(g, app.Namespace, app.Name, app), paasv1.ConditionDegraded)
	}, 10*time.Second, 50*time.Millisecond).Should(And(HaveField("Reason", paasv1.ReasonCrashLoopBackOff),
		HaveField("Message", "Pod web-6b7f9-aaaaa, container proxy: restarted 2 times; last exited with code 1 (Error)")))

	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodRunning,
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "proxy", Ready: true, Started: ptr.To(true), State: running}, completed},
		ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true), State: running}}})
	eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected)
}
