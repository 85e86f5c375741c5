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

package podlabel

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// EventPodNameTooLong is the reason of the Warning Event of a pod whose name does not fit
// in a label value.
const EventPodNameTooLong = "PodNameTooLong"

// Reconciler gives every pod that opts in through Annotation a label, Label, whose value is
// the pod's own name, so that a Service can select exactly that pod; it removes the label
// from pods that do not opt in.
type Reconciler struct {
	client.Client
	Recorder events.EventRecorder
	wellknown.PodLabelKeys
}

// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile adds or removes the pod-name label with a merge patch that touches that label
// alone, so that concurrent writers of other labels are never overwritten.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pod := &metav1.PartialObjectMetadata{}
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	if err := r.Get(ctx, req.NamespacedName, pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	value, want := r.desiredLabel(pod)
	if !r.needsChange(pod) {
		return ctrl.Result{}, nil
	}
	if want && len(validation.IsValidLabelValue(value)) > 0 {
		// Not retried: the name cannot change, so neither can the outcome.
		r.Recorder.Eventf(pod, nil, corev1.EventTypeWarning, EventPodNameTooLong, "Label",
			"Cannot set label %s: the pod name has %d characters and a label value at most %d",
			r.Label, len(value), validation.LabelValueMaxLength)
		return ctrl.Result{}, nil
	}

	// The patch names the one label it sets or removes, null removing it: the cached pod
	// holds only some of the pod's labels, so a patch computed from it could drop others.
	var label any
	if want {
		label = value
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{r.Label: label}}})
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Patch(ctx, pod, client.RawPatch(types.MergePatchType, patch)); err != nil {
		// A pod deleted since the cache saw it needs no label.
		return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("patching label %s: %w", r.Label, err))
	}
	ctrl.LoggerFrom(ctx).V(1).Info("pod-name label set", "present", want)
	return ctrl.Result{}, nil
}

// desiredLabel returns the value of the pod-name label pod should carry, and whether it
// should carry one at all.
func (r *Reconciler) desiredLabel(pod metav1.Object) (string, bool) {
	return pod.GetName(), pod.GetAnnotations()[r.Annotation] == wellknown.OptIn
}

// needsChange reports whether pod's pod-name label differs from what it should be.
func (r *Reconciler) needsChange(pod metav1.Object) bool {
	value, want := r.desiredLabel(pod)
	current, has := wellknown.PodLabel(pod, r.Label)
	return want != has || (want && current != value)
}

// inputsChanged reports whether an update touched what the labeler reads.
func (r *Reconciler) inputsChanged(old, new metav1.Object) bool {
	return old.GetAnnotations()[r.Annotation] != new.GetAnnotations()[r.Annotation] ||
		old.GetLabels()[r.Label] != new.GetLabels()[r.Label]
}

// needsLabelChange lets through only the events after which a pod's label is wrong: most
// pod updates are status changes that the labeler has no reason to look at, and resyncs
// must cost no reconcile. A pod whose name is too long is reported once per change of
// its inputs, not on every update.
func (r *Reconciler) needsLabelChange() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return r.needsChange(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return r.inputsChanged(e.ObjectOld, e.ObjectNew) && r.needsChange(e.ObjectNew)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// SetupWithManager registers the labeler. Pods are watched as metadata only: it reads
// nothing else, and a pod's spec and status are most of its size.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, options controller.Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("pod-labeler").
		For(&corev1.Pod{}, builder.OnlyMetadata, builder.WithPredicates(r.needsLabelChange())).
		WithOptions(options).
		Complete(r)
}
