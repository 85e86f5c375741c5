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
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestDemoApplicationLifecycle(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "shop")
	app.Spec.Env = []paasv1.EnvVar{{Name: "MODE", Value: "demo"}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("creates a Deployment and a Service it controls", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "shop", &appsv1.Deployment{})
			g.Expect(metav1.IsControlledBy(d, app)).To(BeTrue())
			g.Expect(*metav1.GetControllerOf(d).BlockOwnerDeletion).To(BeTrue(), "the app's foreground deletion waits for it")
			g.Expect(d.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
			g.Expect(*d.Spec.Replicas).To(Equal(int32(2)))
			c := d.Spec.Template.Spec.Containers[0]
			g.Expect(c.Image).To(Equal("nginx:1.27"))
			g.Expect(c.Env).To(ConsistOf(corev1.EnvVar{Name: "MODE", Value: "demo"}))
			g.Expect(c.Ports).To(ConsistOf(corev1.ContainerPort{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}))

			s := get(g, ns, "shop", &corev1.Service{})
			g.Expect(metav1.IsControlledBy(s, app)).To(BeTrue())
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
			g.Expect(s.Spec.Selector).To(Equal(d.Spec.Selector.MatchLabels))
			g.Expect(s.Spec.Ports).To(HaveLen(1))
			g.Expect(s.Spec.Ports[0].Port).To(Equal(int32(80)))
			g.Expect(s.Spec.Ports[0].TargetPort).To(Equal(intstr.FromInt32(8080)))
		}, waitFor, pollEvery).Should(Succeed())
		// A new app's first objects are what its status reports: no Event says so.
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &paasv1.DemoApplication{}).Status.Conditions).NotTo(BeEmpty())
		}, waitFor, pollEvery).Should(Succeed())
		g.Expect(eventNotes(g, ns, "shop", demoapplication.EventCreated)).To(BeEmpty())
		// A free name is created outright: nothing asked the API server whether it was free.
		g.Expect(writes.ReadsUnder("/apis/apps/v1/namespaces/"+ns)+writes.ReadsUnder("/api/v1/namespaces/"+ns)).To(BeZero(),
			"the manager read its objects from the API server rather than its cache")
	})

	t.Run("status mirrors the Deployment", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "shop", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionAvailable, metav1.ConditionFalse, paasv1.ReasonReplicasUnavailable))
			g.Expect(got).To(haveCondition(paasv1.ConditionProgressing, metav1.ConditionTrue, paasv1.ReasonRollingOut))
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		}, waitFor, pollEvery).Should(Succeed())

		markDeploymentAvailable(g, ns, "shop")
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "shop", &paasv1.DemoApplication{})
			g.Expect(got.Status.Replicas).To(Equal(int32(2)))
			g.Expect(got.Status.ReadyReplicas).To(Equal(int32(2)))
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(2)))
			g.Expect(got).To(haveCondition(paasv1.ConditionAvailable, metav1.ConditionTrue, paasv1.ReasonMinimumReplicasAvailable))
			g.Expect(got).To(haveCondition(paasv1.ConditionProgressing, metav1.ConditionFalse, paasv1.ReasonRolloutComplete))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("a reconcile that finds everything right writes nothing", func(t *testing.T) {
		g := NewWithT(t)
		before := suite.Quiesced(g, "/apis/")
		// A change to the Deployment outside the fields the operator owns still
		// triggers a reconcile, through the owned-object watch. (A label: an annotation
		// would bump a Deployment's generation and start a rollout.)
		d := get(g, ns, "shop", &appsv1.Deployment{})
		suite.MergePatch(t, d, `{"metadata":{"labels":{"touched":"yes"}}}`)
		g.Consistently(func() int { return writes.WritesUnder("/apis/") }, 2*time.Second).Should(Equal(before))
		g.Expect(writes.WritesUnder("/api/v1/namespaces/" + ns + "/services")).To(Equal(1))
	})

	t.Run("each spec field reaches the Deployment and the Service", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.Image = "nginx:1.28"
			a.Spec.Replica = ptr.To[int32](3)
			a.Spec.Env = []paasv1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "EXTRA", Value: "1"}}
			a.Spec.Ports = []paasv1.DemoApplicationPort{
				{Name: "http", Port: 80, NodePort: ptr.To[int32](30080)},
				{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP},
			}
		})
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "shop", &appsv1.Deployment{})
			g.Expect(*d.Spec.Replicas).To(Equal(int32(3)))
			c := d.Spec.Template.Spec.Containers[0]
			g.Expect(c.Image).To(Equal("nginx:1.28"))
			g.Expect(c.Env).To(Equal([]corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "EXTRA", Value: "1"}}))
			g.Expect(c.Ports).To(ConsistOf(
				corev1.ContainerPort{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
				corev1.ContainerPort{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}))

			s := get(g, ns, "shop", &corev1.Service{})
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
			g.Expect(s.Spec.Ports).To(HaveLen(2))
			g.Expect(s.Spec.Ports[0].NodePort).To(Equal(int32(30080)))
			g.Expect(s.Spec.Ports[1].Port).To(Equal(int32(9090)))
		}, waitFor, pollEvery).Should(Succeed())

		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80}}
			a.Spec.Env = nil
		})
		g.Eventually(func(g Gomega) {
			s := get(g, ns, "shop", &corev1.Service{})
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
			g.Expect(s.Spec.Ports).To(HaveLen(1))
			g.Expect(s.Spec.Ports[0].NodePort).To(BeZero())
			d := get(g, ns, "shop", &appsv1.Deployment{})
			g.Expect(d.Spec.Template.Spec.Containers[0].Env).To(BeEmpty())
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("the pod fields reach the Deployment, are repaired, and go when the spec drops them", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.ImagePullPolicy = corev1.PullIfNotPresent
			a.Spec.ImagePullSecrets = []paasv1.LocalObjectReference{{Name: "registry"}}
			a.Spec.Command, a.Spec.Args = []string{"nginx"}, []string{"-g", "daemon off;"}
			a.Spec.EnvFrom = []paasv1.EnvFromSource{{Prefix: "CFG_", ConfigMapRef: &paasv1.OptionalObjectReference{Name: "settings"}}}
			a.Spec.ServiceAccountName, a.Spec.AutomountServiceAccountToken = "shop", ptr.To(false)
			a.Spec.PodLabels = map[string]paasv1.LabelValue{"team": "shop"}
			a.Spec.PodAnnotations = map[string]string{"example.com/owner": "shop-team"}
			a.Spec.NodeSelector = map[string]paasv1.LabelValue{"kubernetes.io/os": "linux"}
			a.Spec.MinReadySeconds = 5
			a.Spec.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http")}}
			a.Spec.SecurityContext = &paasv1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}
			a.Spec.PodSecurityContext = &paasv1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}
			a.Spec.Volumes = []paasv1.Volume{{Name: "config", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "settings"}}}
			a.Spec.VolumeMounts = []paasv1.VolumeMount{{Name: "config", MountPath: "/etc/app", ReadOnly: true}}
		})
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "shop", &appsv1.Deployment{})
			g.Expect(d.Spec.MinReadySeconds).To(Equal(int32(5)))
			pod := d.Spec.Template
			g.Expect(pod.Labels).To(HaveKeyWithValue("team", "shop"))
			g.Expect(pod.Annotations).To(HaveKeyWithValue("example.com/owner", "shop-team"))
			g.Expect(pod.Spec.ImagePullSecrets).To(Equal([]corev1.LocalObjectReference{{Name: "registry"}}))
			g.Expect(pod.Spec.ServiceAccountName).To(Equal("shop"))
			g.Expect(pod.Spec.AutomountServiceAccountToken).To(Equal(ptr.To(false)))
			g.Expect(pod.Spec.NodeSelector).To(Equal(map[string]string{"kubernetes.io/os": "linux"}))
			c := pod.Spec.Containers[0]
			g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent))
			g.Expect(c.Command).To(Equal([]string{"nginx"}))
			g.Expect(c.Args).To(Equal([]string{"-g", "daemon off;"}))
			g.Expect(c.EnvFrom).To(Equal([]corev1.EnvFromSource{
				{Prefix: "CFG_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}}))
			// The API server's defaults fill what the probe leaves out; they are not the operator's.
			g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/ready"))
			g.Expect(c.ReadinessProbe.PeriodSeconds).To(Equal(int32(10)))
			g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(Equal(ptr.To(false)))
			g.Expect(pod.Spec.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
			g.Expect(pod.Spec.Volumes).To(ConsistOf(HaveField("ConfigMap.Name", "settings")))
			g.Expect(c.VolumeMounts).To(Equal([]corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", ReadOnly: true}}))
		}, waitFor, pollEvery).Should(Succeed())
		// Converged, with the API server's defaults in the pod template, it writes nothing. Its
		// last status write may follow observedGeneration's (the Deployment it rewrote, seen
		// through its watch): converged is a second without a write, which a loop never has.
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "shop", &paasv1.DemoApplication{})
			g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation))
		}, waitFor, pollEvery).Should(Succeed())
		writesNothing(g, "/apis/")

		d := get(g, ns, "shop", &appsv1.Deployment{})
		suite.MergePatch(t, d, `{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"windows"}}}}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &appsv1.Deployment{}).Spec.Template.Spec.NodeSelector).
				To(Equal(map[string]string{"kubernetes.io/os": "linux"}))
		}, waitFor, pollEvery).Should(Succeed())

		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.ImagePullPolicy, a.Spec.ImagePullSecrets, a.Spec.Command, a.Spec.Args, a.Spec.EnvFrom = "", nil, nil, nil, nil
			a.Spec.ServiceAccountName, a.Spec.AutomountServiceAccountToken = "", nil
			a.Spec.PodLabels, a.Spec.PodAnnotations, a.Spec.NodeSelector, a.Spec.MinReadySeconds = nil, nil, nil, 0
			a.Spec.ReadinessProbe, a.Spec.SecurityContext, a.Spec.PodSecurityContext = nil, nil, nil
			a.Spec.Volumes, a.Spec.VolumeMounts = nil, nil
		})
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "shop", &appsv1.Deployment{})
			g.Expect(d.Spec.MinReadySeconds).To(BeZero())
			pod := d.Spec.Template
			g.Expect(pod.Labels).NotTo(HaveKey("team"))
			g.Expect(pod.Annotations).NotTo(HaveKey("example.com/owner"))
			g.Expect(pod.Spec.ImagePullSecrets).To(BeEmpty())
			g.Expect(pod.Spec.ServiceAccountName).To(BeEmpty())
			g.Expect(pod.Spec.AutomountServiceAccountToken).To(BeNil())
			g.Expect(pod.Spec.NodeSelector).To(BeEmpty())
			c := pod.Spec.Containers[0]
			g.Expect(c.Command).To(BeEmpty())
			g.Expect(c.Args).To(BeEmpty())
			g.Expect(c.EnvFrom).To(BeEmpty())
			g.Expect(c.ReadinessProbe).To(BeNil())
			g.Expect(c.SecurityContext).To(BeNil())
			g.Expect(pod.Spec.SecurityContext).To(Or(BeNil(), Equal(&corev1.PodSecurityContext{})))
			g.Expect(pod.Spec.Volumes).To(BeEmpty())
			g.Expect(c.VolumeMounts).To(BeEmpty())
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("drift in the Deployment and the Service is repaired", func(t *testing.T) {
		g := NewWithT(t)
		d := get(g, ns, "shop", &appsv1.Deployment{})
		suite.MergePatch(t, d, `{"spec":{"replicas":7}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(*get(g, ns, "shop", &appsv1.Deployment{}).Spec.Replicas).To(Equal(int32(3)))
		}, waitFor, pollEvery).Should(Succeed())

		d = get(g, ns, "shop", &appsv1.Deployment{})
		d.Spec.Template.Spec.Containers[0].Image = "evil:latest"
		g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &appsv1.Deployment{}).Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.28"))
		}, waitFor, pollEvery).Should(Succeed())

		s := get(g, ns, "shop", &corev1.Service{})
		s.Spec.Ports[0].Port = 81
		g.Expect(k8sClient.Update(ctx, s)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &corev1.Service{}).Spec.Ports[0].Port).To(Equal(int32(80)))
		}, waitFor, pollEvery).Should(Succeed())

		uid := s.UID
		g.Expect(k8sClient.Delete(ctx, s)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &corev1.Service{}).UID).NotTo(Equal(uid))
		}, waitFor, pollEvery).Should(Succeed())
		// Made again after the first pass: news, which one Event says.
		g.Eventually(func(g Gomega) {
			g.Expect(eventNotes(g, ns, "shop", demoapplication.EventCreated)).To(ConsistOf("Created Service shop"))
		}, waitFor, pollEvery).Should(Succeed())

		// Removing the managed-by label takes the Deployment out of the operator's
		// cache; the operator finds it by name and labels it again.
		d = get(g, ns, "shop", &appsv1.Deployment{})
		suite.MergePatch(t, d, `{"metadata":{"labels":{"app.kubernetes.io/managed-by":null}}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &appsv1.Deployment{}).Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("the Service's allocated clusterIP is not fought over", func(t *testing.T) {
		g := NewWithT(t)
		s := get(g, ns, "shop", &corev1.Service{})
		g.Expect(s.Spec.ClusterIP).NotTo(BeEmpty())
		g.Consistently(func(g Gomega) {
			g.Expect(get(g, ns, "shop", &corev1.Service{}).ResourceVersion).To(Equal(s.ResourceVersion))
		}, 2*time.Second).Should(Succeed())
	})

	t.Run("no ports means no Service", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Ports = nil })
		g.Eventually(func() bool {
			err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, &corev1.Service{})
			return client.IgnoreNotFound(err) == nil && err != nil
		}, waitFor, pollEvery).Should(BeTrue())
	})
}

func TestDemoApplicationConflict(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)

	theirs := theirDeployment(ns, "taken")
	g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
	app := builder.DemoApplication(ns, "taken")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	holder := get(g, ns, "taken", &appsv1.Deployment{}).ManagedFields[0].Manager
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "taken", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
		g.Expect(suite.EventReasons(g, ns, "taken")).To(ContainElement(demoapplication.EventResourceConflict))
		// Not "the Deployment does not exist": one does, someone else's, and the message says whose.
		g.Expect(got).To(haveCondition(paasv1.ConditionAvailable, metav1.ConditionFalse, paasv1.ReasonResourceConflict))
		g.Expect(got).To(haveCondition(paasv1.ConditionProgressing, metav1.ConditionFalse, paasv1.ReasonResourceConflict))
		g.Expect(condition(got, paasv1.ConditionAvailable).Message).To(ContainSubstring(`written by "` + holder + `"`))
	}, waitFor, pollEvery).Should(Succeed())
	g.Consistently(func(g Gomega) {
		got := get(g, ns, "taken", &appsv1.Deployment{})
		g.Expect(got.ResourceVersion).To(Equal(theirs.ResourceVersion))
		// One Event however many passes meet the conflict (the Service's creation and the
		// status write bring more): repeats count on it as a series.
		g.Expect(eventCount(g, ns, "taken", demoapplication.EventResourceConflict)).To(Equal(1), "a lasting conflict made an Event per pass")
	}, 3*time.Second).Should(Succeed())

	// Still one when their object changes between passes (its controllers write its status).
	theirsPatch := client.MergeFrom(theirs.DeepCopy())
	theirs.Annotations = map[string]string{"edited": "by them"}
	g.Expect(k8sClient.Patch(ctx, theirs, theirsPatch)).To(Succeed())
	current := get(g, ns, "taken", &paasv1.DemoApplication{})
	appPatch := client.MergeFrom(current.DeepCopy())
	current.Spec.Replica = ptr.To[int32](2)
	g.Expect(k8sClient.Patch(ctx, current, appPatch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "taken", &paasv1.DemoApplication{})
		g.Expect(condition(got, paasv1.ConditionDegraded).ObservedGeneration).To(Equal(got.Generation))
	}, waitFor, pollEvery).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(eventCount(g, ns, "taken", demoapplication.EventResourceConflict)).To(Equal(1), "a conflict over an object that changed made a second Event")
	}, 2*time.Second).Should(Succeed())

	// The same when their object carries the operator's label and so sits in its cache.
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "labelled",
			Labels: map[string]string{wellknown.LabelManagedBy: wellknown.ManagedByValue}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 1234}}},
	}
	g.Expect(k8sClient.Create(ctx, svc)).To(Succeed())
	g.Expect(k8sClient.Create(ctx, builder.DemoApplication(ns, "labelled"))).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "labelled", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
	}, waitFor, pollEvery).Should(Succeed())
	g.Expect(get(g, ns, "labelled", &corev1.Service{}).ResourceVersion).To(Equal(svc.ResourceVersion))

	// Once the name is free the application recovers by itself.
	g.Expect(k8sClient.Delete(ctx, theirs)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "taken", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
		g.Expect(metav1.IsControlledBy(get(g, ns, "taken", &appsv1.Deployment{}), got)).To(BeTrue())
	}, waitFor, pollEvery).Should(Succeed())
}

func TestDemoApplicationNodePortCollision(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)

	first, second := builder.DemoApplication(ns, "first"), builder.DemoApplication(ns, "second")
	first.Spec.Ports = []paasv1.DemoApplicationPort{{Port: 80, NodePort: ptr.To[int32](31111)}}
	second.Spec.Ports = first.Spec.Ports
	g.Expect(k8sClient.Create(ctx, first)).To(Succeed())
	g.Eventually(func(g Gomega) { get(g, ns, "first", &corev1.Service{}) }, waitFor, pollEvery).Should(Succeed())
	g.Expect(k8sClient.Create(ctx, second)).To(Succeed())

	g.Eventually(func(g Gomega) {
		got := get(g, ns, "second", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonServiceFailed))
		g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(ContainSubstring("31111"))
		g.Expect(suite.EventReasons(g, ns, "second")).To(ContainElement(demoapplication.EventApplyFailed))
	}, waitFor, pollEvery).Should(Succeed())

	// Moving to a free port clears the condition.
	update(g, second, func(a *paasv1.DemoApplication) { a.Spec.Ports[0].NodePort = ptr.To[int32](31112) })
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "second", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	}, waitFor, pollEvery).Should(Succeed())
}

func TestSamplesApply(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	dir := filepath.Join(testenv.Root(), "config", "samples")
	for _, file := range []string{"paas_v1_demoapplication.yaml", "paas_v1beta1_demoapplication.yaml"} {
		t.Run(file, func(t *testing.T) {
			g := NewWithT(t)
			data, err := os.ReadFile(filepath.Join(dir, file))
			g.Expect(err).NotTo(HaveOccurred())
			sample := &unstructured.Unstructured{}
			g.Expect(yaml.Unmarshal(data, &sample.Object)).To(Succeed())
			sample.SetNamespace(ns)
			g.Expect(k8sClient.Create(ctx, sample)).To(Succeed())

			// Whatever version it was written in, it is served as v1 and reconciled.
			g.Eventually(func(g Gomega) {
				app := get(g, ns, sample.GetName(), &paasv1.DemoApplication{})
				d := get(g, ns, sample.GetName(), &appsv1.Deployment{})
				g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(app.Spec.Image))
				g.Expect(*d.Spec.Replicas).To(Equal(*app.Spec.Replica))
			}, waitFor, pollEvery).Should(Succeed())
		})
	}

	g := NewWithT(t)
	g.Eventually(func(g Gomega) {
		s := get(g, ns, "nginx-demo", &corev1.Service{})
		// As README shows it: a ClusterIP Service, no node port another copy would collide on.
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
		g.Expect(s.Spec.Ports).To(ConsistOf(HaveField("Port", int32(80))))
	}, waitFor, pollEvery).Should(Succeed())
}

func TestExposureFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "shop")
	// A node port of its own: one the cluster allocated could be one the property test asks for.
	app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080)), NodePort: ptr.To[int32](30071)}}
	app.Spec.Service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeLoadBalancer,
		Annotations: map[string]string{"metallb.io/address-pool": "public"}}
	app.Spec.PriorityClassName = "high"
	app.Spec.RevisionHistoryLimit = ptr.To[int32](3)
	app.Spec.Ingress = &paasv1.Ingress{Hosts: []string{"*.shop.example.com", "shop.example.com"}, TLSSecretName: "shop-tls"}
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	app.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](70),
		Behavior: &paasv1.AutoscalingBehavior{ScaleDown: &paasv1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](600),
			Policies: []paasv1.ScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}}}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("in the Service, the Deployment, the autoscaler and the status", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			svc := get(g, ns, "shop", &corev1.Service{})
			g.Expect(svc.Spec.Type).To(Equal(corev1.ServiceTypeLoadBalancer))
			g.Expect(svc.Annotations).To(HaveKeyWithValue("metallb.io/address-pool", "public"))
			g.Expect(svc.Spec.Ports[0].NodePort).To(Equal(int32(30071)))
			d := get(g, ns, "shop", &appsv1.Deployment{})
			g.Expect(d.Spec.Template.Spec.PriorityClassName).To(Equal("high"))
			g.Expect(d.Spec.RevisionHistoryLimit).To(Equal(ptr.To[int32](3)))
			hpa := get(g, ns, "shop", &autoscalingv2.HorizontalPodAutoscaler{})
			g.Expect(hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds).To(Equal(ptr.To[int32](600)))
			g.Expect(hpa.Spec.Behavior.ScaleDown.Policies).To(Equal([]autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}))
			// Autoscaling from two, the app gets its default budget.
			g.Expect(get(g, ns, "shop", &policyv1.PodDisruptionBudget{}).Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
			g.Expect(get(g, ns, "shop", &paasv1.DemoApplication{}).Status.URL).To(Equal("https://shop.example.com"))
		}, waitFor, pollEvery).Should(Succeed())
		services := "/api/v1/namespaces/" + ns + "/services"
		writesNothing(g, services)
	})

	t.Run("back to NodePort, without the annotations, nor a URL once the Ingress goes", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.Service = nil
			a.Spec.Ingress = nil
			a.Spec.Autoscaling.Behavior = nil
		})
		g.Eventually(func(g Gomega) {
			svc := get(g, ns, "shop", &corev1.Service{})
			g.Expect(svc.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
			g.Expect(svc.Annotations).NotTo(HaveKey("metallb.io/address-pool"))
			g.Expect(get(g, ns, "shop", &paasv1.DemoApplication{}).Status.URL).To(BeEmpty())
			g.Expect(get(g, ns, "shop", &autoscalingv2.HorizontalPodAutoscaler{}).Spec.Behavior).To(BeNil())
		}, waitFor, pollEvery).Should(Succeed())
	})
}
