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
	"hash/fnv"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The steps of a DemoApplication's reconcile. Each reads the app from the scope, records
// there what it observed and what it could not do, and never stops the steps after it.

// reconcileDeployment applies the desired Deployment and records the one it observed.
func (r *Reconciler) reconcileDeployment(ctx context.Context, s *scope) {
	current := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newDeployment(s.app, r.ExtraEnv, r.PodLabels)
	var done outcome
	// The Deployment as the cache holds it, nil when it holds none, for the writes the apply
	// cannot make.
	live := &appsv1.Deployment{}
	err := r.Get(ctx, client.ObjectKeyFromObject(s.app), live)
	if apierrors.IsNotFound(err) {
		live, err = nil, nil
	} else if err != nil {
		err = fmt.Errorf("getting Deployment %s: %w", klog.KObj(s.app), err)
	}
	if err == nil {
		var level string
		level, err = r.enforcedPodSecurity(ctx, s.app.Namespace)
		withPodSecurityDefaults(desired, level)
	}
	if err == nil {
		err = r.withConfigHash(ctx, s, live, desired)
	}
	if err == nil {
		s.defaultsBefore, err = withDefaults(s.app, live, desired)
	}
	if err == nil {
		err = r.replaceStrategy(ctx, s.app, live)
	}
	if err == nil && s.app.Spec.Autoscaling != nil {
		err = r.handOverReplicas(ctx, s.app, live, desired)
	}
	if err == nil {
		done, err = r.apply(ctx, s.app, current, desired)
		s.note(current, done)
	}
	f := s.fail(paasv1.ReasonDeploymentFailed, err)
	if done != absent {
		s.deployment = current
	}
	s.deploymentKnown = known(done, f)
}

// known reports whether a step that did done and met f knows if the app has its object:
// only a failed read leaves that unknown; a name held by someone else, or a refused write,
// says it has none.
func known(done outcome, f *failure) bool {
	return done != absent || f == nil || f.afterRead()
}

// observePods reads, while some of the Deployment's pods are not ready or since one changed,
// what keeps them from running: the scheduler and the kubelet say it on the pods and in their
// Events alone, and the pod cache holds only the pods' metadata. Only the pods the Deployment
// runs count: the app's label, which whoever may create a pod can set, does not make a pod
// the app's.
func (r *Reconciler) observePods(ctx context.Context, s *scope) {
	d := s.deployment
	if d == nil {
		return
	}
	key := client.ObjectKeyFromObject(s.app)
	versions, err := r.podVersions(ctx, s.app)
	if err != nil {
		s.fail(paasv1.ReasonDeploymentFailed, err)
		return
	}
	if d.Status.ReadyReplicas >= d.Status.Replicas && !r.podsRead.due(key, versions) {
		return
	}
	pods := &corev1.PodList{}
	// From the API server's watch cache (resourceVersion 0), as the pod cache would be.
	err = r.APIReader.List(ctx, pods, client.InNamespace(s.app.Namespace), client.MatchingLabels{wellknown.LabelApplication: s.app.Name},
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}})
	if err != nil {
		s.fail(paasv1.ReasonDeploymentFailed, fmt.Errorf("listing the Deployment's pods: %w", err))
		return
	}
	view := &podsView{deadlineExceeded: progressDeadlineExceeded(d), now: time.Now()}
	for i := range pods.Items {
		runs, err := r.runs(ctx, d, &pods.Items[i])
		if err != nil {
			s.fail(paasv1.ReasonDeploymentFailed, err)
			return
		}
		if runs {
			view.pods = append(view.pods, pods.Items[i])
		}
	}
	if pod := view.eventsFor(); pod != nil {
		if view.events, err = r.podEvents(ctx, pod); err != nil {
			s.fail(paasv1.ReasonDeploymentFailed, err)
			return
		}
	}
	c, recheck := view.podsCause()
	if c != nil {
		s.causes = append(s.causes, c)
	}
	if recheck {
		s.recheck(eventsRecheck)
	}
	s.news = append(s.news, r.podsRead.read(key, versions, recheck, view.pods, view.news())...)
}

