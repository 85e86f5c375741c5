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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// Event reasons of the DemoApplication controller.
const (
	// EventCreated: an owned object was created.
	EventCreated = "Created"
	// EventUpdated: an owned object was brought back to the spec.
	EventUpdated = "Updated"
	// EventDeleted: an owned object the spec no longer asks for was deleted.
	EventDeleted = "Deleted"
	// EventResourceConflict: an object of the wanted name exists and is not ours.
	EventResourceConflict = paasv1.ReasonResourceConflict
	// EventApplyFailed: the API server refused an owned object.
	EventApplyFailed = "ApplyFailed"
	// Any other failure that lasts until someone acts (a delete refused by an admission
	// policy, a read forbidden by RBAC) is a Warning Event whose reason names the step, as
	// the Degraded condition does: paasv1.ReasonDeploymentFailed, ReasonServiceFailed,
	// ReasonPodServicesFailed.
)

// DefaultConflictRetryInterval is how often a DemoApplication blocked by an object it does
// not own looks again: that object is outside the operator's label-filtered cache, so no
// event tells when its name is freed.
const DefaultConflictRetryInterval = 30 * time.Second

// EventPodServiceNameInvalid: a pod's name is not a valid Service name, so it gets no
// per-pod Service.
const EventPodServiceNameInvalid = "PodServiceNameInvalid"

// DemoApplicationReconciler turns a DemoApplication into the Deployment and Service it
// declares, and the per-pod Services it asks for; it keeps them as declared, and reports
// their state in the DemoApplication's status.
type DemoApplicationReconciler struct {
	client.Client
	// APIReader reads objects the cache does not hold, to tell a free name from a taken one.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// ExtraEnv is added to every application container (OLM's proxy settings).
	ExtraEnv []corev1.EnvVar
	// ConflictRetryInterval overrides DefaultConflictRetryInterval when set.
	ConflictRetryInterval time.Duration
	// PodLabels are the pod labeler's keys, which per-pod Services rely on.
	PodLabels PodLabelKeys
}

// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications,verbs=get;list;watch
// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications/status,verbs=patch
// The Deployment and the Service block their DemoApplication's foreground deletion
// (blockOwnerDeletion), which OwnerReferencesPermissionEnforcement (on in OpenShift) grants
// only to who may update the owner's finalizers.
// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile makes the cluster match the DemoApplication in three steps (its Deployment, its
// Service, its per-pod Services), each run whatever the others met, then rebuilds its
// status from what they observed. Status is written at the end of every pass, failed or
// not, once and only when it changed.
func (r *DemoApplicationReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// 1. Load the DemoApplication; the garbage collector deletes what it owns once it goes.
	app := &paasv1.DemoApplication{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	original := app.DeepCopy()

	// 2. Run each step; a failing one does not keep the others from doing their part.
	seen := &observed{}
	var errs []error
	for _, step := range []func(context.Context, *paasv1.DemoApplication, *observed) error{
		r.reconcileDeployment, r.reconcileService, r.reconcilePodServices,
	} {
		if err := step(ctx, app, seen); err != nil {
			errs = append(errs, err)
		}
	}

	// 3. Report what was observed, and why the spec is not (yet) in place when it is not.
	r.recordFailures(app, errs)
	setStatus(app, seen, errs)
	if err := r.patchStatus(ctx, original, app); err != nil {
		errs = append(errs, err)
	}
	return r.result(errs)
}

// recordFailures makes each persistent failure of the steps a Warning Event of app, so that
// kubectl describe shows it beside the Degraded condition, unless apply recorded it already
// (ApplyFailed, ResourceConflict). A transient failure is retried and raises none.
func (r *DemoApplicationReconciler) recordFailures(app *paasv1.DemoApplication, errs []error) {
	for _, err := range errs {
		var step *stepError
		if !errors.As(err, &step) {
			continue
		}
		for _, cause := range causes(step.err) {
			var refused *applyError
			var conflict *conflictError
			if persistent(cause) && !errors.As(cause, &refused) && !errors.As(cause, &conflict) {
				r.Recorder.Eventf(app, nil, corev1.EventTypeWarning, step.reason, "Reconcile", "%v", cause)
			}
		}
	}
}

// causes splits err into the errors errors.Join made it of.
func causes(err error) []error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var all []error
	for _, e := range joined.Unwrap() {
		all = append(all, causes(e)...)
	}
	return all
}

