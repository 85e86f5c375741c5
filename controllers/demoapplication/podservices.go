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
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The per-pod Services: for a Deployment app, one per pod that carries the pod labeler's
// pod-name label, each its pod's, so that the garbage collector deletes it with the pod; for
// a StatefulSet app, one per ordinal its pods are to have (<app>-0, <app>-1...), each the
// app's, so that it outlives its pod's restarts and rollouts, as its pod's name does.

// podServicesKind are the app's per-pod Services, in ownedKinds: Services, which a Deployment
// app does not control (their pods do) and a StatefulSet app does, watched through their
// pods, their ReplicaSets and themselves.
var podServicesKind = owned{
	name:      "per-pod Service",
	object:    func() client.Object { return &corev1.Service{} },
	failed:    paasv1.ReasonPodServicesFailed,
	reconcile: (*Reconciler).reconcilePodServices,
	extract:   extractWith(corev1ac.ExtractService),
	setup:     (*Reconciler).watchPodServices,
}

// watchPodServices indexes the per-pod Services by app and reconciles an app that asks for
// them whenever one of its pods gains or loses its pod-name label or goes, whenever its
// Deployment makes a ReplicaSet, and whenever a per-pod Service changes.
func (r *Reconciler) watchPodServices(mgr ctrl.Manager, b *builder.Builder) (*builder.Builder, error) {
	// Every reconcile lists its app's per-pod Services: indexed by app, that reads the app's
	// own, where a label selector would scan every cached Service of the namespace.
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Service{}, podServiceAppIndex, podServiceAppOf); err != nil {
		return nil, fmt.Errorf("indexing per-pod Services by app: %w", err)
	}
	return b.
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.podServiceApp),
			builder.OnlyMetadata, builder.WithPredicates(r.podServiceInputsChanged())).
		// A pod may reach its cache before its ReplicaSet reaches theirs: it gets its Service
		// once the ReplicaSet does. A ReplicaSet's updates (its status, its scale) change
		// nothing here.
		Watches(&appsv1.ReplicaSet{}, handler.EnqueueRequestsFromMapFunc(r.podServiceApp),
			builder.OnlyMetadata, builder.WithPredicates(predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }})).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.podServiceApp),
			builder.WithPredicates(changed, predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetLabels()[wellknown.LabelPodService] != ""
			}))), nil
}

// podServicesEnabled reports whether app asks for per-pod Services.
func podServicesEnabled(app *paasv1.DemoApplication) bool {
	return app.Spec.PodServices != nil && app.Spec.PodServices.Enabled
}

// newPodService returns the Service that routes to pod alone (podServiceFor). The pod is its
// controller, so the garbage collector deletes it with the pod.
func newPodService(app *paasv1.DemoApplication, pod metav1.Object, keys wellknown.PodLabelKeys) *corev1ac.ServiceApplyConfiguration {
	return podServiceFor(app, pod.GetName(), keys).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion("v1").
			WithKind("Pod").
			WithName(pod.GetName()).
			WithUID(pod.GetUID()).
			WithController(true).
			// Not blocking: a pod's foreground deletion need not wait for its Service, and
			// blocking it would take update on pods/finalizers in every namespace, which
			// OwnerReferencesPermissionEnforcement requires for it.
			WithBlockOwnerDeletion(false))
}

// newOrdinalService returns the Service that routes to the pod of a StatefulSet app named
// name, whichever pod holds that name. The app is its controller: it stays through the pod's
// restarts, and goes when the app scales below the pod.
func newOrdinalService(app *paasv1.DemoApplication, name string, keys wellknown.PodLabelKeys) *corev1ac.ServiceApplyConfiguration {
	return podServiceFor(app, name, keys).WithOwnerReferences(ownerReference(app))
}

// podServiceFor returns, without its owner, the Service of app that routes to the pod named
// name alone: it selects the app's pods and, among them, the one whose pod-name label
// (keys.Label) holds that name.
func podServiceFor(app *paasv1.DemoApplication, name string, keys wellknown.PodLabelKeys) *corev1ac.ServiceApplyConfiguration {
	labels := labelsFor(app)
	labels[wellknown.LabelPodService] = name
	selector := selectorFor(app)
	selector[keys.Label] = name

	serviceType := corev1.ServiceTypeClusterIP
	var names []string
	if ps := app.Spec.PodServices; ps != nil {
		if ps.Type != "" {
			serviceType = ps.Type
		}
		names = ps.Ports
	}
	spec := corev1ac.ServiceSpec().WithType(serviceType).WithSelector(selector)
	for _, p := range app.Spec.Ports {
		// nodePorts are not copied: each is unique in the cluster, already the app's Service's.
		if len(names) == 0 || slices.Contains(names, p.Name) {
			spec.WithPorts(servicePort(p))
		}
	}
	return corev1ac.Service(name, app.Namespace).
		WithLabels(labels).
		WithSpec(spec)
}

// isPodService reports whether svc is a per-pod Service the operator created for app: one
// that the pod of its name controls, or app.
func isPodService(app *paasv1.DemoApplication, svc *corev1.Service) bool {
	owner := metav1.GetControllerOf(svc)
	return owner != nil && svc.Labels[wellknown.LabelPodService] == svc.Name &&
		(owner.APIVersion == "v1" && owner.Kind == "Pod" && owner.Name == svc.Name || metav1.IsControlledBy(svc, app))
}

