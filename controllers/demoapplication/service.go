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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The Service that exposes the app's ports. The Ingress and the HTTPRoute, which name it,
// wait for it.

// serviceKind is the app's Service, in ownedKinds.
var serviceKind = owned{
	name:      "Service",
	object:    func() client.Object { return &corev1.Service{} },
	failed:    paasv1.ReasonServiceFailed,
	build:     fromApp(newService),
	observed:  func(s *scope) (bool, bool) { return s.service != nil, s.serviceKnown },
	reconcile: (*Reconciler).reconcileService,
	extract:   extractWith(corev1ac.ExtractService),
	watch:     changed,
}

// serviceOf returns the entry of ownedKinds of app's Service, which an Ingress and an
// HTTPRoute name.
func serviceOf(*paasv1.DemoApplication) *owned { return &serviceKind }

// newService returns the Service that exposes app's ports, or nil when app declares none
// (a Service must have a port). It is of the type spec.service gives, else a NodePort
// Service when any port asks for a nodePort.
func newService(app *paasv1.DemoApplication) *corev1ac.ServiceApplyConfiguration {
	if len(app.Spec.Ports) == 0 {
		return nil
	}
	serviceType := corev1.ServiceTypeClusterIP
	spec := corev1ac.ServiceSpec().WithSelector(selectorFor(app))
	for _, p := range app.Spec.Ports {
		port := servicePort(p)
		if p.NodePort != nil {
			serviceType = corev1.ServiceTypeNodePort
			port.WithNodePort(*p.NodePort)
		}
		spec.WithPorts(port)
	}
	settings := ptr.Deref(app.Spec.Service, paasv1.ServiceSettings{})
	service := corev1ac.Service(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec.WithType(cmp.Or(settings.Type, serviceType)))
	if len(settings.Annotations) > 0 {
		service.WithAnnotations(settings.Annotations)
	}
	return service
}

// servicePort returns p as a Service port without its nodePort.
func servicePort(p paasv1.DemoApplicationPort) *corev1ac.ServicePortApplyConfiguration {
	port := corev1ac.ServicePort().WithPort(p.Port).WithProtocol(protocolOf(p))
	if p.Name != "" {
		port.WithName(p.Name)
	}
	if p.TargetPort != nil {
		port.WithTargetPort(*p.TargetPort)
	}
	return port
}

// reconcileService applies the desired Service, or deletes ours when the app has no ports,
// and records the one it observed.
func (r *Reconciler) reconcileService(ctx context.Context, s *scope) {
	const step = paasv1.ReasonServiceFailed
	current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newService(s.app)
	if desired == nil {
		r.deleteStep(ctx, s, step, current)
		s.serviceKnown = true
		return
	}
	var done outcome
	err := r.replacePorts(ctx, s.app, desired)
	if err == nil {
		done, err = r.apply(ctx, s.app, current, desired)
		s.note(current, done)
	}
	f := s.fail(step, err)
	if done != absent {
		s.service = current
	}
	s.serviceKnown = known(done, f)
}

// replacePorts writes the Service's whole port list, with its type, when the app's Service
// has a port the app does not declare: applying cannot remove it when it is someone else's
// field (an edit by hand), nor a port keyed like a declared one (a protocol swapped) that
// names it differently. Ports are keyed by port and protocol, so anything less than the
// whole list (a strategic-merge delete keys them by number alone) can take the other half
// of a TCP/UDP pair with it. The write is guarded by the resourceVersion it was computed
// from, and keeps the node ports the cluster allocated (NodePort, LoadBalancer) to ports the
// spec keeps.
func (r *Reconciler) replacePorts(ctx context.Context, app *paasv1.DemoApplication, desired *corev1ac.ServiceApplyConfiguration) error {
	svc := &corev1.Service{}
	if err := r.Get(ctx, client.ObjectKeyFromObject(app), svc); err != nil || !metav1.IsControlledBy(svc, app) {
		return client.IgnoreNotFound(err)
	}
	type key struct {
		port     int32
		protocol corev1.Protocol
	}
	declared := map[key]bool{}
	for _, p := range desired.Spec.Ports {
		declared[key{*p.Port, *p.Protocol}] = true
	}
	live := map[key]int32{}
	undeclared := false
	for _, p := range svc.Spec.Ports {
		live[key{p.Port, p.Protocol}] = p.NodePort
		undeclared = undeclared || !declared[key{p.Port, p.Protocol}]
	}
	if !undeclared {
		return nil
	}

	patched := svc.DeepCopy()
	patched.Spec.Type = *desired.Spec.Type
	patched.Spec.Ports = make([]corev1.ServicePort, len(desired.Spec.Ports))
	for i, p := range desired.Spec.Ports {
		convert(p, &patched.Spec.Ports[i])
		if p.NodePort == nil && patched.Spec.Type != corev1.ServiceTypeClusterIP {
			patched.Spec.Ports[i].NodePort = live[key{*p.Port, *p.Protocol}]
		}
	}
	// A JSON merge patch replaces a list whole.
	patch := client.MergeFromWithOptions(svc, client.MergeFromWithOptimisticLock{})
	if err := r.Patch(ctx, patched, patch, client.FieldOwner(wellknown.FieldManager)); err != nil {
		return fmt.Errorf("replacing the ports of Service %s: %w", klog.KObj(svc), err)
	}
	return nil
}