// result retries a failed pass with backoff, except when every failure is a name held by
// someone else: only they can free it, and no event says when, so look again at intervals.
func (r *DemoApplicationReconciler) result(errs []error) (ctrl.Result, error) {
	if len(errs) == 0 {
		return ctrl.Result{}, nil
	}
	for _, err := range errs {
		if conflict := (*conflictError)(nil); !errors.As(err, &conflict) {
			return ctrl.Result{}, errors.Join(errs...)
		}
	}
	return ctrl.Result{RequeueAfter: r.conflictRetryInterval()}, nil
}

// reconcileDeployment applies the desired Deployment and records the one it observed.
func (r *DemoApplicationReconciler) reconcileDeployment(ctx context.Context, app *paasv1.DemoApplication, seen *observed) error {
	current := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	found, err := r.apply(ctx, app, app, current, newDeployment(app, r.ExtraEnv, r.PodLabels), func() (any, error) {
		return appsv1ac.ExtractDeployment(current, FieldManager)
	})
	var refused *applyError
	switch {
	case found:
		seen.deployment, seen.deploymentRead = current, true
	case err == nil || errors.As(err, &refused):
		seen.deploymentRead = true // there is none
	case errors.As(err, &seen.deploymentHeld):
		seen.deploymentRead = true
	}
	return stepFailed(paasv1.ReasonDeploymentFailed, err)
}

// reconcileService applies the desired Service, or deletes ours when the app has no ports.
func (r *DemoApplicationReconciler) reconcileService(ctx context.Context, app *paasv1.DemoApplication, _ *observed) error {
	current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	desired := newService(app)
	if desired == nil {
		return stepFailed(paasv1.ReasonServiceFailed, r.deleteOwned(ctx, app, current))
	}
	if err := r.replacePorts(ctx, app, desired); err != nil {
		return stepFailed(paasv1.ReasonServiceFailed, err)
	}
	_, err := r.apply(ctx, app, app, current, desired, func() (any, error) {
		return corev1ac.ExtractService(current, FieldManager)
	})
	return stepFailed(paasv1.ReasonServiceFailed, err)
}

// reconcilePodServices keeps, while app asks for per-pod Services, one for each of its pods
// that carries the pod-name label, and deletes those whose pod is gone or going, or all of
// them when app no longer asks. It records how many are in place.
func (r *DemoApplicationReconciler) reconcilePodServices(ctx context.Context, app *paasv1.DemoApplication, seen *observed) error {
	wanted, err := r.labelledPods(ctx, app)
	if err != nil {
		return stepFailed(paasv1.ReasonPodServicesFailed, err)
	}
	existing := &corev1.ServiceList{}
	err = r.List(ctx, existing, client.InNamespace(app.Namespace),
		client.MatchingLabels{LabelApplication: app.Name}, client.HasLabels{LabelPodService})
	if err != nil {
		return stepFailed(paasv1.ReasonPodServicesFailed, fmt.Errorf("listing per-pod Services: %w", err))
	}
	var errs []error
	for i := range existing.Items {
		svc := &existing.Items[i]
		if pod := wanted[svc.Name]; (pod != nil && metav1.IsControlledBy(svc, pod)) || !isPodService(svc) {
			continue
		}
		// The pod's Service, if it came back under the same name, is made after this
		// deletion shows in the cache, which requeues app.
		delete(wanted, svc.Name)
		errs = append(errs, r.delete(ctx, app, svc))
	}

	var ready int32
	for _, name := range slices.Sorted(maps.Keys(wanted)) {
		pod := wanted[name]
		if msgs := validation.IsDNS1035Label(name); len(msgs) > 0 {
			r.Recorder.Eventf(app, nil, corev1.EventTypeWarning, EventPodServiceNameInvalid, "Apply",
				"Pod %s gets no Service of its own: its name is not a valid Service name: %s", name, strings.Join(msgs, "; "))
			continue
		}
		current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: app.Namespace}}
		_, err := r.apply(ctx, app, pod, current, newPodService(app, pod, r.PodLabels), func() (any, error) {
			return corev1ac.ExtractService(current, FieldManager)
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ready++
	}
	seen.podServices = &ready
	return stepFailed(paasv1.ReasonPodServicesFailed, errors.Join(errs...))
}

