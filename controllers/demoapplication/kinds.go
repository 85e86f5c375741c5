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
	"reflect"
	"slices"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// owned describes one kind of object a DemoApplication owns: how it is built, what it waits
// for, how it is compared and applied, watched and cached, what the operator's role grants
// on it, and how what is observed of it becomes a cause. Reconcile's steps, SetupWithManager,
// apply, the manager's cache (CacheByObject), NewObjects, the role's test and the restraint's
// leaves all read ownedKinds. A new kind is a file of its own (its entry, builder and cause)
// and a line there; then what cannot read a table, each held to it by a test: its RBAC marker
// (TestRoleGrantsOwnedKinds), the owned resources of the CSV markers of both API versions
// (TestCSVListsOwnedKinds), and the restraint's leaves of its fields (TestEveryLeafIsHeld).
type owned struct {
	// name names the objects in messages: their API kind, "per-pod Service" for those.
	name string
	// suffix follows the app's name in the name of its object of the kind: none but for the
	// governing Service of a StatefulSet.
	suffix string
	// object returns an empty object of the kind, typed.
	object func() client.Object
	// failed is the reason the step's failures take, in Degraded and in their Events.
	failed string
	// build returns the object app declares, nil when it declares none: a pure function of
	// the app and the reconciler's configuration. Nil for per-pod Services, whose step builds
	// one per pod.
	build func(r *Reconciler, app *paasv1.DemoApplication) runtime.ApplyConfiguration
	// postponed, when set, reports whether the pass leaves out the object build returns.
	postponed func(s *scope) bool
	// parent returns the app's object this one names, and would act on whichever held its
	// name: while the pass cannot tell whether the app has its own, the object stays as it
	// is; once it has none, the object goes.
	parent func(app *paasv1.DemoApplication) *owned
	// observed, set on a parent, reports whether the pass found the app's object of the kind,
	// and whether it could tell.
	observed func(s *scope) (exists, known bool)
	// observe records, once the object is applied (obj), why it does not serve as the app
	// asks, as its controller reports it.
	observe func(r *Reconciler, ctx context.Context, s *scope, obj client.Object)
	// reconcile, when set, is the step in place of reconcileChild.
	reconcile func(r *Reconciler, ctx context.Context, s *scope)
	// extract returns the fields of an object of the kind the operator owns, as the apply
	// configuration it applies (ownedFields).
	extract func(obj client.Object) (any, error)
	// watch lets through the changes of the objects the app controls that reconcile it; nil
	// when the app controls none (per-pod Services are their pods').
	watch predicate.Predicate
	// setup adds the indexes and the watches, beyond watch, that the kind's step reads.
	setup func(r *Reconciler, mgr ctrl.Manager, b *builder.Builder) (*builder.Builder, error)
	// unserved is set for a kind of the Gateway API, which a cluster may not serve: the cause
	// of an app that asks for one where the cluster did not serve it as the operator started.
	// The controller then neither caches, watches nor writes the kind.
	unserved *cause
	// kept is set when the operator never deletes an object of the kind: the garbage collector
	// does, with the app.
	kept bool
}

// ownedKinds are the objects a DemoApplication owns, in the order of the steps that keep them:
// each step may read what those before it observed (a parent comes before its children).
// Filled by init: the steps that the entries name apply through apply, which reads the table.
var ownedKinds []*owned

func init() {
	ownedKinds = []*owned{
		&deploymentKind, &governingServiceKind, &statefulSetKind, &serviceKind, &podServicesKind, &ingressKind, &httpRouteKind,
		&autoscalerKind, &networkPolicyKind, &disruptionBudgetKind,
	}
}

// reconcileOwned runs the step of o.
func (r *Reconciler) reconcileOwned(ctx context.Context, s *scope, o *owned) {
	if o.reconcile != nil {
		o.reconcile(r, ctx, s)
		return
	}
	r.reconcileChild(ctx, s, o)
}