// podVersions returns a digest of the UIDs and resourceVersions of the app's pods in the pod
// cache, which changes with any change of a pod, its status included.
func (r *Reconciler) podVersions(ctx context.Context, app *paasv1.DemoApplication) (uint64, error) {
	pods := &metav1.PartialObjectMetadataList{}
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	// Read only: no copy of every pod's metadata at every pass.
	if err := r.List(ctx, pods, client.InNamespace(app.Namespace), client.MatchingLabels{wellknown.LabelApplication: app.Name},
		client.UnsafeDisableDeepCopy); err != nil {
		return 0, fmt.Errorf("listing pods: %w", err)
	}
	versions := make([]string, 0, len(pods.Items))
	for _, pod := range pods.Items {
		versions = append(versions, string(pod.UID)+"@"+pod.ResourceVersion)
	}
	slices.Sort(versions)
	digest := fnv.New64a()
	for _, v := range versions {
		_, _ = digest.Write([]byte(v + ","))
	}
	return digest.Sum64(), nil
}

// podEvents returns pod's Events, where the kubelet alone says why a probe failed or a volume
// did not mount. The API server keeps no watch cache of Events: this reads etcd, for one pod
// of an app whose pods do not run, at most once a pass.
func (r *Reconciler) podEvents(ctx context.Context, pod *corev1.Pod) ([]corev1.Event, error) {
	events := &corev1.EventList{}
	err := r.APIReader.List(ctx, events, client.InNamespace(pod.Namespace),
		client.MatchingFields{"involvedObject.uid": string(pod.UID)}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}})
	if err != nil {
		return nil, fmt.Errorf("listing the Events of pod %s: %w", klog.KObj(pod), err)
	}
	return events.Items, nil
}

// replaceStrategy writes the Deployment's strategy type, with no rollingUpdate, when it is not
// the one app declares (RollingUpdate unless it says Recreate): applying cannot switch it, as
// the rollingUpdate the API server defaulted is no one's field, and Recreate refuses one; nor
// can it take back a type another writer (or this one's own switch) still holds once the spec
// drops it. The write is guarded by the resourceVersion it was computed from; the apply that
// follows sets the declared bounds, or the API server defaults them.
func (r *Reconciler) replaceStrategy(ctx context.Context, app *paasv1.DemoApplication, d *appsv1.Deployment) error {
	if d == nil || !metav1.IsControlledBy(d, app) {
		return nil
	}
	want := appsv1.RollingUpdateDeploymentStrategyType
	if st := app.Spec.Strategy; st != nil && st.Type != "" {
		want = st.Type
	}
	if d.Spec.Strategy.Type == want {
		return nil
	}
	patched := d.DeepCopy()
	patched.Spec.Strategy = appsv1.DeploymentStrategy{Type: want}
	patch := client.MergeFromWithOptions(d, client.MergeFromWithOptimisticLock{})
	if err := r.Patch(ctx, patched, patch, client.FieldOwner(wellknown.FieldManager)); err != nil {
		return fmt.Errorf("switching Deployment %s to strategy %s: %w", klog.KObj(d), want, err)
	}
	return nil
}

// handOverReplicas keeps the Deployment's replicas as they are when autoscaling takes them:
// an apply that stops declaring a field the operator alone owns removes it, and the
// Deployment would fall back to one pod until the autoscaler scales it again. Another
// manager first applies the same value, and holds it until the autoscaler writes its own.
// A Deployment yet to be created starts at the autoscaler's minimum (desired declares it),
// which the next pass hands over.
func (r *Reconciler) handOverReplicas(ctx context.Context, app *paasv1.DemoApplication, d *appsv1.Deployment,
	desired *appsv1ac.DeploymentApplyConfiguration) error {
	if d == nil {
		desired.Spec.WithReplicas(ptr.Deref(app.Spec.Autoscaling.MinReplicas, 1))
		return nil
	}
	if !metav1.IsControlledBy(d, app) {
		return nil
	}
	owned, err := appsv1ac.ExtractDeployment(d, wellknown.FieldManager)
	if err != nil {
		return fmt.Errorf("reading the fields of Deployment %s the operator owns: %w", klog.KObj(d), err)
	}
	if owned.Spec == nil || owned.Spec.Replicas == nil {
		return nil
	}
	handover := appsv1ac.Deployment(d.Name, d.Namespace).
		WithUID(d.UID).
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(ptr.Deref(d.Spec.Replicas, 1)))
	if err := r.Apply(ctx, handover, client.FieldOwner(ReplicasHandoverManager)); err != nil {
		return fmt.Errorf("handing the replicas of Deployment %s to its autoscaler: %w", klog.KObj(d), err)
	}
	return nil
}

