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
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/health"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

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
		}, waitFor, pollEvery).Should(Succeed())
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
		}, waitFor, pollEvery).Should(Succeed())

		uid := in.UID
		g.Expect(k8sClient.Delete(ctx, in)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &networkingv1.Ingress{}).UID).NotTo(Equal(uid))
		}, waitFor, pollEvery).Should(Succeed())
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
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("removing it from the spec deletes the Ingress", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Ingress = nil })
		g.Eventually(gone(ns, "web", &networkingv1.Ingress{}), waitFor, pollEvery).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			g.Expect(eventNotes(g, ns, "web", demoapplication.EventDeleted)).To(ContainElement("Deleted Ingress web"))
		}, waitFor, pollEvery).Should(Succeed())
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
		expectLeftAlone(g, taken, "Ingress", theirs, func(a *paasv1.DemoApplication) { a.Spec.Ingress = nil })
	})
}

// TestIngressCauses: an Ingress that names an IngressClass the cluster does not have stalls the
// app within seconds; creating the class, or a controller reporting an address, clears it.
func TestIngressCauses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	// IngressClasses are cluster-wide: one of this test's own name.
	class := ns + "-lb"
	app := builder.DemoApplication(ns, "shop", builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.Ingress = &paasv1.Ingress{ClassName: paasv1.ObjectName(class), Hosts: []string{"shop.example.test"}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)
	g.Eventually(func(g Gomega) { markDeploymentAvailable(g, ns, "shop") }, waitFor, pollEvery).Should(Succeed())

	stalled := func(g Gomega) {
		got := get(g, ns, "shop", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonIngressClassNotFound))
		g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(Equal(`Ingress shop names IngressClass "` + class +
			`", which the cluster does not have: no Ingress controller that goes by IngressClasses serves it`))
		k, argo := verdicts(g, got)
		g.Expect(k).To(Equal(kstatus.FailedStatus))
		g.Expect(argo).To(Equal(health.Degraded))
	}
	served := func(g Gomega) {
		got := get(g, ns, "shop", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
		g.Expect(got).To(haveCondition(paasv1.ConditionReady, metav1.ConditionTrue, paasv1.ReasonRolloutComplete))
		k, argo := verdicts(g, got)
		g.Expect(k).To(Equal(kstatus.CurrentStatus))
		g.Expect(argo).To(Equal(health.Healthy))
	}

	t.Run("no such IngressClass: Degraded, and a Warning Event", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(stalled, waitFor, pollEvery).Should(Succeed())
		g.Eventually(func(g Gomega) int { return eventCount(g, ns, "shop", paasv1.ReasonIngressClassNotFound) }, waitFor, pollEvery).Should(Equal(1))
	})

	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/lb"}}
	t.Run("the IngressClass created: the cause clears within seconds", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(k8sClient.Create(ctx, ic)).To(Succeed())
		start := time.Now()
		g.Eventually(served, waitFor, pollEvery).Should(Succeed())
		t.Logf("IngressClass created to app Ready: %s", time.Since(start).Round(10*time.Millisecond))
	})

	t.Run("the IngressClass deleted: Degraded again", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(k8sClient.Delete(ctx, ic)).To(Succeed())
		g.Eventually(stalled, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("an address reported: served whatever the class", func(t *testing.T) {
		g := NewWithT(t)
		in := get(g, ns, "shop", &networkingv1.Ingress{})
		in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.10"}}
		g.Expect(k8sClient.Status().Update(ctx, in)).To(Succeed())
		g.Eventually(served, waitFor, pollEvery).Should(Succeed())
	})
}