// labelledPods returns, by name, app's pods that carry their pod-name label and are not
// being deleted: the pods that get a Service of their own. None when app does not ask.
func (r *DemoApplicationReconciler) labelledPods(ctx context.Context, app *paasv1.DemoApplication) (map[string]*metav1.PartialObjectMetadata, error) {
	wanted := map[string]*metav1.PartialObjectMetadata{}
	if !podServicesEnabled(app) {
		return wanted, nil
	}
	pods := &metav1.PartialObjectMetadataList{}
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	// The pod cache keeps, of the app's selector, the label naming the app: it is enough.
	if err := r.List(ctx, pods, client.InNamespace(app.Namespace), client.MatchingLabels{LabelApplication: app.Name}); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.DeletionTimestamp.IsZero() && pod.Labels[r.PodLabels.Label] == pod.Name {
			wanted[pod.Name] = pod
		}
	}
	return wanted, nil
}

// patchStatus writes app's status if it differs from original's.
func (r *DemoApplicationReconciler) patchStatus(ctx context.Context, original, app *paasv1.DemoApplication) error {
	if equality.Semantic.DeepEqual(original.Status, app.Status) {
		return nil
	}
	// The status was computed from the cached app. If that copy is stale, a write has landed
	// since: refuse to overwrite it (the conflict requeues app, read again) rather than write
	// the same status twice or undo a newer one.
	if err := r.Status().Patch(ctx, app, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("patching status of %s: %w", klog.KObj(app), err))
	}
	return nil
}

func (r *DemoApplicationReconciler) conflictRetryInterval() time.Duration {
	if r.ConflictRetryInterval > 0 {
		return r.ConflictRetryInterval
	}
	return DefaultConflictRetryInterval
}

// SetupWithManager registers the controller: it reconciles DemoApplications on spec
// changes, whenever a Deployment or Service they own changes, and, for per-pod Services,
// whenever one of their pods gains or loses its pod-name label or goes, and whenever a
// per-pod Service changes. Pods are watched as metadata, through the informer the pod
// labeler already has.
func (r *DemoApplicationReconciler) SetupWithManager(mgr ctrl.Manager, options controller.Options) error {
	// An informer's periodic resync replays every object unchanged: nothing to reconcile.
	changed := builder.WithPredicates(predicate.ResourceVersionChangedPredicate{})
	return ctrl.NewControllerManagedBy(mgr).
		Named("demoapplication").
		For(&paasv1.DemoApplication{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.Deployment{}, changed).
		Owns(&corev1.Service{}, changed).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.podServiceApp),
			builder.OnlyMetadata, builder.WithPredicates(r.podServiceInputsChanged())).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.podServiceApp),
			builder.WithPredicates(predicate.ResourceVersionChangedPredicate{}, predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetLabels()[LabelPodService] != ""
			}))).
		WithOptions(options).
		Complete(r)
}

// podServiceApp maps a pod, or a per-pod Service, to its DemoApplication when that asks
// for per-pod Services.
func (r *DemoApplicationReconciler) podServiceApp(ctx context.Context, obj client.Object) []reconcile.Request {
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetLabels()[LabelApplication]}
	app := &paasv1.DemoApplication{}
	if key.Name == "" || r.Get(ctx, key, app) != nil || !podServicesEnabled(app) {
		// Turning per-pod Services off is a spec change, which reconciles app anyway.
		return nil
	}
	return []reconcile.Request{{NamespacedName: key}}
}

// podServiceInputsChanged lets through the pod events that change which pods get a
// Service: most pod updates are status changes, which do not.
func (r *DemoApplicationReconciler) podServiceInputsChanged() predicate.Funcs {
	labelled := func(o client.Object) bool { return o.GetLabels()[r.PodLabels.Label] == o.GetName() }
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return labelled(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return labelled(e.ObjectOld) != labelled(e.ObjectNew) ||
				e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
		},
		DeleteFunc:  func(e event.DeleteEvent) bool { return labelled(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
