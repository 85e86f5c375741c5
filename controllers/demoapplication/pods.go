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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// What the Deployment's step observes of its pods: why they do not run, as the scheduler and
// the kubelet say it (podcauses.go reads it).

// observePods reads, while some of the Deployment's pods are not ready or since one changed,
// what keeps them from running: the scheduler and the kubelet say it on the pods and in their
// Events alone, and the pod cache holds only the pods' metadata. Only the pods the Deployment
// runs count: the app's label, which whoever may create a pod can set, does not make a pod
// the app's.
func (r *Reconciler) observePods(ctx context.Context, s *scope) {
	w := s.workload
	if w == nil {
		return
	}
	step := w.failed
	key := client.ObjectKeyFromObject(s.app)
	versions, err := r.podVersions(ctx, s.app)
	if err != nil {
		s.fail(step, err)
		return
	}
	if w.ready >= w.replicas && !r.podsRead.due(key, versions) {
		return
	}
	pods := &corev1.PodList{}
	// From the API server's watch cache (resourceVersion 0), as the pod cache would be.
	err = r.APIReader.List(ctx, pods, client.InNamespace(s.app.Namespace), client.MatchingLabels{wellknown.LabelApplication: s.app.Name},
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}})
	if err != nil {
		s.fail(step, fmt.Errorf("listing the %s's pods: %w", w.kind, err))
		return
	}
	view := &podsView{deadlineExceeded: w.stalled != "", now: time.Now()}
	for i := range pods.Items {
		runs, err := r.runs(ctx, w, &pods.Items[i])
		if err != nil {
			s.fail(step, err)
			return
		}
		if runs {
			view.pods = append(view.pods, pods.Items[i])
		}
	}
	if pod, claims := view.eventsFor(); pod != nil {
		if claims {
			view.events, err = r.claimEvents(ctx, pod.Namespace)
		} else {
			view.events, err = r.podEvents(ctx, pod)
		}
		if err != nil {
			s.fail(step, err)
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

// claimEvents returns the Events of the PersistentVolumeClaims of namespace, where the volume
// binder alone says why a claim stays unbound: read as podEvents are.
func (r *Reconciler) claimEvents(ctx context.Context, namespace string) ([]corev1.Event, error) {
	events := &corev1.EventList{}
	err := r.APIReader.List(ctx, events, client.InNamespace(namespace),
		client.MatchingFields{"involvedObject.kind": "PersistentVolumeClaim"}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}})
	if err != nil {
		return nil, fmt.Errorf("listing the Events of the claims of namespace %s: %w", namespace, err)
	}
	return events.Items, nil
}

// podApp maps a pod to its DemoApplication: a change of the pod's status, which the pod
// cache does not hold, may be why the app's pods cannot run, or why they now can. Whether the
// app is Ready is not asked: the cache may not hold the status that says it is not yet.
func (r *Reconciler) podApp(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetLabels()[wellknown.LabelApplication]}}}
}
