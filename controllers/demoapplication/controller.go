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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// DefaultConflictRetryInterval is how often a DemoApplication blocked by an object it does
// not own looks again: that object is outside the operator's label-filtered cache, so no
// event tells when its name is freed.
const DefaultConflictRetryInterval = 30 * time.Second

// Reconciler turns a DemoApplication into the Deployment and Service it
// declares, and the per-pod Services, Ingress or HTTPRoute, autoscaler, NetworkPolicy and
// disruption budget it asks for; it keeps them as declared, and reports
// their state in the DemoApplication's status.
type Reconciler struct {
	client.Client
	// APIReader reads an object the cache does not hold, once its name proved taken, to tell
	// whose it is.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// ExtraEnv is added to every application container (OLM's proxy settings).
	ExtraEnv []corev1.EnvVar
	// ConflictRetryInterval overrides DefaultConflictRetryInterval when set.
	ConflictRetryInterval time.Duration
	// PodLabels are the pod labeler's keys, which per-pod Services rely on.
	PodLabels wellknown.PodLabelKeys
	// podsRead is what the reconciler last read of each app's pods.
	podsRead podsRead
	// ConfigRolloutSecrets lets Secrets' changes roll the pods too (--config-rollout-secrets):
	// only where the platform grants the operator the read of Secrets, which the default
	// install does not. Without it the controller neither watches nor reads a Secret.
	ConfigRolloutSecrets bool
	// configVersions is the manager's cache, which holds the ConfigMaps (and Secrets) as
	// metadata; configDigests, what the config hash last took of them.
	configVersions client.Reader
	configDigests  configDigests
	// GracePeriod overrides DefaultGracePeriod when set.
	GracePeriod time.Duration
	// gatewayAPI is set when the cluster served the Gateway API's HTTPRoutes as the
	// controller started: only then does it watch and write them.
	gatewayAPI bool
}

// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications,verbs=get;list;watch
// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications/status,verbs=patch
// The Deployment and the Service block their DemoApplication's foreground deletion
// (blockOwnerDeletion), which OwnerReferencesPermissionEnforcement (on in OpenShift) grants
// only to who may update the owner's finalizers.
// +kubebuilder:rbac:groups=paas.cmft.com,resources=demoapplications/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;patch
// Per-pod Services go to the pods of the app's ReplicaSets, read as metadata.
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=list;watch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// The kubelet says why a readiness probe failed or a volume did not mount in a pod's Events
// alone.
// +kubebuilder:rbac:groups="",resources=events,verbs=list
// A namespace's Pod Security level decides the Deployment's security defaults; its labels
// are read as metadata.
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// Whether the IngressClass an app's Ingress names exists; read as metadata.
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingressclasses,verbs=get;list;watch
// The ConfigMaps an app's pods read: watched as metadata, and read, those alone, for the hash
// that rolls the pods when they change (rolloutOnConfigChange). Secrets only with
// --config-rollout-secrets, whose rule is an opt-in role of its own
// (config/config-rollout-secrets): a marker cannot be conditional.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch

