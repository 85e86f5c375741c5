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
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestNetworkPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web")
	app.Spec.Ports = []paasv1.DemoApplicationPort{
		{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))}, {Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("off by default: no policy", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "web", &paasv1.DemoApplication{})
			g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation))
		}, waitFor, pollEvery).Should(Succeed())
		g.Expect(gone(ns, "web", &networkingv1.NetworkPolicy{})()).To(BeTrue())
	})

	t.Run("lets the named peers in to the app's container ports, and none else", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.NetworkPolicy = &paasv1.NetworkPolicy{Enabled: true, SameApp: true, Namespaces: []string{"skipper", "monitoring"},
				From: []paasv1.NetworkPolicyPeer{{
					NamespaceSelector: &paasv1.LabelSelector{MatchLabels: map[string]paasv1.LabelValue{"team": "web"}},
					PodSelector: &paasv1.LabelSelector{MatchExpressions: []paasv1.LabelSelectorRequirement{
						{Key: "role", Operator: metav1.LabelSelectorOpExists}}},
				}}}
		})
		selector := metav1.LabelSelector{MatchLabels: map[string]string{wellknown.LabelName: "web", wellknown.LabelApplication: "web"}}
		g.Eventually(func(g Gomega) {
			p := get(g, ns, "web", &networkingv1.NetworkPolicy{})
			g.Expect(metav1.IsControlledBy(p, app)).To(BeTrue())
			g.Expect(p.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
			g.Expect(p.Spec.PodSelector).To(Equal(selector))
			g.Expect(p.Spec.PolicyTypes).To(Equal([]networkingv1.PolicyType{networkingv1.PolicyTypeIngress}))
			g.Expect(p.Spec.Egress).To(BeEmpty())
			g.Expect(p.Spec.Ingress).To(Equal([]networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{
					{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(8080))},
					{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(53))},
				},
				From: []networkingv1.NetworkPolicyPeer{
					{PodSelector: &selector},
					{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: []string{"skipper", "monitoring"}}}}},
					{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}},
						PodSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
							{Key: "role", Operator: metav1.LabelSelectorOpExists}}}},
				},
			}}))
		}, waitFor, pollEvery).Should(Succeed())
		writesNothing(g, "/apis/networking.k8s.io/v1/namespaces/"+ns+"/")
	})

	t.Run("drift is repaired", func(t *testing.T) {
		g := NewWithT(t)
		p := get(g, ns, "web", &networkingv1.NetworkPolicy{})
		suite.MergePatch(t, p, `{"spec":{"ingress":[{}]}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &networkingv1.NetworkPolicy{}).Spec.Ingress[0].From).To(HaveLen(3))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("no peer: nothing may connect", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.NetworkPolicy = &paasv1.NetworkPolicy{Enabled: true} })
		g.Eventually(func(g Gomega) {
			p := get(g, ns, "web", &networkingv1.NetworkPolicy{})
			g.Expect(p.Spec.Ingress).To(BeEmpty())
			g.Expect(p.Spec.PolicyTypes).To(Equal([]networkingv1.PolicyType{networkingv1.PolicyTypeIngress}))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("turning it off deletes the policy", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.NetworkPolicy.Enabled = false })
		g.Eventually(gone(ns, "web", &networkingv1.NetworkPolicy{}), waitFor, pollEvery).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			g.Expect(eventNotes(g, ns, "web", demoapplication.EventDeleted)).To(ContainElement("Deleted NetworkPolicy web"))
		}, waitFor, pollEvery).Should(Succeed())
	})
}

func TestNetworkPolicyOfAHeldName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	theirs := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
	app := builder.DemoApplication(ns, "web")
	app.Spec.NetworkPolicy = &paasv1.NetworkPolicy{Enabled: true, SameApp: true}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	expectLeftAlone(g, app, "NetworkPolicy", theirs, func(a *paasv1.DemoApplication) { a.Spec.NetworkPolicy = nil })
}
