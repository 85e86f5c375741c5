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

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestHTTPRoute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web")
	app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))}, {Name: "admin", Port: 9000}}
	app.Spec.HTTPRoute = &paasv1.HTTPRoute{
		ParentRefs: []paasv1.GatewayReference{{Name: "public", Namespace: "gateways", SectionName: "https"}, {Name: "internal"}},
		Hostnames:  []string{"web.example.com", "*.web.example.com"},
		Paths:      []paasv1.HTTPRoutePath{{Path: "/"}, {Path: "/admin", Type: "Exact", Port: ptr.To(intstr.FromString("admin"))}},
	}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	rule := func(path string, match gatewayv1.PathMatchType, port gatewayv1.PortNumber) gatewayv1.HTTPRouteRule {
		return gatewayv1.HTTPRouteRule{
			Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: ptr.To(match), Value: ptr.To(path)}}},
			BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{Weight: ptr.To[int32](1),
				BackendObjectReference: gatewayv1.BackendObjectReference{Group: ptr.To(gatewayv1.Group("")), Kind: ptr.To(gatewayv1.Kind("Service")),
					Name: "web", Port: ptr.To(port)}}}},
		}
	}
	t.Run("routes the hostnames' paths from the named Gateways to the app's Service", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			r := get(g, ns, "web", &gatewayv1.HTTPRoute{})
			g.Expect(metav1.IsControlledBy(r, app)).To(BeTrue())
			g.Expect(r.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
			g.Expect(r.Spec.ParentRefs).To(Equal([]gatewayv1.ParentReference{
				{Group: ptr.To(gatewayv1.Group(gatewayv1.GroupName)), Kind: ptr.To(gatewayv1.Kind("Gateway")),
					Namespace: ptr.To(gatewayv1.Namespace("gateways")), Name: "public", SectionName: ptr.To(gatewayv1.SectionName("https"))},
				{Group: ptr.To(gatewayv1.Group(gatewayv1.GroupName)), Kind: ptr.To(gatewayv1.Kind("Gateway")), Name: "internal"},
			}))
			g.Expect(r.Spec.Hostnames).To(Equal([]gatewayv1.Hostname{"web.example.com", "*.web.example.com"}))
			g.Expect(r.Spec.Rules).To(Equal([]gatewayv1.HTTPRouteRule{
				rule("/", gatewayv1.PathMatchPathPrefix, 80), rule("/admin", gatewayv1.PathMatchExact, 9000)}))
		}, waitFor, pollEvery).Should(Succeed())
		// Converged, with the CRD's defaults in the route, it writes nothing.
		writesNothing(g, "/apis/gateway.networking.k8s.io/v1/namespaces/"+ns+"/")
	})

	t.Run("the Gateways' reports reach the app's status", func(t *testing.T) {
		g := NewWithT(t)
		// No Gateway controller has reported: it may yet.
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "web", &paasv1.DemoApplication{})
			g.Expect(a).To(haveCondition(paasv1.ConditionReconciling, metav1.ConditionTrue, paasv1.ReasonHTTPRouteNotServed))
			g.Expect(condition(a, paasv1.ConditionReconciling).Message).To(ContainSubstring("Gateway gateways/public/https has not reported"))
		}, waitFor, pollEvery).Should(Succeed())

		// A Gateway controller refuses it, in its own words: Degraded at once.
		report := func(accepted metav1.ConditionStatus, acceptedReason, acceptedMessage string, resolved metav1.ConditionStatus, resolvedReason string) {
			r := get(g, ns, "web", &gatewayv1.HTTPRoute{})
			cond := func(t string, s metav1.ConditionStatus, reason, message string) metav1.Condition {
				return metav1.Condition{Type: t, Status: s, Reason: reason, Message: message, ObservedGeneration: r.Generation, LastTransitionTime: metav1.Now()}
			}
			r.Status.Parents = nil
			for _, ref := range r.Spec.ParentRefs {
				r.Status.Parents = append(r.Status.Parents, gatewayv1.RouteParentStatus{ParentRef: ref, ControllerName: "example.com/gateway",
					Conditions: []metav1.Condition{cond("Accepted", accepted, acceptedReason, acceptedMessage), cond("ResolvedRefs", resolved, resolvedReason, "")}})
			}
			g.Expect(k8sClient.Status().Update(ctx, r)).To(Succeed())
		}
		report(metav1.ConditionFalse, "NotAllowedByListeners", "no listener allows routes from namespace "+ns, metav1.ConditionTrue, "ResolvedRefs")
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "web", &paasv1.DemoApplication{})
			g.Expect(a).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonHTTPRouteNotAccepted))
			g.Expect(condition(a, paasv1.ConditionDegraded).Message).To(Equal(
				"Gateway gateways/public/https (example.com/gateway) says of HTTPRoute web: NotAllowedByListeners: no listener allows routes from namespace " + ns))
			g.Expect(a).To(haveCondition(paasv1.ConditionStalled, metav1.ConditionTrue, paasv1.ReasonHTTPRouteNotAccepted))
		}, waitFor, pollEvery).Should(Succeed())

		// Accepted, but its Service is not (yet) found: it may be the controller's lag.
		report(metav1.ConditionTrue, "Accepted", "", metav1.ConditionFalse, "BackendNotFound")
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "web", &paasv1.DemoApplication{})
			g.Expect(a).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
			g.Expect(a).To(haveCondition(paasv1.ConditionReconciling, metav1.ConditionTrue, paasv1.ReasonHTTPRouteRefsUnresolved))
		}, waitFor, pollEvery).Should(Succeed())

		report(metav1.ConditionTrue, "Accepted", "", metav1.ConditionTrue, "ResolvedRefs")
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "web", &paasv1.DemoApplication{})
			g.Expect(a).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
			g.Expect(condition(a, paasv1.ConditionReconciling).Reason).NotTo(HavePrefix("HTTPRoute"))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("drift is repaired", func(t *testing.T) {
		g := NewWithT(t)
		r := get(g, ns, "web", &gatewayv1.HTTPRoute{})
		suite.MergePatch(t, r, `{"spec":{"hostnames":["evil.example.com"]}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "web", &gatewayv1.HTTPRoute{}).Spec.Hostnames).To(Equal([]gatewayv1.Hostname{"web.example.com", "*.web.example.com"}))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("removing it from the spec deletes the HTTPRoute", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.HTTPRoute = nil })
		g.Eventually(gone(ns, "web", &gatewayv1.HTTPRoute{}), waitFor, pollEvery).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			g.Expect(eventNotes(g, ns, "web", demoapplication.EventDeleted)).To(ContainElement("Deleted HTTPRoute web"))
		}, waitFor, pollEvery).Should(Succeed())
	})
}

func TestHTTPRouteOrIngress(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	app := builder.DemoApplication(testenv.NewNamespace(t, k8sClient, "test-"), "web")
	app.Spec.Ingress = &paasv1.Ingress{}
	app.Spec.HTTPRoute = &paasv1.HTTPRoute{ParentRefs: []paasv1.GatewayReference{{Name: "public"}}}
	err := k8sClient.Create(context.Background(), app)
	g.Expect(err).To(MatchError(ContainSubstring("spec.ingress and spec.httpRoute cannot both be set")))
}

func TestHTTPRouteURL(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	app := builder.DemoApplication("shop", "web")
	g.Expect(demoapplication.HTTPRouteURL(app)).To(BeEmpty(), "no route")
	app.Spec.HTTPRoute = &paasv1.HTTPRoute{ParentRefs: []paasv1.GatewayReference{{Name: "public"}}, Hostnames: []string{"*.example.com"}}
	g.Expect(demoapplication.HTTPRouteURL(app)).To(BeEmpty(), "a wildcard names no host")
	app.Spec.HTTPRoute.Hostnames = append(app.Spec.HTTPRoute.Hostnames, "web.example.com")
	g.Expect(demoapplication.HTTPRouteURL(app)).To(Equal("http://web.example.com/"))
	app.Spec.HTTPRoute.Paths = []paasv1.HTTPRoutePath{{Path: "/shop"}}
	g.Expect(demoapplication.HTTPRouteURL(app)).To(Equal("http://web.example.com/shop"))
}
