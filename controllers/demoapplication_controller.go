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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
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
	EventApplyFailed = paasv1.ReasonApplyFailed
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
	// PodLabelAnnotation and PodNameLabel are the pod labeler's keys, which per-pod
	// Services rely on: the annotation opts pods in, the label selects one pod.
	PodLabelAnnotation, PodNameLabel string
}

// conflictError says that an object the DemoApplication needs is held by someone else.
type conflictError struct {
	kind, name string
}

func (e *conflictError) Error() string {
	return fmt.Sprintf("%s %q already exists and is not the operator's", e.kind, e.name)
}

// applyError is a refusal by the API server of an object the DemoApplication owns.
type applyError struct {
	kind string
	err  error
}

func (e *applyError) Error() string { return fmt.Sprintf("applying %s: %v", e.kind, e.err) }
func (e *applyError) Unwrap() error { return e.err }

// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications,verbs=get;list;watch
// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications/status,verbs=patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile applies the Deployment and the Service that the DemoApplication declares and
// its per-pod Services, then rebuilds its status from what it observed. Status is written
// once, at the end, and only when it changed.
func (r *DemoApplicationReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &paasv1.DemoApplication{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		// The garbage collector deletes what the DemoApplication owns.
		return ctrl.Result{}, nil
	}

	original := app.DeepCopy()
	deployment, err := r.reconcileDeployment(ctx, app)
	if err == nil {
		err = r.reconcileService(ctx, app)
	}
	var podServices int32
	if err == nil {
		podServices, err = r.reconcilePodServices(ctx, app)
	}
	var conflict *conflictError
	var refused *applyError
	if err != nil && !errors.As(err, &conflict) && !errors.As(err, &refused) {
		// A transient failure (API server unreachable, a timeout): retry with backoff and
		// keep the status the last complete reconcile wrote.
		return ctrl.Result{}, err
	}

	setStatus(app, deployment, podServices, err)
	if patchErr := r.patchStatus(ctx, original, app); patchErr != nil {
		return ctrl.Result{}, kerrors.NewAggregate([]error{err, patchErr})
	}
	if conflict != nil {
		// Not an error to retry with backoff: only someone else can free the name.
		return ctrl.Result{RequeueAfter: r.conflictRetryInterval()}, nil
	}
	return ctrl.Result{}, err
}

// reconcileDeployment applies the desired Deployment and returns the one it observed, or
// nil when there is none that the DemoApplication controls.
func (r *DemoApplicationReconciler) reconcileDeployment(ctx context.Context, app *paasv1.DemoApplication) (*appsv1.Deployment, error) {
	current := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	found, err := r.apply(ctx, app, app, current, newDeployment(app, r.ExtraEnv, r.PodLabelAnnotation), func() (any, error) {
		return appsv1ac.ExtractDeployment(current, FieldManager)
	})
	if !found {
		return nil, err
	}
	return current, err
}

// reconcileService applies the desired Service, or deletes ours when the app has no ports.
func (r *DemoApplicationReconciler) reconcileService(ctx context.Context, app *paasv1.DemoApplication) error {
	current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	desired := newService(app)
	if desired == nil {
		return r.deleteOwned(ctx, app, current)
	}
	if err := r.removeUndeclaredPorts(ctx, app); err != nil {
		return err
	}
	_, err := r.apply(ctx, app, app, current, desired, func() (any, error) {
		return corev1ac.ExtractService(current, FieldManager)
	})
	return err
}

// removeUndeclaredPorts replaces, in app's Service, the ports app does not declare with
// the declared ones missing there. Service ports are keyed by port and protocol, so an
// edit that renumbers a port leaves one the operator does not own: applying cannot remove
// it, and it clashes with the declared port's name. The app's ports are all the Service's
// ports, so such a port is drift like any other.
func (r *DemoApplicationReconciler) removeUndeclaredPorts(ctx context.Context, app *paasv1.DemoApplication) error {
	svc := &corev1.Service{}
	if err := r.Get(ctx, client.ObjectKeyFromObject(app), svc); err != nil || !metav1.IsControlledBy(svc, app) {
		return client.IgnoreNotFound(err)
	}
	type key struct {
		port     int32
		protocol corev1.Protocol
	}
	declared, live := map[key]bool{}, map[key]bool{}
	for _, p := range app.Spec.Ports {
		declared[key{p.Port, protocolOf(p)}] = true
	}
	var ports []any
	for _, p := range svc.Spec.Ports {
		live[key{p.Port, p.Protocol}] = true
		if !declared[key{p.Port, p.Protocol}] {
			ports = append(ports, map[string]any{"$patch": "delete", "port": p.Port, "protocol": p.Protocol})
		}
	}
	if len(ports) == 0 {
		return nil
	}
	// A Service needs a port at all times: add the missing declared ones in the same patch.
	for _, p := range app.Spec.Ports {
		if !live[key{p.Port, protocolOf(p)}] {
			port := servicePort(p)
			port.NodePort = p.NodePort
			ports = append(ports, port)
		}
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": svc.ResourceVersion},
		"spec":     map[string]any{"ports": ports},
	})
	if err != nil {
		return err
	}
	if err := r.Patch(ctx, svc, client.RawPatch(types.StrategicMergePatchType, patch), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("removing undeclared ports from Service %s: %w", klog.KObj(svc), err)
	}
	return nil
}

