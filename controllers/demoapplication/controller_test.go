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
	"strings"
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

func TestDemoApplicationValidation(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	port := func(p paasv1.DemoApplicationPort) []paasv1.DemoApplicationPort {
		return []paasv1.DemoApplicationPort{p}
	}

	for _, tc := range []struct {
		name    string
		change  func(*paasv1.DemoApplicationSpec)
		message string
	}{
		{"empty image", func(s *paasv1.DemoApplicationSpec) { s.Image = "" }, "spec.image"},
		{"negative replica", func(s *paasv1.DemoApplicationSpec) { s.Replica = ptr.To[int32](-1) }, "spec.replica"},
		{"port 0", func(s *paasv1.DemoApplicationSpec) { s.Ports = port(paasv1.DemoApplicationPort{Port: 0}) }, "spec.ports[0].port"},
		{"port above 65535", func(s *paasv1.DemoApplicationSpec) { s.Ports = port(paasv1.DemoApplicationPort{Port: 70000}) }, "spec.ports[0].port"},
		{"nodePort below the range", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, NodePort: ptr.To[int32](80)})
		}, "spec.ports[0].nodePort"},
		{"nodePort above the range", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, NodePort: ptr.To[int32](32768)})
		}, "spec.ports[0].nodePort"},
		{"targetPort out of range", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, TargetPort: ptr.To(intstr.FromInt32(0))})
		}, "targetPort must be between 1 and 65535"},
		{"bad protocol", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, Protocol: "HTTP"})
		}, "spec.ports[0].protocol"},
		{"duplicate port numbers", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80}, {Name: "b", Port: 80}}
		}, "port numbers must be unique for each protocol"},
		{"missing names with several ports", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80}, {Port: 81}}
		}, "every port needs a name when there is more than one port"},
		{"duplicate names", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80}, {Name: "a", Port: 81}}
		}, "port names must be unique"},
		{"duplicate nodePorts", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80, NodePort: ptr.To[int32](30001)}, {Name: "b", Port: 81, NodePort: ptr.To[int32](30001)}}
		}, "nodePorts must be unique"},
		{"per-pod Services without ports", func(s *paasv1.DemoApplicationSpec) {
			s.Ports, s.PodServices = nil, &paasv1.PodServices{Enabled: true}
		}, "podServices needs at least one port to expose"},
		{"per-pod Services naming an unknown port", func(s *paasv1.DemoApplicationSpec) {
			s.Ports[0].Name = "http"
			s.PodServices = &paasv1.PodServices{Enabled: true, Ports: []string{"grpc"}}
		}, "podServices.ports must name ports of spec.ports"},
		{"per-pod Services of an unknown type", func(s *paasv1.DemoApplicationSpec) {
			s.PodServices = &paasv1.PodServices{Enabled: true, Type: "ExternalName"}
		}, "spec.podServices.type"},
		{"duplicate env names", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}
		}, "spec.env[1]"},
		// Each class TestEveryAcceptedSpecBuildsValidObjects found accepted and then refused in
		// the Deployment or a Service the operator built.
		{"port named 8080", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Name: "8080", Port: 80})
		}, "a port name must hold a letter"},
		{"port name with --", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Name: "a--b", Port: 80})
		}, "spec.ports[0].name"},
		{"targetPort named 8080", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, TargetPort: ptr.To(intstr.FromString("8080"))})
		}, "a named targetPort must be an IANA service name"},
		{"env name with =", func(s *paasv1.DemoApplicationSpec) { s.Env = []paasv1.EnvVar{{Name: "A=B"}} }, "spec.env[0].name"},
		{"env name starting with a digit", func(s *paasv1.DemoApplicationSpec) { s.Env = []paasv1.EnvVar{{Name: "1ST"}} }, "spec.env[0].name"},
		{"env with value and valueFrom", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", Value: "1", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}, "value and valueFrom cannot both be set"},
		{"env valueFrom with no source", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{}}}
		}, "valueFrom takes exactly one of"},
		{"env fieldRef of a field pods do not expose", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "status.phase"}}}}
		}, "spec.env[0].valueFrom.fieldRef.fieldPath"},
		{"env fieldRef of a label key too long", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{
				FieldPath: "metadata.labels['" + strings.Repeat("k", 64) + "']"}}}}
		}, "spec.env[0].valueFrom.fieldRef.fieldPath"},
		{"env resourceFieldRef of another container", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{ResourceFieldRef: &paasv1.ResourceFieldSelector{
				ContainerName: "sidecar", Resource: "limits.cpu"}}}}
		}, "spec.env[0].valueFrom.resourceFieldRef.containerName"},
		{"env resourceFieldRef of cpu in Mi", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{ResourceFieldRef: &paasv1.ResourceFieldSelector{
				Resource: "limits.cpu", Divisor: "1Mi"}}}}
		}, "spec.env[0].valueFrom.resourceFieldRef.divisor"},
		{"env configMapKeyRef without a name", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Key: "k"}}}}
		}, "spec.env[0].valueFrom.configMapKeyRef.name"},
		{"env secretKeyRef of key ..", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{Name: "creds", Key: ".."}}}}
		}, "spec.env[0].valueFrom.secretKeyRef.key"},
		{"resource gpu without a domain", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Limits: corev1.ResourceList{"gpu": resource.MustParse("1")}}
		}, "resources may name cpu, memory, ephemeral-storage and domain-qualified extended resources"},
		{"negative memory", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1")}}
		}, "resource quantities must not be negative"},
		{"a request above its limit", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
			}
		}, "a resource's request must not exceed its limit"},
		{"podLabels setting the operator's selector", func(s *paasv1.DemoApplicationSpec) {
			s.PodLabels = map[string]paasv1.LabelValue{"paas.cmft.com/demoapplication": "other"}
		}, "podLabels cannot set"},
		{"podLabels value of 64 characters", func(s *paasv1.DemoApplicationSpec) {
			s.PodLabels = map[string]paasv1.LabelValue{"team": paasv1.LabelValue(strings.Repeat("v", 64))}
		}, "spec.podLabels.team"},
		{"nodeSelector key with two slashes", func(s *paasv1.DemoApplicationSpec) {
			s.NodeSelector = map[string]paasv1.LabelValue{"a/b/c": "x"}
		}, "nodeSelector keys must be label keys"},
		{"podAnnotations key with a space", func(s *paasv1.DemoApplicationSpec) {
			s.PodAnnotations = map[string]string{"bad key": "x"}
		}, "podAnnotations keys must be annotation keys"},
		{"envFrom of a ConfigMap and a Secret at once", func(s *paasv1.DemoApplicationSpec) {
			s.EnvFrom = []paasv1.EnvFromSource{{ConfigMapRef: &paasv1.OptionalObjectReference{Name: "a"}, SecretRef: &paasv1.OptionalObjectReference{Name: "b"}}}
		}, "envFrom takes exactly one of configMapRef and secretRef"},
		{"envFrom prefix starting with a digit", func(s *paasv1.DemoApplicationSpec) {
			s.EnvFrom = []paasv1.EnvFromSource{{Prefix: "1X", ConfigMapRef: &paasv1.OptionalObjectReference{Name: "a"}}}
		}, "spec.envFrom[0].prefix"},
		{"imagePullSecret of no name", func(s *paasv1.DemoApplicationSpec) {
			s.ImagePullSecrets = []paasv1.LocalObjectReference{{Name: ""}}
		}, "spec.imagePullSecrets[0].name"},
		{"serviceAccountName in capitals", func(s *paasv1.DemoApplicationSpec) { s.ServiceAccountName = "Web" }, "spec.serviceAccountName"},
		{"imagePullPolicy Sometimes", func(s *paasv1.DemoApplicationSpec) { s.ImagePullPolicy = "Sometimes" }, "spec.imagePullPolicy"},
		{"negative minReadySeconds", func(s *paasv1.DemoApplicationSpec) { s.MinReadySeconds = -1 }, "spec.minReadySeconds"},
		{"a probe with two actions", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromInt32(80)}, Exec: &paasv1.ExecAction{Command: []string{"true"}}}
		}, "a probe takes exactly one of httpGet, tcpSocket, grpc and exec"},
		{"a probe with no action", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{PeriodSeconds: 5}
		}, "a probe takes exactly one of httpGet, tcpSocket, grpc and exec"},
		{"a livenessProbe's successThreshold of 2", func(s *paasv1.DemoApplicationSpec) {
			s.LivenessProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromInt32(80)}, SuccessThreshold: 2}
		}, "a livenessProbe's successThreshold must be 1"},
		{"a probe port named 8080", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Port: intstr.FromString("8080")}}
		}, "a named port must be an IANA service name"},
		{"a probe header name with a space", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Port: intstr.FromInt32(80), HTTPHeaders: []paasv1.HTTPHeader{{Name: "X Probe"}}}}
		}, "spec.readinessProbe.httpGet.httpHeaders[0].name"},
		{"an exec probe without a command", func(s *paasv1.DemoApplicationSpec) {
			s.StartupProbe = &paasv1.Probe{Exec: &paasv1.ExecAction{}}
		}, "spec.startupProbe.exec.command"},
		{"runAsNonRoot as user 0", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](0)}
		}, "runAsNonRoot cannot hold with runAsUser 0"},
		{"a lowercase capability", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{Capabilities: &paasv1.Capabilities{Drop: []paasv1.Capability{"all"}}}
		}, "spec.securityContext.capabilities.drop[0]"},
		{"a Localhost seccomp profile without its path", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}}
		}, "localhostProfile is set exactly when type is Localhost"},
		{"a seccomp profile path with ..", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{SeccompProfile: &paasv1.SeccompProfile{
				Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("../etc/profile.json")}}
		}, "localhostProfile must be a relative path without '..'"},
		{"a negative fsGroup", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{FSGroup: ptr.To[int64](-1)}
		}, "spec.podSecurityContext.fsGroup"},
		{"a volumeMount of no volume", func(s *paasv1.DemoApplicationSpec) {
			s.VolumeMounts = []paasv1.VolumeMount{{Name: "config", MountPath: "/etc/app"}}
		}, "every volumeMount must name a volume of spec.volumes"},
		{"a volume of two sources", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "data", EmptyDir: &paasv1.EmptyDirVolumeSource{},
				PersistentVolumeClaim: &paasv1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}
		}, "a volume takes exactly one of configMap, secret, emptyDir and persistentVolumeClaim"},
		{"a relative mountPath", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{}}}
			s.VolumeMounts = []paasv1.VolumeMount{{Name: "tmp", MountPath: "tmp"}}
		}, "mountPath must be an absolute path"},
		{"a ConfigMap item path with ..", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "config", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "app",
				Items: []paasv1.KeyToPath{{Key: "app.conf", Path: "../app.conf"}}}}}
		}, "path must be relative, without '..'"},
		{"a defaultMode above 0777", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "creds", Secret: &paasv1.SecretVolumeSource{SecretName: "creds", DefaultMode: ptr.To[int32](0o1000)}}}
		}, "spec.volumes[0].secret.defaultMode"},
		{"an emptyDir of a negative size", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("-1Gi"))}}}
		}, "sizeLimit must not be negative"},
		{"a toleration of Exists with a value", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Value: "shop"}}
		}, "a toleration with operator Exists takes no value"},
		{"a toleration without a key, of operator Equal", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Value: "shop"}}
		}, "every toleration needs a key"},
		{"tolerationSeconds for NoSchedule", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Key: "k", Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](60)}}
		}, "tolerationSeconds goes with effect NoExecute only"},
		{"a spread of skew 0", func(s *paasv1.DemoApplicationSpec) {
			s.TopologySpreadConstraints = []paasv1.TopologySpreadConstraint{{TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule}}
		}, "spec.topologySpreadConstraints[0].maxSkew"},
		{"minDomains with ScheduleAnyway", func(s *paasv1.DemoApplicationSpec) {
			s.TopologySpreadConstraints = []paasv1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
				WhenUnsatisfiable: corev1.ScheduleAnyway, MinDomains: ptr.To[int32](2)}}
		}, "minDomains goes with whenUnsatisfiable DoNotSchedule only"},
		{"an extended resource requested and not limited", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}}
		}, "an extended resource must be a whole number, limited, and requested as much as limited"},
		{"rollingUpdate with Recreate", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType,
				RollingUpdate: &paasv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1))}}
		}, "rollingUpdate goes with type RollingUpdate only"},
		{"maxUnavailable and maxSurge both 0", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromString("0%")), MaxSurge: ptr.To(intstr.FromInt32(0))}}
		}, "maxUnavailable and maxSurge cannot both be 0"},
		{"maxUnavailable of 120%", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromString("120%"))}}
		}, "maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%"},
		{"maxSurge of one pod, in words", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("one"))}}
		}, "maxSurge must be a number of pods (0 or more) or a percentage"},
		{"a node affinity term of In without values", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &paasv1.NodeSelector{
				NodeSelectorTerms: []paasv1.NodeSelectorTerm{{MatchExpressions: []paasv1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn}}}}}}}
		}, "operator In and NotIn need values"},
		{"a node affinity term of Gt a word", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.PreferredSchedulingTerm{{
				Weight: 10, Preference: paasv1.NodeSelectorTerm{MatchExpressions: []paasv1.NodeSelectorRequirement{
					{Key: "cores", Operator: corev1.NodeSelectorOpGt, Values: []paasv1.LabelValue{"many"}}}}}}}}
		}, "operator Gt and Lt take one value, a whole number"},
		// Found by TestEveryAcceptedSpecBuildsValidObjects: a node affinity's values are label values.
		{"a node affinity term of Lt -3", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &paasv1.NodeSelector{
				NodeSelectorTerms: []paasv1.NodeSelectorTerm{{MatchExpressions: []paasv1.NodeSelectorRequirement{
					{Key: "rank", Operator: corev1.NodeSelectorOpLt, Values: []paasv1.LabelValue{"-3"}}}}}}}}
		}, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]"},
		{"a preferred node affinity of weight 0", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.PreferredSchedulingTerm{{
				Preference: paasv1.NodeSelectorTerm{MatchExpressions: []paasv1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpExists}}}}}}}
		}, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"},
		{"an empty affinity", func(s *paasv1.DemoApplicationSpec) { s.Affinity = &paasv1.Affinity{} }, "spec.affinity"},
		{"a pod anti-affinity without a topologyKey", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{PodAntiAffinity: &paasv1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []paasv1.PodAffinityTerm{{}}}}
		}, "topologyKey must be a label key"},
		{"an ingress without a TCP port", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 53, Protocol: corev1.ProtocolUDP})
			s.Ingress = &paasv1.Ingress{}
		}, "ingress needs a TCP port in spec.ports to route to"},
		{"an ingress path to an unknown port", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Paths: []paasv1.IngressPath{{Path: "/", Port: ptr.To(intstr.FromString("admin"))}}}
		}, "every ingress path's port must name or number a TCP port of spec.ports"},
		{"an ingress host with capitals", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Hosts: []string{"Shop.example.com"}}
		}, "a host must be a lowercase DNS name"},
		{"an ingress host that is an IP address", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Hosts: []string{"10.0.0.1"}}
		}, "not an IP address"},
		{"an ingress path with /../", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Paths: []paasv1.IngressPath{{Path: "/a/../b"}}}
		}, "path must start with '/'"},
		{"an ingress path not absolute", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Paths: []paasv1.IngressPath{{Path: "api"}}}
		}, "path must start with '/'"},
		{"autoscaling with min above max", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
			s.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](5), MaxReplicas: 2, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		}, "minReplicas must not exceed maxReplicas"},
		{"autoscaling without a target", func(s *paasv1.DemoApplicationSpec) {
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3}
		}, "autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage"},
		{"autoscaling on CPU without a CPU request", func(s *paasv1.DemoApplicationSpec) {
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		}, "autoscaling on CPU needs resources.requests.cpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			app := builder.DemoApplication(ns, "invalid")
			tc.change(&app.Spec)
			err := k8sClient.Create(ctx, app)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring(tc.message))
		})
	}

	for _, name := range []string{strings.Repeat("a", 64), "app.v2", "2048-game"} {
		t.Run("name "+name, func(t *testing.T) {
			g := NewWithT(t)
			err := k8sClient.Create(ctx, builder.DemoApplication(ns, name))
			g.Expect(err).To(MatchError(ContainSubstring("metadata.name must be at most 63 characters, start with a letter")))
		})
	}

	// Found by the property test's valid half: the rule read podServices.enabled when absent.
	t.Run("podServices without enabled is accepted, and off", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "no-enabled")
		app.Spec.Ports = nil
		app.Spec.PodServices = &paasv1.PodServices{Type: corev1.ServiceTypeNodePort}
		g.Expect(k8sClient.Create(ctx, app, client.DryRunAll)).To(Succeed())
	})

	t.Run("the same port number over TCP and UDP is fine", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "dns")
		app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "dns-tcp", Port: 53}, {Name: "dns-udp", Port: 53, Protocol: corev1.ProtocolUDP}}
		g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	})
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
