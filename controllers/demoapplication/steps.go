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
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The steps of a DemoApplication's reconcile. Each reads the app from the scope, records
// there what it observed and what it could not do, and never stops the steps after it.

// reconcileDeployment applies the desired Deployment and records the one it observed.
func (r *Reconciler) reconcileDeployment(ctx context.Context, s *scope) {
	current := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	done, err := r.apply(ctx, s.app, current, newDeployment(s.app, r.ExtraEnv, r.PodLabels))
	s.note(current, done)
	f := s.fail(paasv1.ReasonDeploymentFailed, err)
	found := done != absent
	if found {
		s.deployment = current
	}
	// Only a failed read leaves unknown whether app has a Deployment: a name held by someone
	// else, or a refused write, says it has none.
	s.deploymentKnown = found || f == nil || f.afterRead()
}

// reconcileService applies the desired Service, or deletes ours when the app has no ports.
func (r *Reconciler) reconcileService(ctx context.Context, s *scope) {
	current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newService(s.app)
	if desired == nil {
		done, err := r.deleteOwned(ctx, s.app, current)
		s.note(current, done)
		s.fail(paasv1.ReasonServiceFailed, err)
		return
	}
	if err := r.replacePorts(ctx, s.app, desired); err != nil {
		s.fail(paasv1.ReasonServiceFailed, err)
		return
	}
	done, err := r.apply(ctx, s.app, current, desired)
	s.note(current, done)
	s.fail(paasv1.ReasonServiceFailed, err)
}

// reconcilePodServices keeps, while app asks for per-pod Services, one for each of its pods
// that carries the pod-name label, and deletes those whose pod is gone or going, or all of
// them when app no longer asks. It records how many are in place.
func (r *Reconciler) reconcilePodServices(ctx context.Context, s *scope) {
	const step = paasv1.ReasonPodServicesFailed
	app := s.app
	wanted, err := r.labelledPods(ctx, app)
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
		if pod := wanted[svc.Name]; (pod != nil && metav1.IsControlledBy(svc, pod)) || !isPodService(svc) {
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
		pod := wanted[name]
		if msgs := validation.IsDNS1035Label(name); len(msgs) > 0 {
			s.misnamedPods = append(s.misnamedPods, misnamedPod{name: name, problems: msgs})
			continue
		}
		current := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: app.Namespace}}
		done, err := r.apply(ctx, pod, current, newPodService(app, pod, r.PodLabels))
		s.note(current, done)
		if err != nil {
			s.fail(step, err)
			continue
		}
		ready++
	}
	s.podServices = &ready
}

// labelledPods returns, by name, app's pods that carry their pod-name label and are not
// being deleted: the pods that get a Service of their own. None when app does not ask.
func (r *Reconciler) labelledPods(ctx context.Context, app *paasv1.DemoApplication) (map[string]*metav1.PartialObjectMetadata, error) {
	wanted := map[string]*metav1.PartialObjectMetadata{}
	if !podServicesEnabled(app) {
		return wanted, nil
	}
	pods := &metav1.PartialObjectMetadataList{}
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	// The pod cache keeps, of the app's selector, the label naming the app: it is enough.
	if err := r.List(ctx, pods, client.InNamespace(app.Namespace), client.MatchingLabels{wellknown.LabelApplication: app.Name}); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if value, _ := wellknown.PodLabel(pod, r.PodLabels.Label); pod.DeletionTimestamp.IsZero() && value == pod.Name {
			wanted[pod.Name] = pod
		}
	}
	return wanted, nil
}