// reconcileChild applies the object of o the app declares, or deletes the app's when it
// declares none. An object that names a parent is applied only while the app has its own
// parent, and deleted once it has none; while the pass cannot tell, it stays as it is.
func (r *Reconciler) reconcileChild(ctx context.Context, s *scope, o *owned) {
	desired := o.desired(r, s)
	if !r.serves(o) {
		if desired != nil {
			c := *o.unserved
			s.causes = append(s.causes, &c)
		}
		return
	}
	current := o.named(s.app)
	var parent *owned
	parentExists, parentKnown := true, true
	if o.parent != nil {
		parent = o.parent(s.app)
		parentExists, parentKnown = parent.observed(s)
	}
	switch {
	case desired == nil:
		r.deleteStep(ctx, s, o.failed, current)
	case !parentKnown:
		// Whether the parent is the app's is not known: the object stays as it is.
	case !parentExists:
		s.wait(parent.failed, fmt.Sprintf("the %s waits for a %s of the app's own", o.name, parent.name))
		r.deleteStep(ctx, s, o.failed, current)
	default:
		if r.applyStep(ctx, s, o.failed, current, desired) != absent && o.observe != nil {
			o.observe(r, ctx, s, current)
		}
	}
}

// desired returns the object of o the pass wants, nil when it wants none.
func (o *owned) desired(r *Reconciler, s *scope) runtime.ApplyConfiguration {
	if o.build == nil || o.postponed != nil && o.postponed(s) {
		return nil
	}
	return o.build(r, s.app)
}

// named returns an empty object of o named like app, and o's suffix.
func (o *owned) named(app *paasv1.DemoApplication) client.Object {
	obj := o.object()
	obj.SetName(app.Name + o.suffix)
	obj.SetNamespace(app.Namespace)
	return obj
}

// serves reports whether the controller writes objects of o: not those of the Gateway API on
// a cluster that did not serve it as the controller started.
func (r *Reconciler) serves(o *owned) bool {
	return o.unserved == nil || r.gatewayAPI
}

// applyStep applies desired into current for step, recording what it did and met, and returns
// what it did: current holds the object unless absent.
func (r *Reconciler) applyStep(ctx context.Context, s *scope, step string, current client.Object, desired runtime.ApplyConfiguration) outcome {
	done, err := r.apply(ctx, s.app, current, desired)
	s.note(current, done)
	s.fail(step, err)
	return done
}

// deleteStep deletes the app's object named like current for step, if the app owns one,
// recording what it did and met.
func (r *Reconciler) deleteStep(ctx context.Context, s *scope, step string, current client.Object) {
	done, err := r.deleteOwned(ctx, s.app, current)
	s.note(current, done)
	s.fail(step, err)
}

// known reports whether a step that did done and met f knows if the app has its object:
// only a failed read leaves that unknown; a name held by someone else, or a refused write,
// says it has none.
func known(done outcome, f *failure) bool {
	return done != absent || f == nil || f.afterRead()
}

// ownedBy returns the entry of ownedKinds whose objects are of obj's type, nil when none is.
func ownedBy(obj client.Object) *owned {
	for _, o := range ownedKinds {
		if reflect.TypeOf(o.object()) == reflect.TypeOf(obj) {
			return o
		}
	}
	return nil
}

// fromApp makes build, a builder of app alone that returns nil for no object, a build of the
// table.
func fromApp[A interface {
	comparable
	runtime.ApplyConfiguration
}](build func(*paasv1.DemoApplication) A) func(*Reconciler, *paasv1.DemoApplication) runtime.ApplyConfiguration {
	return func(_ *Reconciler, app *paasv1.DemoApplication) runtime.ApplyConfiguration {
		var none A
		if d := build(app); d != none {
			return d
		}
		return nil
	}
}

// extractWith makes extract, client-go's extraction of a kind's apply configuration, an
// extract of the table: the operator's fields.
func extractWith[O client.Object, A any](extract func(O, string) (A, error)) func(client.Object) (any, error) {
	return func(obj client.Object) (any, error) { return extract(obj.(O), wellknown.FieldManager) }
}

// changed lets through every change of an object, but the informer's resyncs, which replay
// every object unchanged.
var changed predicate.Predicate = predicate.ResourceVersionChangedPredicate{}

