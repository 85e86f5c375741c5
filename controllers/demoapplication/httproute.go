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

package demoapplication

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1ac "sigs.k8s.io/gateway-api/applyconfiguration/apis/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The HTTPRoute of an app that asks for one: a Gateway API route of the app's name to its
// Service, the alternative to its Ingress.

// httpRouteKind is the app's HTTPRoute, in ownedKinds: on a cluster that served the Gateway
// API's HTTPRoutes as the operator started, and otherwise a cause for an app that asks for one.
var httpRouteKind = owned{
	name:   "HTTPRoute",
	object: func() client.Object { return &gatewayv1.HTTPRoute{} },
	failed: paasv1.ReasonHTTPRouteFailed,
	build:  fromApp(newHTTPRoute),
	parent: serviceOf,
	observe: func(_ *Reconciler, _ context.Context, s *scope, obj client.Object) {
		if c := httpRouteCause(s.app, obj.(*gatewayv1.HTTPRoute)); c != nil {
			s.causes = append(s.causes, c)
		}
	},
	extract: extractWith(gatewayv1ac.ExtractHTTPRoute),
	// A route's status is its Gateways' report on it, which the app's status shows.
	watch: changed,
	unserved: &cause{reason: paasv1.ReasonGatewayAPIMissing, stalls: true,
		message: "spec.httpRoute asks for an HTTPRoute, and the cluster had no Gateway API CRD httproutes.gateway.networking.k8s.io " +
			"(version v1) when the operator started: install the Gateway API's CRDs, then restart the operator"},
}

