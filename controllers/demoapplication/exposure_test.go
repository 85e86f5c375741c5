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
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// fieldOwners returns the managers whose fields of obj include path, in managedFields' keys
// (f:spec, f:replicas).
func fieldOwners(obj metav1.Object, path ...string) []string {
	var owners []string
	for _, entry := range obj.GetManagedFields() {
		var fields map[string]any
		if entry.FieldsV1 == nil || json.Unmarshal(entry.FieldsV1.GetRawBytes(), &fields) != nil {
			continue
		}
		found := true
		for _, key := range path {
			if fields, found = fields[key].(map[string]any); !found {
				break
			}
		}
		if found {
			owners = append(owners, entry.Manager)
		}
	}
	return owners
}

// gone reports whether the object of name is not found.
func gone(namespace, name string, obj client.Object) func() bool {
	return func() bool {
		return apierrors.IsNotFound(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, obj))
	}
}

func TestIngress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web")
	app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))}, {Name: "admin", Port: 9000}}
	app.Spec.Ingress = &paasv1.Ingress{
		ClassName:     "skipper",
		Hosts:         []string{"web.example.com", "*.web.example.com"},
		Paths:         []paasv1.IngressPath{{Path: "/"}, {Path: "/admin", PathType: networkingv1.PathTypeExact, Port: ptr.To(intstr.FromInt32(9000))}},
		TLSSecretName: "web-tls",
		Annotations:   map[string]string{"example.com/rate-limit": "10"},
	}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("routes every host's paths to the app's Service", func(t *testing.T) {
		g := NewWithT(t)
		root := networkingv1.HTTPIngressPath{Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix), Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Name: "http"}}}}
		admin := networkingv1.HTTPIngressPath{Path: "/admin", PathType: ptr.To(networkingv1.PathTypeExact), Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 9000}}}}
		g.Eventually(func(g Gomega) {
			in := get(g, ns, "web", &networkingv1.Ingress{})
			g.Expect(metav1.IsControlledBy(in, app)).To(BeTrue())
			g.Expect(in.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
			g.Expect(in.Annotations).To(HaveKeyWithValue("example.com/rate-limit", "10"))
			g.Expect(in.Spec.IngressClassName).To(Equal(ptr.To("skipper")))
			g.Expect(in.Spec.Rules).To(HaveLen(2))
			for i, host := range []string{"web.example.com", "*.web.example.com"} {
				g.Expect(in.Spec.Rules[i].Host).To(Equal(host))
				g.Expect(in.Spec.Rules[i].HTTP.Paths).To(Equal([]networkingv1.HTTPIngressPath{root, admin}))
			}
			g.Expect(in.Spec.TLS).To(Equal([]networkingv1.IngressTLS{{Hosts: []string{"web.example.com", "*.web.example.com"}, SecretName: "web-tls"}}))
		}).Should(Succeed())
		// Converged, with the API server's defaults in the Ingress, it writes nothing.
		writesNothing(g, "/apis/networking.k8s.io/v1/namespaces/"+ns+"/")
	})

	t.Run("drift is repaired", func(t *testing.T) {
		g := NewWithT(t)
		in := get(g, ns, "web", &networkingv1.Ingress{})
		suite.MergePatch(t, in, `{"metadata":{"annotations":{"example.com/rate-limit":"1000"}},"spec":{"ingressClassName":"other"}}`)
		g.Eventually(func(g Gomega) {
			in := get(g, ns, "web", &networkingv1.Ingress{})
			g.Expect(in.Annotations).To(HaveKeyWithValue("example.com/rate-limit", "10"))
			g.Expect(in.Spec.IngressClassName).To(Equal(ptr.To("skipper")))
		}).Should(Succeed())

		uid := in.UID
		g.Expect(k8sClient.Delete(ctx, in)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &networkingv1.Ingress{}).UID).NotTo(Equal(uid))
		}).Should(Succeed())
	})

	t.Run("one host-less rule to the first port when the spec says only ingress", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Ingress = &paasv1.Ingress{} })
		g.Eventually(func(g Gomega) {
			in := get(g, ns, "web", &networkingv1.Ingress{})
			g.Expect(in.Annotations).NotTo(HaveKey("example.com/rate-limit"))
			g.Expect(in.Spec.IngressClassName).To(BeNil())
			g.Expect(in.Spec.TLS).To(BeEmpty())
			g.Expect(in.Spec.Rules).To(HaveLen(1))
			g.Expect(in.Spec.Rules[0].Host).To(BeEmpty())
			g.Expect(in.Spec.Rules[0].HTTP.Paths).To(ConsistOf(HaveField("Backend.Service.Port.Name", "http")))
		}).Should(Succeed())
	})

	t.Run("removing it from the spec deletes the Ingress", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Ingress = nil })
		g.Eventually(gone(ns, "web", &networkingv1.Ingress{})).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			g.Expect(eventNotes(g, ns, "web", demoapplication.EventDeleted)).To(ContainElement("Deleted Ingress web"))
		}).Should(Succeed())
	})

	t.Run("an Ingress of the name someone else holds is left alone", func(t *testing.T) {
		g := NewWithT(t)
		theirs := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"},
			Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "theirs", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
		}
		g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
		taken := builder.DemoApplication(ns, "taken")
		taken.Spec.Ingress = &paasv1.Ingress{}
		g.Expect(k8sClient.Create(ctx, taken)).To(Succeed())
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "taken", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
			g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(ContainSubstring(`Ingress "taken" already exists and is not the operator's`))
		}).Should(Succeed())
		// Nor deleted when the app stops asking for it.
		update(g, taken, func(a *paasv1.DemoApplication) { a.Spec.Ingress = nil })
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "taken", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
		}).Should(Succeed())
		g.Expect(get(g, ns, "taken", &networkingv1.Ingress{}).ResourceVersion).To(Equal(theirs.ResourceVersion))
	})
}