// ReplicasHandoverManager is the field manager that holds a Deployment's replicas between the
// operator letting them go and the autoscaler's first write.
const ReplicasHandoverManager = wellknown.FieldManager + "-replicas-handover"

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

// reconcileIngress applies the desired Ingress while the app has its Service, or deletes
// ours when the app asks for none or has no Service: the Ingress names its Service alone,
// and would route to whichever holds that name. It records the app's URL.
func (r *Reconciler) reconcileIngress(ctx context.Context, s *scope) {
	const step = paasv1.ReasonIngressFailed
	current := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newIngress(s.app)
	switch {
	case desired == nil:
		r.deleteStep(ctx, s, step, current)
		s.url = ptr.To(urlOf(s.app))
	case !s.serviceKnown:
		// Whether the Service is the app's is not known: the Ingress stays as it is.
	case s.service == nil:
		s.wait(paasv1.ReasonServiceFailed, "the Ingress waits for a Service of the app's own")
		r.deleteStep(ctx, s, step, current)
		s.url = ptr.To("")
	default:
		if r.applyStep(ctx, s, step, current, desired) != absent {
			r.observeIngress(ctx, s, current)
		}
		s.url = ptr.To(urlOf(s.app))
	}
}

// reconcileAutoscaler applies the desired HorizontalPodAutoscaler while the app has its
// Deployment, or deletes ours when the app asks for none or has no Deployment: the
// autoscaler names its Deployment alone, and would scale whichever holds that name.
func (r *Reconciler) reconcileAutoscaler(ctx context.Context, s *scope) {
	const step = paasv1.ReasonAutoscalerFailed
	current := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newAutoscaler(s.app)
	switch {
	case desired == nil:
		r.deleteStep(ctx, s, step, current)
	case !s.deploymentKnown:
		// Whether the Deployment is the app's is not known: the autoscaler stays as it is.
	case s.deployment == nil:
		s.wait(paasv1.ReasonDeploymentFailed, "the HorizontalPodAutoscaler waits for a Deployment of the app's own")
		r.deleteStep(ctx, s, step, current)
	default:
		if r.applyStep(ctx, s, step, current, desired) != absent {
			r.observeAutoscaler(s, current)
		}
	}
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

// reconcilePodServices keeps, while app asks for per-pod Services, one for each of its pods
// that carries the pod-name label, and deletes those whose pod is gone or going, or all of
// them when app no longer asks. It records how many are in place.
func (r *Reconciler) reconcilePodServices(ctx context.Context, s *scope) {
	const step = paasv1.ReasonPodServicesFailed
	app := s.app
	if !s.deploymentKnown {
		// Which pods are the app's is not known: its per-pod Services stay as they are.
		return
	}
	wanted, err := r.labelledPods(ctx, s)
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
func (r *Reconciler) labelledPods(ctx context.Context, s *scope) (map[string]*metav1.PartialObjectMetadata, error) {
	app := s.app
	wanted := map[string]*metav1.PartialObjectMetadata{}
	if !podServicesEnabled(app) || s.deployment == nil {
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
		if value, _ := wellknown.PodLabel(pod, r.PodLabels.Label); !pod.DeletionTimestamp.IsZero() || value != pod.Name {
			continue
		}
		runs, err := r.runs(ctx, s.deployment, pod)
		if err != nil {
			return nil, err
		}
		if runs {
			wanted[pod.Name] = pod
		}
	}
	return wanted, nil
}

// runs reports whether pod is one of d's: controlled by a ReplicaSet that d controls. The
// app's label, which whoever may create a pod can set, does not make a pod the app's.
func (r *Reconciler) runs(ctx context.Context, d *appsv1.Deployment, pod metav1.Object) (bool, error) {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.APIVersion != appsv1.SchemeGroupVersion.String() || ref.Kind != "ReplicaSet" {
		return false, nil
	}
	rs := &metav1.PartialObjectMetadata{}
	rs.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
	if err := r.Get(ctx, client.ObjectKey{Namespace: pod.GetNamespace(), Name: ref.Name}, rs); apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("getting ReplicaSet %s: %w", klog.KRef(pod.GetNamespace(), ref.Name), err)
	}
	return rs.UID == ref.UID && metav1.IsControlledBy(rs, d), nil
}