// newHTTPRoute returns the HTTPRoute that routes app's hostnames and paths, as the Gateways
// it names receive them, to its Service, or nil when app asks for none. Each path is a rule
// of its own, to its own port. Every field the CRD would default is set, so that what the
// operator owns reads back as it applied it.
func newHTTPRoute(app *paasv1.DemoApplication) *gatewayv1ac.HTTPRouteApplyConfiguration {
	in := app.Spec.HTTPRoute
	if in == nil {
		return nil
	}
	spec := gatewayv1ac.HTTPRouteSpec()
	for _, ref := range in.ParentRefs {
		parent := gatewayv1ac.ParentReference().
			WithGroup(gatewayv1.GroupName).WithKind("Gateway").WithName(gatewayv1.ObjectName(ref.Name))
		if ref.Namespace != "" {
			parent.WithNamespace(gatewayv1.Namespace(ref.Namespace))
		}
		if ref.SectionName != "" {
			parent.WithSectionName(gatewayv1.SectionName(ref.SectionName))
		}
		spec.WithParentRefs(parent)
	}
	for _, h := range in.Hostnames {
		spec.WithHostnames(gatewayv1.Hostname(h))
	}
	paths := in.Paths
	if len(paths) == 0 {
		paths = []paasv1.HTTPRoutePath{{Path: "/"}}
	}
	for _, p := range paths {
		match := gatewayv1ac.HTTPPathMatch().
			WithType(gatewayv1.PathMatchType(cmp.Or(p.Type, string(gatewayv1.PathMatchPathPrefix)))).
			WithValue(p.Path)
		spec.WithRules(gatewayv1ac.HTTPRouteRule().
			WithMatches(gatewayv1ac.HTTPRouteMatch().WithPath(match)).
			WithBackendRefs(gatewayv1ac.HTTPBackendRef().
				WithGroup("").WithKind("Service").WithName(gatewayv1.ObjectName(app.Name)).
				WithPort(servicePortNumber(app.Spec.Ports, p.Port)).WithWeight(1)))
	}
	return gatewayv1ac.HTTPRoute(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// servicePortNumber returns the number of the app's Service port that port (a name or
// number of ports) names, or of its first TCP port when port is nil: a route's backend
// names a Service port by number alone.
func servicePortNumber(ports []paasv1.DemoApplicationPort, port *intstr.IntOrString) int32 {
	for _, p := range ports {
		switch {
		case protocolOf(p) != corev1.ProtocolTCP:
		case port == nil,
			port.Type == intstr.String && p.Name == port.StrVal,
			port.Type == intstr.Int && p.Port == port.IntVal:
			return p.Port
		}
	}
	// The API refuses a route without a TCP port, or to a port it does not have.
	return 0
}

// httpRouteURL returns the URL the app's HTTPRoute serves it at: its first hostname that is
// not a wildcard, with its first path. Empty when the app asks for no route or names no
// such hostname. Plain HTTP: whether a Gateway's listener terminates TLS is the Gateway's.
func httpRouteURL(app *paasv1.DemoApplication) string {
	in := app.Spec.HTTPRoute
	if in == nil {
		return ""
	}
	path := "/"
	if len(in.Paths) > 0 {
		path = in.Paths[0].Path
	}
	for _, h := range in.Hostnames {
		if !strings.HasPrefix(h, "*.") {
			return "http://" + h + path
		}
	}
	return ""
}

// httpRouteCause returns why route, app's, does not serve it, in the Gateways' words: a
// Gateway it names that has not reported on it, refused it, or cannot resolve its backend.
// Nil when every Gateway it names accepted it with its backend resolved.
func httpRouteCause(app *paasv1.DemoApplication, route *gatewayv1.HTTPRoute) *cause {
	for _, ref := range route.Spec.ParentRefs {
		gateway := gatewayName(app, ref)
		var parents []gatewayv1.RouteParentStatus
		for _, p := range route.Status.Parents {
			if sameParent(app, p.ParentRef, ref) {
				parents = append(parents, p)
			}
		}
		if len(parents) == 0 {
			return &cause{reason: paasv1.ReasonHTTPRouteNotServed,
				message: fmt.Sprintf("Gateway %s has not reported on HTTPRoute %s: no Gateway controller serves it, or none yet", gateway, route.Name)}
		}
		for _, p := range parents {
			if c := parentCause(route, gateway, p); c != nil {
				return c
			}
		}
	}
	return nil
}

// parentCause returns why the Gateway named gateway, whose controller reported p, does not
// serve route: a condition for an older generation of the route is a report yet to come.
func parentCause(route *gatewayv1.HTTPRoute, gateway string, p gatewayv1.RouteParentStatus) *cause {
	accepted := meta.FindStatusCondition(p.Conditions, string(gatewayv1.RouteConditionAccepted))
	resolved := meta.FindStatusCondition(p.Conditions, string(gatewayv1.RouteConditionResolvedRefs))
	stale := func(c *metav1.Condition) bool { return c == nil || c.ObservedGeneration < route.Generation }
	says := func(c *metav1.Condition) string {
		return fmt.Sprintf("Gateway %s (%s) says of HTTPRoute %s: %s: %s", gateway, p.ControllerName, route.Name, c.Reason, c.Message)
	}
	switch {
	case stale(accepted):
		return &cause{reason: paasv1.ReasonHTTPRouteNotServed,
			message: fmt.Sprintf("Gateway %s (%s) has not yet reported on the current HTTPRoute %s", gateway, p.ControllerName, route.Name)}
	case accepted.Status != metav1.ConditionTrue:
		// Pending: the controller has yet to decide. Any other reason is its decision, which
		// only a change to the route or the Gateway undoes.
		return &cause{reason: paasv1.ReasonHTTPRouteNotAccepted, message: says(accepted),
			stalls: accepted.Reason != string(gatewayv1.RouteReasonPending)}
	case !stale(resolved) && resolved.Status != metav1.ConditionTrue:
		return &cause{reason: paasv1.ReasonHTTPRouteRefsUnresolved, message: says(resolved),
			stalls: resolved.Reason != string(gatewayv1.RouteReasonBackendNotFound)}
	}
	return nil
}

// gatewayName names the Gateway ref refers to, as namespace/name[/section].
func gatewayName(app *paasv1.DemoApplication, ref gatewayv1.ParentReference) string {
	name := string(ptr.Deref(ref.Namespace, gatewayv1.Namespace(app.Namespace))) + "/" + string(ref.Name)
	if ref.SectionName != nil {
		name += "/" + string(*ref.SectionName)
	}
	return name
}

// sameParent reports whether the parent references a and b, of app's route, name the same
// Gateway listener.
func sameParent(app *paasv1.DemoApplication, a, b gatewayv1.ParentReference) bool {
	ns := gatewayv1.Namespace(app.Namespace)
	return a.Name == b.Name && ptr.Deref(a.Namespace, ns) == ptr.Deref(b.Namespace, ns) &&
		ptr.Deref(a.SectionName, "") == ptr.Deref(b.SectionName, "") &&
		ptr.Deref(a.Group, gatewayv1.GroupName) == ptr.Deref(b.Group, gatewayv1.GroupName) &&
		ptr.Deref(a.Kind, "Gateway") == ptr.Deref(b.Kind, "Gateway")
}

// GatewayAPIServed reports whether the cluster serves the Gateway API's HTTPRoutes, v1, as
// mapper finds them: the operator runs on clusters without them, where it neither watches
// nor writes routes.
func GatewayAPIServed(mapper meta.RESTMapper) (bool, error) {
	gk := schema.GroupKind{Group: gatewayv1.GroupName, Kind: "HTTPRoute"}
	if _, err := mapper.RESTMapping(gk, gatewayv1.GroupVersion.Version); meta.IsNoMatchError(err) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("asking the API server whether it serves %s %s: %w", gk, gatewayv1.GroupVersion.Version, err)
	}
	return true, nil
}
