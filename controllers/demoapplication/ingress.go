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
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The Ingress of an app that asks for one: its hosts and paths to the app's Service, which it
// waits for.

// ingressKind is the app's Ingress, in ownedKinds.
var ingressKind = owned{
	name:   "Ingress",
	object: func() client.Object { return &networkingv1.Ingress{} },
	failed: paasv1.ReasonIngressFailed,
	build:  fromApp(newIngress),
	parent: serviceOf,
	observe: func(r *Reconciler, ctx context.Context, s *scope, obj client.Object) {
		r.observeIngress(ctx, s, obj.(*networkingv1.Ingress))
	},
	extract: extractWith(networkingv1ac.ExtractIngress),
	watch:   changed,
	setup:   (*Reconciler).watchIngressClasses,
}

// watchIngressClasses indexes the Ingresses by the IngressClass they name, and reconciles the
// apps whose Ingress names one when it comes or goes: whether it exists, not what it says,
// decides whether it serves. IngressClasses are read as metadata.
func (r *Reconciler) watchIngressClasses(mgr ctrl.Manager, b *builder.Builder) (*builder.Builder, error) {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &networkingv1.Ingress{}, ingressClassIndex, ingressClassOf); err != nil {
		return nil, fmt.Errorf("indexing Ingresses by IngressClass: %w", err)
	}
	return b.Watches(&networkingv1.IngressClass{}, handler.EnqueueRequestsFromMapFunc(r.ingressClassApps),
		builder.OnlyMetadata, builder.WithPredicates(predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }})), nil
}

// newIngress returns the Ingress that routes app's hosts and paths to its Service, or nil
// when app asks for none. Every host gets the same paths; none, and the rule is for every
// host.
func newIngress(app *paasv1.DemoApplication) *networkingv1ac.IngressApplyConfiguration {
	in := app.Spec.Ingress
	if in == nil {
		return nil
	}
	paths := in.Paths
	if len(paths) == 0 {
		paths = []paasv1.IngressPath{{Path: "/"}}
	}
	rule := func() *networkingv1ac.IngressRuleApplyConfiguration {
		http := networkingv1ac.HTTPIngressRuleValue()
		for _, p := range paths {
			http.WithPaths(networkingv1ac.HTTPIngressPath().
				WithPath(p.Path).
				WithPathType(cmp.Or(p.PathType, networkingv1.PathTypePrefix)).
				WithBackend(networkingv1ac.IngressBackend().WithService(
					networkingv1ac.IngressServiceBackend().WithName(app.Name).WithPort(backendPort(app.Spec.Ports, p.Port)))))
		}
		return networkingv1ac.IngressRule().WithHTTP(http)
	}
	spec := networkingv1ac.IngressSpec()
	if in.ClassName != "" {
		spec.WithIngressClassName(string(in.ClassName))
	}
	if len(in.Hosts) == 0 {
		spec.WithRules(rule())
	}
	for _, host := range in.Hosts {
		spec.WithRules(rule().WithHost(host))
	}
	if in.TLSSecretName != "" {
		spec.WithTLS(networkingv1ac.IngressTLS().WithHosts(in.Hosts...).WithSecretName(string(in.TLSSecretName)))
	}
	ingress := networkingv1ac.Ingress(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
	if len(in.Annotations) > 0 {
		ingress.WithAnnotations(in.Annotations)
	}
	return ingress
}

// backendPort returns the port of the app's Service that port (a name or number of ports)
// names, or its first TCP port when port is nil: by name when it has one.
func backendPort(ports []paasv1.DemoApplicationPort, port *intstr.IntOrString) *networkingv1ac.ServiceBackendPortApplyConfiguration {
	switch {
	case port != nil && port.Type == intstr.String:
		return networkingv1ac.ServiceBackendPort().WithName(port.StrVal)
	case port != nil:
		return networkingv1ac.ServiceBackendPort().WithNumber(port.IntVal)
	}
	for _, p := range ports {
		if protocolOf(p) != corev1.ProtocolTCP {
			continue
		}
		if p.Name != "" {
			return networkingv1ac.ServiceBackendPort().WithName(p.Name)
		}
		return networkingv1ac.ServiceBackendPort().WithNumber(p.Port)
	}
	// The API refuses an ingress without a TCP port.
	return nil
}

// EventIngressNotServed: the app's Ingress has had no address for the grace period. An Event,
// not a condition: some Ingress controllers (Skipper) serve an Ingress and never report an
// address, so a missing one does not say the app is not served.
const EventIngressNotServed = paasv1.ReasonIngressNotServed

// observeIngress records why in, the app's Ingress, is not served, if it says so: it names an
// IngressClass the cluster does not have. An address, whoever reported it, says it is served.
// One still missing after the grace period is a Warning Event.
func (r *Reconciler) observeIngress(ctx context.Context, s *scope, in *networkingv1.Ingress) {
	if len(in.Status.LoadBalancer.Ingress) > 0 {
		return
	}
	if class := ptr.Deref(in.Spec.IngressClassName, ""); class != "" {
		ic := &metav1.PartialObjectMetadata{}
		ic.SetGroupVersionKind(networkingv1.SchemeGroupVersion.WithKind("IngressClass"))
		err := r.Get(ctx, client.ObjectKey{Name: class}, ic)
		if apierrors.IsNotFound(err) {
			s.causes = append(s.causes, &cause{reason: paasv1.ReasonIngressClassNotFound, stalls: true,
				message: fmt.Sprintf("Ingress %s names IngressClass %q, which the cluster does not have: no Ingress controller that goes by IngressClasses serves it",
					in.Name, class)})
			return
		}
		if err != nil {
			s.fail(paasv1.ReasonIngressFailed, fmt.Errorf("getting IngressClass %s: %w", class, err))
			return
		}
	}
	if left := time.Until(in.CreationTimestamp.Add(r.gracePeriod())); left > 0 {
		s.recheck(left)
		return
	}
	// Every pass from then on tells it again: the events library counts a repeat on the same
	// Event, its note aside, rather than making another.
	r.Recorder.Eventf(regarding(s.app), r.related(in), corev1.EventTypeWarning, EventIngressNotServed, "Reconcile",
		"Ingress %s has no address %s after its creation: no Ingress controller reported serving it (some, such as Skipper, never report one)",
		in.Name, r.gracePeriod())
}

// ingressClassIndex indexes the cached Ingresses by the IngressClass they name.
const ingressClassIndex = "ingressClass"

func ingressClassOf(obj client.Object) []string {
	if class := ptr.Deref(obj.(*networkingv1.Ingress).Spec.IngressClassName, ""); class != "" {
		return []string{class}
	}
	return nil
}

// ingressClassApps maps an IngressClass, created or deleted, to the apps whose Ingress names
// it: whether it exists is whether their Ingress can be served.
func (r *Reconciler) ingressClassApps(ctx context.Context, obj client.Object) []reconcile.Request {
	ingresses := &networkingv1.IngressList{}
	if err := r.List(ctx, ingresses, client.MatchingFields{ingressClassIndex: obj.GetName()}); err != nil {
		// The cache fails a list only when the index is missing, which SetupWithManager adds.
		return nil
	}
	var requests []reconcile.Request
	for i := range ingresses.Items {
		in := &ingresses.Items[i]
		if ref := metav1.GetControllerOfNoCopy(in); ref != nil && ref.Kind == "DemoApplication" && strings.HasPrefix(ref.APIVersion, paasv1.GroupVersion.Group+"/") {
			requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: in.Namespace, Name: ref.Name}})
		}
	}
	return requests
}