// specOrMetadataChanged lets through the changes of an object's spec or metadata: of its
// status, only the predicates in also say what reconciles the app.
func specOrMetadataChanged(also ...predicate.Predicate) predicate.Predicate {
	return predicate.Or(append([]predicate.Predicate{
		predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}}, also...)...)
}

// kindsScheme names the kinds of ownedKinds: Kubernetes's own and the Gateway API's.
var kindsScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(gatewayv1.Install(s))
	return s
}()

// OwnedKind is a kind of object the DemoApplication controller owns, as the manager's cache,
// the operator's role and the tests see it.
type OwnedKind struct {
	// Object is an empty object of the kind, typed.
	Object client.Object
	// Resource is the kind's group, version and resource, as RBAC and the API server name them.
	Resource schema.GroupVersionResource
	Kind     string
	// Verbs are what the controller does to objects of the kind, as its role grants them.
	Verbs []string
	// GatewayAPI is set for a kind of the Gateway API, which a cluster may not serve.
	GatewayAPI bool
}

// OwnedKinds returns the kinds of ownedKinds, each once (a Service and the per-pod Services
// are one kind), in its order.
func OwnedKinds() []OwnedKind {
	var out []OwnedKind
	for _, o := range ownedKinds {
		obj := o.object()
		gvk, err := apiutil.GVKForObject(obj, kindsScheme)
		if err != nil {
			panic(fmt.Sprintf("the scheme has no kind for %T: %v", obj, err))
		}
		i := slices.IndexFunc(out, func(k OwnedKind) bool { return k.Kind == gvk.Kind })
		if i < 0 {
			gvr, _ := meta.UnsafeGuessKindToResource(gvk)
			out = append(out, OwnedKind{Object: obj, Resource: gvr, Kind: gvk.Kind,
				Verbs: []string{"get", "list", "watch", "create", "patch"}, GatewayAPI: o.unserved != nil})
			i = len(out) - 1
		}
		if !o.kept && !slices.Contains(out[i].Verbs, "delete") {
			out[i].Verbs = append(out[i].Verbs, "delete")
		}
	}
	return out
}

// CacheByObject returns how the manager's cache holds the kinds the controller owns: only the
// objects labelled as the operator's, which every builder labels (labelsFor). The Gateway
// API's kinds only when gatewayAPI says the cluster serves them: a cache setting for a kind
// the cluster lacks fails the cache's start.
func CacheByObject(gatewayAPI bool) map[client.Object]cache.ByObject {
	managed := labels.SelectorFromSet(labels.Set{wellknown.LabelManagedBy: wellknown.ManagedByValue})
	out := map[client.Object]cache.ByObject{}
	for _, k := range OwnedKinds() {
		if !k.GatewayAPI || gatewayAPI {
			out[k.Object] = cache.ByObject{Label: managed}
		}
	}
	return out
}

// NewObjects returns, as typed objects, what the operator applies for app when none exists
// yet, with its default flags, in a namespace that enforces no Pod Security level, its pods
// carrying configHash (empty when they read no configuration): of ownedKinds, those that name
// no parent and that app declares (the Deployment, and the Service, NetworkPolicy and
// PodDisruptionBudget when the spec asks for them). The bench's baselines write these, so
// that they write what the operator writes.
func NewObjects(app *paasv1.DemoApplication, configHash string) []client.Object {
	r := &Reconciler{PodLabels: wellknown.DefaultPodLabelKeys}
	var objects []client.Object
	for _, o := range ownedKinds {
		if o.parent != nil || o.build == nil {
			continue
		}
		desired := o.build(r, app)
		if desired == nil {
			continue
		}
		switch d := desired.(type) {
		case *appsv1ac.DeploymentApplyConfiguration:
			withInitialTemplate(app, d, configHash)
		case *appsv1ac.StatefulSetApplyConfiguration:
			withConfigHashAnnotation(d.Spec.Template, configHash)
		}
		obj := o.object()
		convert(desired, obj)
		objects = append(objects, obj)
	}
	return objects
}