func TestAutoscaling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "api")
	app.Spec.Replica = ptr.To[int32](3)
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(*get(g, ns, "api", &appsv1.Deployment{}).Spec.Replicas).To(Equal(int32(3)))
	}).Should(Succeed())

	t.Run("turning it on makes the autoscaler and keeps the pods running", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 6,
				TargetCPUUtilizationPercentage: ptr.To[int32](70), TargetMemoryUtilizationPercentage: ptr.To[int32](80)}
		})
		g.Eventually(func(g Gomega) {
			hpa := get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
			g.Expect(metav1.IsControlledBy(hpa, app)).To(BeTrue())
			g.Expect(hpa.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "api"}))
			g.Expect(hpa.Spec.MinReplicas).To(Equal(ptr.To[int32](2)))
			g.Expect(hpa.Spec.MaxReplicas).To(Equal(int32(6)))
			g.Expect(hpa.Spec.Metrics).To(HaveExactElements(
				HaveField("Resource.Target.AverageUtilization", ptr.To[int32](70)),
				HaveField("Resource.Target.AverageUtilization", ptr.To[int32](80))))
			g.Expect(hpa.Spec.Metrics[0].Resource.Name).To(Equal(corev1.ResourceCPU))
			// The operator no longer owns the replicas, and letting them go kept them at 3.
			d := get(g, ns, "api", &appsv1.Deployment{})
			g.Expect(fieldOwners(d, "f:spec", "f:replicas")).To(ConsistOf(demoapplication.ReplicasHandoverManager))
			g.Expect(*d.Spec.Replicas).To(Equal(int32(3)))
		}).Should(Succeed())
		g.Expect(get(g, ns, "api", &appsv1.Deployment{}).Generation).To(Equal(int64(1)), "the handover changed the replicas, for a moment")
		// Converged, the autoscaler and the Deployment are not written again.
		writesNothing(g, "/apis/autoscaling/v2/namespaces/"+ns+"/", "/apis/apps/v1/namespaces/"+ns+"/")
	})

	t.Run("the operator leaves what the autoscaler scales", func(t *testing.T) {
		g := NewWithT(t)
		d := get(g, ns, "api", &appsv1.Deployment{})
		scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 5}}
		g.Expect(k8sClient.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(scale))).To(Succeed())
		// A spec change reconciles the app: the Deployment keeps the autoscaler's count.
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](1) })
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation))
		}).Should(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(*get(g, ns, "api", &appsv1.Deployment{}).Spec.Replicas).To(Equal(int32(5)))
		}, 2*time.Second).Should(Succeed())
	})

	t.Run("drift in the autoscaler is repaired", func(t *testing.T) {
		g := NewWithT(t)
		hpa := get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
		suite.MergePatch(t, hpa, `{"spec":{"maxReplicas":100}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{}).Spec.MaxReplicas).To(Equal(int32(6)))
		}).Should(Succeed())
	})

	t.Run("turning it off deletes the autoscaler and applies replica again", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Autoscaling, a.Spec.Replica = nil, ptr.To[int32](4) })
		g.Eventually(gone(ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "api", &appsv1.Deployment{})
			g.Expect(*d.Spec.Replicas).To(Equal(int32(4)))
			g.Expect(fieldOwners(d, "f:spec", "f:replicas")).To(ContainElement(wellknown.FieldManager))
		}).Should(Succeed())
	})

	t.Run("a new app starts at the autoscaler's minimum", func(t *testing.T) {
		g := NewWithT(t)
		scaled := builder.DemoApplication(ns, "scaled")
		scaled.Spec.Resources = app.Spec.Resources
		scaled.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](3), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](60)}
		g.Expect(k8sClient.Create(ctx, scaled)).To(Succeed())
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "scaled", &appsv1.Deployment{})
			g.Expect(fieldOwners(d, "f:spec", "f:replicas")).To(ConsistOf(demoapplication.ReplicasHandoverManager))
			g.Expect(*d.Spec.Replicas).To(Equal(int32(3)))
			g.Expect(d.Generation).To(Equal(int64(1)), "created at another count")
		}).Should(Succeed())
	})

	t.Run("an autoscaler of the name someone else holds is left alone", func(t *testing.T) {
		g := NewWithT(t)
		theirs := &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 2,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "theirs"}},
		}
		g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
		held := builder.DemoApplication(ns, "held")
		held.Spec.Resources = app.Spec.Resources
		held.Spec.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
		g.Expect(k8sClient.Create(ctx, held)).To(Succeed())
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "held", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
		}).Should(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(get(g, ns, "held", &autoscalingv2.HorizontalPodAutoscaler{}).ResourceVersion).To(Equal(theirs.ResourceVersion))
		}, 2*time.Second).Should(Succeed())
	})
}

func TestDeploymentStrategy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "db")
	app.Spec.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{
		MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	strategy := func(g Gomega) appsv1.DeploymentStrategy { return get(g, ns, "db", &appsv1.Deployment{}).Spec.Strategy }
	quarter := ptr.To(intstr.FromString("25%"))

	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g)).To(Equal(appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}))
	}).Should(Succeed())

	// Each switch goes through, whichever way: the API server's defaults never block it.
	update(g, app, func(a *paasv1.DemoApplication) {
		a.Spec.Strategy = &paasv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	})
	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g)).To(Equal(appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}))
		a := get(g, ns, "db", &paasv1.DemoApplication{})
		g.Expect(a).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
		g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation))
	}).Should(Succeed())

	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Strategy = nil })
	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g)).To(Equal(appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: quarter, MaxUnavailable: quarter}}))
	}).Should(Succeed())

	// Someone else's switch is put back too.
	d := get(g, ns, "db", &appsv1.Deployment{})
	suite.MergePatch(t, d, `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}`)
	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g).Type).To(Equal(appsv1.RollingUpdateDeploymentStrategyType))
	}).Should(Succeed())

	// Converged, it writes nothing.
	writesNothing(g, "/apis/apps/v1/namespaces/"+ns+"/")
}

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
	}).Should(Succeed())

	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Affinity = nil })
	g.Eventually(func(g Gomega) {
		g.Expect(get(g, ns, "spread", &appsv1.Deployment{}).Spec.Template.Spec.Affinity).To(BeNil())
	}).Should(Succeed())
}
