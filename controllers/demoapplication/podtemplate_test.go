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

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestAffinity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "spread")
	app.Spec.Affinity = &paasv1.Affinity{
		NodeAffinity: &paasv1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &paasv1.NodeSelector{NodeSelectorTerms: []paasv1.NodeSelectorTerm{{
				MatchExpressions: []paasv1.NodeSelectorRequirement{
					{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []paasv1.LabelValue{"amd64", "arm64"}}}}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.PreferredSchedulingTerm{{Weight: 10, Preference: paasv1.NodeSelectorTerm{
				MatchExpressions: []paasv1.NodeSelectorRequirement{{Key: "example.com/cores", Operator: corev1.NodeSelectorOpGt, Values: []paasv1.LabelValue{"8"}}}}}},
		},
		PodAntiAffinity: &paasv1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []paasv1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname"}},
			PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.WeightedPodAffinityTerm{
				{Weight: 50, PodAffinityTerm: paasv1.PodAffinityTerm{TopologyKey: "topology.kubernetes.io/zone"}}},
		},
	}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	ownPods := &metav1.LabelSelector{MatchLabels: map[string]string{wellknown.LabelName: "spread", wellknown.LabelApplication: "spread"}}
	g.Eventually(func(g Gomega) {
		affinity := get(g, ns, "spread", &appsv1.Deployment{}).Spec.Template.Spec.Affinity
		g.Expect(affinity).NotTo(BeNil())
		g.Expect(affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions).To(Equal(
			[]corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}}}))
		g.Expect(affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution).To(HaveExactElements(HaveField("Weight", int32(10))))
		// Anti-affinity keeps the app's own pods apart, and no one else's.
		g.Expect(affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution).To(Equal(
			[]corev1.PodAffinityTerm{{LabelSelector: ownPods, TopologyKey: "kubernetes.io/hostname"}}))
		g.Expect(affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution).To(Equal(
			[]corev1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: ownPods, TopologyKey: "topology.kubernetes.io/zone"}}}))
	}, waitFor, pollEvery).Should(Succeed())

	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Affinity = nil })
	g.Eventually(func(g Gomega) {
		g.Expect(get(g, ns, "spread", &appsv1.Deployment{}).Spec.Template.Spec.Affinity).To(BeNil())
	}, waitFor, pollEvery).Should(Succeed())
}

func TestGracefulTermination(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("an app with ports pauses before it stops, by the kubelet's sleep", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			pod := get(g, ns, "web", &appsv1.Deployment{}).Spec.Template.Spec
			g.Expect(pod.Containers[0].Lifecycle).To(Equal(&corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
				Sleep: &corev1.SleepAction{Seconds: demoapplication.DefaultPreStopSeconds}}}))
			g.Expect(pod.TerminationGracePeriodSeconds).To(Equal(ptr.To[int64](30)))
		}, waitFor, pollEvery).Should(Succeed())
		deployments := "/apis/apps/v1/namespaces/" + ns + "/"
		writesNothing(g, deployments)
	})

	t.Run("the grace period and preStop declared", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.TerminationGracePeriodSeconds = ptr.To[int64](60)
			a.Spec.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Exec: &paasv1.ExecAction{Command: []string{"/app", "drain"}}}}
		})
		g.Eventually(func(g Gomega) {
			pod := get(g, ns, "web", &appsv1.Deployment{}).Spec.Template.Spec
			g.Expect(pod.Containers[0].Lifecycle.PreStop).To(Equal(&corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/app", "drain"}}}))
			g.Expect(pod.TerminationGracePeriodSeconds).To(Equal(ptr.To[int64](60)))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("a pause of 0 seconds is none, and dropping the grace period gives the kubelet's", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.TerminationGracePeriodSeconds = nil
			a.Spec.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{}}}
		})
		g.Eventually(func(g Gomega) {
			pod := get(g, ns, "web", &appsv1.Deployment{}).Spec.Template.Spec
			g.Expect(pod.Containers[0].Lifecycle).To(BeNil())
			g.Expect(pod.TerminationGracePeriodSeconds).To(Equal(ptr.To[int64](30)))
		}, waitFor, pollEvery).Should(Succeed())
	})
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
	}, waitFor, pollEvery).Should(Succeed())

	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Sidecars, a.Spec.InitContainers = nil, nil })
	g.Eventually(func(g Gomega) []corev1.Container {
		return get(g, ns, app.Name, &appsv1.Deployment{}).Spec.Template.Spec.InitContainers
	}, waitFor, pollEvery).Should(BeEmpty())
}

// restrictedDefaults is the security context withPodSecurityDefaults gives a container that
// sets none, in a namespace that enforces the restricted level.
var restrictedDefaults = &corev1.SecurityContext{
	AllowPrivilegeEscalation: ptr.To(false),
	Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	RunAsNonRoot:             ptr.To(true),
}