// reconcilePodServices keeps, while app asks for per-pod Services, one for each of its pods
// that carries the pod-name label, and deletes those whose pod is gone or going, or all of
// them when app no longer asks. It returns how many are in place.
func (r *DemoApplicationReconciler) reconcilePodServices(ctx context.Context, app *paasv1.DemoApplication) (int32, error) {
	wanted, err := r.labelledPods(ctx, app)
	if err != nil {
		return 0, err
	}
	existing := &corev1.ServiceList{}
	err = r.List(ctx, existing, client.InNamespace(app.Namespace),
		client.MatchingLabels{LabelApplication: app.Name}, client.HasLabels{LabelPodService})
	if err != nil {
		return 0, fmt.Errorf("listing per-pod Services: %w", err)
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
		_, err := r.apply(ctx, app, pod, current, newPodService(app, pod, r.PodNameLabel), func() (any, error) {
			return corev1ac.ExtractService(current, FieldManager)
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ready++
	}
	return ready, errors.Join(errs...)
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
		if pod.DeletionTimestamp.IsZero() && pod.Labels[r.PodNameLabel] == pod.Name {
			wanted[pod.Name] = pod
		}
	}
	return wanted, nil
}

// apply makes the object named like current (app's, or one of its pods', by owner) match
// desired and reads it into current, reporting whether current holds it. It writes nothing
// when the fields the operator owns already hold the desired values, and never touches an
// object that owner does not control. extract returns the fields of current that the
// operator owns, to compare with desired.
func (r *DemoApplicationReconciler) apply(ctx context.Context, app *paasv1.DemoApplication, owner metav1.Object, current client.Object, desired runtime.ApplyConfiguration, extract func() (any, error)) (bool, error) {
	kind := r.kindOf(current)
	key := client.ObjectKeyFromObject(current)
	exists, err := r.getOwned(ctx, app, owner, key, current)
	if err != nil {
		return false, err
	}
	if exists {
		owned, err := extract()
		if err != nil {
			return true, fmt.Errorf("reading the fields of %s %s the operator owns: %w", kind, key, err)
		}
		if equality.Semantic.DeepEqual(owned, desired) {
			return true, nil
		}
	}

	if err := r.Client.Apply(ctx, desired, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		r.Recorder.Eventf(app, nil, corev1.EventTypeWarning, EventApplyFailed, "Apply",
			"Applying %s %s failed: %v", kind, key.Name, err)
		return exists, &applyError{kind: kind, err: err}
	}
	reason := EventUpdated
	if !exists {
		reason = EventCreated
	}
	r.Recorder.Eventf(app, current, corev1.EventTypeNormal, reason, "Apply", "%s %s %s", reason, kind, key.Name)
	ctrl.LoggerFrom(ctx).V(1).Info("applied", "kind", kind, "name", key.Name, "created", !exists)
	// Apply filled desired with the API server's answer: the object as it now stands.
	convert(desired, current)
	return true, nil
}

// getOwned reads the object of key into obj. It reports false when there is none, and a
// conflictError, recorded as app's Event, when one exists that owner does not control.
// The cache only holds objects labelled as managed by the operator, so a miss there is
// confirmed with a metadata-only read from the API server.
func (r *DemoApplicationReconciler) getOwned(ctx context.Context, app *paasv1.DemoApplication, owner metav1.Object, key client.ObjectKey, obj client.Object) (bool, error) {
	kind := r.kindOf(obj)
	err := r.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		gvk, err := r.GroupVersionKindFor(obj)
		if err != nil {
			return false, err
		}
		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(gvk)
		if err := r.APIReader.Get(ctx, key, meta); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if !metav1.IsControlledBy(meta, owner) {
			return false, r.conflict(app, kind, key.Name)
		}
		// Ours, but not yet (or no longer) labelled for the cache: applying relabels it.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting %s %s: %w", kind, key, err)
	}
	if !metav1.IsControlledBy(obj, owner) {
		return false, r.conflict(app, kind, key.Name)
	}
	return true, nil
}

// deleteOwned deletes the object named like obj if app controls it.
func (r *DemoApplicationReconciler) deleteOwned(ctx context.Context, app *paasv1.DemoApplication, obj client.Object) error {
	if err := r.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !metav1.IsControlledBy(obj, app) {
		return nil
	}
	return r.delete(ctx, app, obj)
}

// delete deletes obj, unless it was replaced since it was read, and records it as app's Event.
func (r *DemoApplicationReconciler) delete(ctx context.Context, app *paasv1.DemoApplication, obj client.Object) error {
	uid := obj.GetUID()
	if err := r.Delete(ctx, obj, client.Preconditions{UID: &uid}); err != nil {
		return client.IgnoreNotFound(err)
	}
	r.Recorder.Eventf(app, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s", r.kindOf(obj), obj.GetName())
	return nil
}

// conflict records that the name is taken and returns the conflictError.
func (r *DemoApplicationReconciler) conflict(app *paasv1.DemoApplication, kind, name string) error {
	err := &conflictError{kind: kind, name: name}
	r.Recorder.Eventf(app, nil, corev1.EventTypeWarning, EventResourceConflict, "Apply", "%s; it is left untouched", err)
	return err
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

// kindOf names the kind of a typed object, for messages.
func (r *DemoApplicationReconciler) kindOf(obj client.Object) string {
	gvk, err := r.GroupVersionKindFor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
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
	labelled := func(o client.Object) bool { return o.GetLabels()[r.PodNameLabel] == o.GetName() }
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