// Reconcile makes the cluster match the DemoApplication in steps (its Deployment, its
// Service, its per-pod Services, its Ingress, its HTTPRoute, its autoscaler, its
// NetworkPolicy, its disruption budget), each run whatever the others met, and reads what keeps its
// pods from running while some are not ready or since one changed; then it rebuilds its status from what they
// observed. Status is written at the end of every pass, failed or
// not, once and only when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// 1. Load the DemoApplication; the garbage collector deletes what it owns once it goes,
	// and its metrics go with it.
	app := &paasv1.DemoApplication{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		if apierrors.IsNotFound(err) {
			forgetMetrics(req.NamespacedName)
			r.podsRead.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		forgetMetrics(req.NamespacedName)
		r.podsRead.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	original := app.DeepCopy()

	// 2. Keep each object the app owns (kinds.go), in order; a failing step does not keep the
	// others from doing their part.
	s := &scope{app: app, first: len(app.Status.Conditions) == 0}
	for _, o := range ownedKinds {
		r.reconcileOwned(ctx, s, o)
	}

	// 3. Report what was observed, and why the spec is not (yet) in place when it is not, in
	// status, Events and metrics.
	r.recordEvents(s)
	setStatus(s)
	if err := r.patchStatus(ctx, original, app); err != nil {
		return ctrl.Result{}, errors.Join(s.err(), err)
	}
	r.recordTransitions(s, &original.Status)
	recordMetrics(app)
	return r.result(s)
}

// result retries a failed pass with backoff, except when every failure is a name held by
// someone else: only they can free it, and no event says when, so look again at intervals.
// A pass that failed nothing looks again when it asked to.
func (r *Reconciler) result(s *scope) (ctrl.Result, error) {
	if len(s.failures) == 0 {
		return ctrl.Result{RequeueAfter: s.recheckAfter}, nil
	}
	for _, f := range s.failures {
		if f.conflict == nil {
			return ctrl.Result{}, s.err()
		}
	}
	retry := r.conflictRetryInterval()
	if s.recheckAfter > 0 {
		retry = min(retry, s.recheckAfter)
	}
	return ctrl.Result{RequeueAfter: retry}, nil
}

// patchStatus writes app's status if it differs from original's.
func (r *Reconciler) patchStatus(ctx context.Context, original, app *paasv1.DemoApplication) error {
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

func (r *Reconciler) conflictRetryInterval() time.Duration {
	if r.ConflictRetryInterval > 0 {
		return r.ConflictRetryInterval
	}
	return DefaultConflictRetryInterval
}

// SetupWithManager registers the controller: it reconciles DemoApplications on spec
// changes, whenever an object they own changes as its kind's watch says, on what each owned
// kind's setup watches (for per-pod Services, their pods, ReplicaSets and Services; for the
// Ingress, IngressClasses), whenever one of their pods changes, whenever a ConfigMap (or
// Secret) their pods read changes, and whenever their namespace's enforced Pod Security level
// changes. Pods are watched as metadata, through the informer the pod labeler already has;
// ConfigMaps, Secrets and Namespaces as metadata too.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, options controller.Options) error {
	r.configVersions = mgr.GetCache()
	// A ConfigMap or Secret wakes the apps that read it, found by this index of what each reads.
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &paasv1.DemoApplication{}, configRefIndex, configRefsOf); err != nil {
		return fmt.Errorf("indexing DemoApplications by the ConfigMaps and Secrets they read: %w", err)
	}
	served, err := GatewayAPIServed(mgr.GetRESTMapper())
	if err != nil {
		return err
	}
	r.gatewayAPI = served
	b := ctrl.NewControllerManagedBy(mgr).
		Named("demoapplication").
		For(&paasv1.DemoApplication{}, builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	for _, o := range ownedKinds {
		if !r.serves(o) {
			continue
		}
		if o.watch != nil {
			b = b.Owns(o.object(), builder.WithPredicates(o.watch))
		}
		if o.setup != nil {
			if b, err = o.setup(r, mgr, b); err != nil {
				return err
			}
		}
	}
	if r.ConfigRolloutSecrets {
		b = b.Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.configApps(kindSecret)), builder.OnlyMetadata, builder.WithPredicates(changed))
	}
	return b.
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.podApp),
			builder.OnlyMetadata, builder.WithPredicates(changed, predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetLabels()[wellknown.LabelApplication] != ""
			}))).
		// ConfigMaps (and Secrets, above) as metadata, trimmed (ConfigCacheTransform): their
		// data, or a copy of it in an annotation, is never cached.
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.configApps(kindConfigMap)), builder.OnlyMetadata, builder.WithPredicates(changed)).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.namespaceApps),
			builder.OnlyMetadata, builder.WithPredicates(namespaceLabelsChanged())).
		WithOptions(options).
		Complete(r)
}