// reconcilePodServices keeps, while app asks for per-pod Services, one for each of its pods
// that carries the pod-name label, and deletes those whose pod is gone or going, or all of
// them when app no longer asks. It records how many are in place.
func (r *Reconciler) reconcilePodServices(ctx context.Context, s *scope) {
	const step = paasv1.ReasonPodServicesFailed
	app := s.app
	if !s.workloadKnown {
		// Which pods are the app's is not known: its per-pod Services stay as they are.
		return
	}
	wanted, err := r.wantedPodServices(ctx, s)
	if err != nil {
		s.fail(step, err)
		return
	}
	existing := &corev1.ServiceList{}
	err = r.List(ctx, existing, client.InNamespace(app.Namespace), client.MatchingFields{podServiceAppIndex: app.Name})
	if err != nil {
		s.fail(step, fmt.Errorf("listing per-pod Services: %w", err))
		return
	}
	for i := range existing.Items {
		svc := &existing.Items[i]
		if want, ok := wanted[svc.Name]; (ok && metav1.IsControlledBy(svc, want.owner)) || !isPodService(app, svc) {
			continue
		}
		// The pod's Service, if it came back under the same name, is made after this
		// deletion shows in the cache, which requeues app.
		delete(wanted, svc.Name)
		done, err := r.delete(ctx, svc)
		s.note(svc, done)
		s.fail(step, err)
	}

	var ready int32
	for _, name := range slices.Sorted(maps.Keys(wanted)) {
		want := wanted[name]
		if msgs := validation.IsDNS1035Label(name); len(msgs) > 0 {
			s.misnamedPods = append(s.misnamedPods, misnamedPod{name: name, problems: msgs})
			continue
		}
		current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: app.Namespace}}
		done, err := r.apply(ctx, want.owner, current, want.service)
		s.note(current, done)
		if err != nil {
			s.fail(step, err)
			continue
		}
		ready++
	}
	s.podServices = &ready
}

// podService is a per-pod Service the app wants, and its controller.
type podService struct {
	owner   client.Object
	service *corev1ac.ServiceApplyConfiguration
}

// wantedPodServices returns, by name, the per-pod Services app wants: none when it does not
// ask; one per ordinal of its StatefulSet's desired pods; or one per labelled pod of its
// Deployment (labelledPods).
func (r *Reconciler) wantedPodServices(ctx context.Context, s *scope) (map[string]podService, error) {
	app := s.app
	wanted := map[string]podService{}
	if !podServicesEnabled(app) || s.workload == nil {
		return wanted, nil
	}
	if isStatefulSet(app) {
		for i := range s.workload.desired {
			name := fmt.Sprintf("%s-%d", app.Name, i)
			wanted[name] = podService{owner: app, service: newOrdinalService(app, name, r.PodLabels)}
		}
		return wanted, nil
	}
	pods, err := r.labelledPods(ctx, s)
	for name, pod := range pods {
		wanted[name] = podService{owner: pod, service: newPodService(app, pod, r.PodLabels)}
	}
	return wanted, err
}

// labelledPods returns, by name, the pods of app's Deployment that carry their pod-name
// label and are not being deleted: the pods that get a Service of their own.
func (r *Reconciler) labelledPods(ctx context.Context, s *scope) (map[string]*metav1.PartialObjectMetadata, error) {
	app := s.app
	wanted := map[string]*metav1.PartialObjectMetadata{}
	pods := &metav1.PartialObjectMetadataList{}
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	// The pod cache keeps, of the app's selector, the label naming the app: it is enough.
	if err := r.List(ctx, pods, client.InNamespace(app.Namespace), client.MatchingLabels{wellknown.LabelApplication: app.Name}); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if value, _ := wellknown.PodLabel(pod, r.PodLabels.Label); !pod.DeletionTimestamp.IsZero() || value != pod.Name {
			continue
		}
		runs, err := r.runs(ctx, s.workload, pod)
		if err != nil {
			return nil, err
		}
		if runs {
			wanted[pod.Name] = pod
		}
	}
	return wanted, nil
}

// podServiceAppIndex indexes the cached Services that are per-pod Services by the name of
// their app.
const podServiceAppIndex = "podServiceApp"

// podServiceAppOf is the value of podServiceAppIndex for obj, a Service: its app's name when
// it is a per-pod Service.
func podServiceAppOf(obj client.Object) []string {
	labels := obj.GetLabels()
	if labels[wellknown.LabelPodService] == "" || labels[wellknown.LabelApplication] == "" {
		return nil
	}
	return []string{labels[wellknown.LabelApplication]}
}

// podServiceApp maps a pod, or a per-pod Service, to its DemoApplication when that asks
// for per-pod Services.
func (r *Reconciler) podServiceApp(ctx context.Context, obj client.Object) []reconcile.Request {
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetLabels()[wellknown.LabelApplication]}
	app := &paasv1.DemoApplication{}
	if key.Name == "" || r.Get(ctx, key, app) != nil || !podServicesEnabled(app) {
		// Turning per-pod Services off is a spec change, which reconciles app anyway.
		return nil
	}
	return []reconcile.Request{{NamespacedName: key}}
}

// podServiceInputsChanged lets through the pod events that change which pods get a
// Service: most pod updates are status changes, which do not.
func (r *Reconciler) podServiceInputsChanged() predicate.Funcs {
	labelled := func(o client.Object) bool {
		value, _ := wellknown.PodLabel(o, r.PodLabels.Label)
		return value == o.GetName()
	}
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
