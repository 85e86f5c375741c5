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
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// This file reads what keeps the app's autoscaler and Ingress from doing their part, as their
// controllers report it on them: the serving causes beside the pods'.

// DefaultGracePeriod is how long the autoscaler's failing condition, or an Ingress without an
// address, may pass by itself: a new autoscaler has no metrics for about a minute, and a load
// balancer takes a while to come up.
const DefaultGracePeriod = 2 * time.Minute

// servingCauses are the reasons of the autoscaler's and the Ingress's causes that stall: a
// Warning Event tells when Degraded starts saying one, as for the pods'.
var servingCauses = []string{paasv1.ReasonAutoscalerUnableToScale, paasv1.ReasonAutoscalingInactive, paasv1.ReasonIngressClassNotFound}

// EventIngressNotServed: the app's Ingress has had no address for the grace period. An Event,
// not a condition: some Ingress controllers (Skipper) serve an Ingress and never report an
// address, so a missing one does not say the app is not served.
const EventIngressNotServed = paasv1.ReasonIngressNotServed

func (r *Reconciler) gracePeriod() time.Duration {
	if r.GracePeriod > 0 {
		return r.GracePeriod
	}
	return DefaultGracePeriod
}

// observeAutoscaler records why hpa, the app's, cannot scale it, if it cannot.
func (r *Reconciler) observeAutoscaler(s *scope, hpa *autoscalingv2.HorizontalPodAutoscaler) {
	c, recheck := autoscalerCause(hpa, time.Now(), r.gracePeriod())
	if c != nil {
		s.causes = append(s.causes, c)
	}
	s.recheck(recheck)
}

// autoscalerCause returns why hpa cannot scale, in its own words: it cannot read or write the
// Deployment's scale (AbleToScale False) or cannot compute one (ScalingActive False: no
// metrics, no resource request). The cause stalls once its condition has been False for
// grace; until then, recheck says when it will.
func autoscalerCause(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time, grace time.Duration) (c *cause, recheck time.Duration) {
	for _, check := range []struct {
		condition autoscalingv2.HorizontalPodAutoscalerConditionType
		reason    string
	}{
		{autoscalingv2.AbleToScale, paasv1.ReasonAutoscalerUnableToScale},
		{autoscalingv2.ScalingActive, paasv1.ReasonAutoscalingInactive},
	} {
		for _, cond := range hpa.Status.Conditions {
			if cond.Type != check.condition || cond.Status != corev1.ConditionFalse {
				continue
			}
			c = &cause{reason: check.reason, message: fmt.Sprintf("HorizontalPodAutoscaler %s: %s", hpa.Name, cond.Message)}
			left := cond.LastTransitionTime.Add(grace).Sub(now)
			if c.stalls = left <= 0; !c.stalls {
				recheck = left
			}
			return c, recheck
		}
	}
	return nil, 0
}

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

// autoscalerConditionsChanged lets through the autoscaler updates that change one of its
// conditions' type, status or reason: its metrics and current replicas change at every sync,
// and would reconcile the app each time.
func autoscalerConditionsChanged() predicate.Funcs {
	type key struct {
		t      autoscalingv2.HorizontalPodAutoscalerConditionType
		status corev1.ConditionStatus
		reason string
	}
	keys := func(obj client.Object) []key {
		hpa, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
		if !ok {
			return nil
		}
		out := make([]key, 0, len(hpa.Status.Conditions))
		for _, c := range hpa.Status.Conditions {
			out = append(out, key{c.Type, c.Status, c.Reason})
		}
		return out
	}
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(e event.UpdateEvent) bool { return !slices.Equal(keys(e.ObjectOld), keys(e.ObjectNew)) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
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
