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
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// Event reasons of the DemoApplication controller.
const (
	// EventCreated: owned objects were created after the app's first pass; one Event names
	// all a pass created.
	EventCreated = "Created"
	// EventUpdated: an owned object was brought back to the spec.
	EventUpdated = "Updated"
	// EventDeleted: an owned object the spec no longer asks for was deleted.
	EventDeleted = "Deleted"
	// EventResourceConflict: an object of the wanted name exists and is not ours.
	EventResourceConflict = paasv1.ReasonResourceConflict
	// EventApplyFailed: the API server refused an owned object.
	EventApplyFailed = "ApplyFailed"
	// EventPodServiceNameInvalid: a pod's name is not a valid Service name, so it gets no
	// per-pod Service.
	EventPodServiceNameInvalid = "PodServiceNameInvalid"
	// EventSecretRolloutOff: rolloutOnConfigChange covers Secrets the pods read, and the
	// operator, installed without --config-rollout-secrets, does not read them: their
	// changes roll nothing. Once per spec change.
	EventSecretRolloutOff = "SecretRolloutOff"
	// What keeps the pods from running, as the cluster says it, is a Warning Event of
	// Degraded's reason, once when it starts, not per pass: paasv1.ReasonFailedCreate (the
	// ReplicaSet cannot create pods), ReasonUnschedulable, ReasonVolumeMountFailed,
	// ReasonImagePullBackOff, ReasonCreateContainerError, ReasonOOMKilled,
	// ReasonCrashLoopBackOff, ReasonReadinessProbeFailed (past the progress deadline).
	// What no condition keeps is a Warning Event once, about the pod: paasv1.ReasonOOMKilled
	// (a container killed for its memory is ready again), ReasonEvicted (a pod was evicted).
	// Any other failure that lasts until someone acts (a delete refused by an admission
	// policy, a read forbidden by RBAC) is a Warning Event whose reason names the step, as
	// the Degraded condition does: paasv1.ReasonDeploymentFailed, ReasonServiceFailed,
	// ReasonPodServicesFailed.
)

// recordEvents turns the scope into the app's Events, at the end of every pass: what the
// pass created, updated and deleted, the pods it could give no Service, on a new spec the
// Secrets whose changes roll nothing, the news of its pods, and what kept the app from its
// spec. Nothing else raises a DemoApplication's Events.
func (r *Reconciler) recordEvents(s *scope) {
	r.recordCreated(s)
	for _, obj := range s.updated {
		r.Recorder.Eventf(regarding(s.app), r.related(obj), corev1.EventTypeNormal, EventUpdated, "Apply", "Updated %s %s", r.kindOf(obj), obj.GetName())
	}
	for _, obj := range s.deleted {
		r.Recorder.Eventf(regarding(s.app), r.related(obj), corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s", r.kindOf(obj), obj.GetName())
	}
	for _, pod := range s.misnamedPods {
		r.Recorder.Eventf(regarding(s.app), nil, corev1.EventTypeWarning, EventPodServiceNameInvalid, "Apply",
			"Pod %s gets no Service of its own: its name is not a valid Service name: %s", pod.name, strings.Join(pod.problems, "; "))
	}
	// Told on a spec the status has not yet reported on: the spec alone decides it.
	if len(s.unrolledSecrets) > 0 && s.app.Generation != s.app.Status.ObservedGeneration {
		r.Recorder.Eventf(regarding(s.app), nil, corev1.EventTypeNormal, EventSecretRolloutOff, "Reconcile", "%s", listNote(
			"rolloutOnConfigChange rolls the pods on ConfigMaps only: the operator is installed without --config-rollout-secrets "+
				"and reads no Secret. Not rolled on the Secrets read by ", s.unrolledSecrets))
	}
	for _, n := range s.news {
		r.Recorder.Eventf(regarding(s.app), r.related(n.pod), corev1.EventTypeWarning, n.reason, "Reconcile", "%s", n.message)
	}
	r.recordFailures(s)
}

// recordTransitions raises a Warning Event when the app's status, now written, starts saying
// what keeps its pods from running (the cluster's causes); before is the status the pass
// read. Told only once written, so that a pass on a stale copy, whose write is refused,
// tells nothing twice. The messages name pods, which come and go, so only reasons are
// compared.
func (r *Reconciler) recordTransitions(s *scope, before *paasv1.DemoApplicationStatus) {
	now := meta.FindStatusCondition(s.app.Status.Conditions, paasv1.ConditionDegraded)
	if now == nil || now.Status != metav1.ConditionTrue || !clusterCause(now.Reason) {
		return
	}
	if was := meta.FindStatusCondition(before.Conditions, paasv1.ConditionDegraded); was != nil && was.Status == now.Status && was.Reason == now.Reason {
		return
	}
	var related runtime.Object
	if s.workload != nil {
		related = r.related(s.workload.object)
	}
	r.Recorder.Eventf(regarding(s.app), related, corev1.EventTypeWarning, now.Reason, "Reconcile", "%s", now.Message)
}

// clusterCause reports whether reason, Degraded's, is a cause the cluster reports on the
// Deployment or its pods rather than a failed step.
func clusterCause(reason string) bool {
	return reason == paasv1.ReasonFailedCreate || slices.Contains(podCauses, reason) || slices.Contains(servingCauses, reason)
}

// recordCreated records what the pass created as one Event of its app, for kubectl describe,
// as kube-controller-manager's controllers do (a ReplicaSet's SuccessfulCreate): an object
// someone deleted and the operator made again, per-pod Services for a scale-up. Not on the
// app's first pass: its status reports the new Deployment and Service from then on, and an
// Event would be a request per new app that no one needs (bench/RESULTS.md counts them).
// One Event for the pass rather than one per object, as the events library aggregates them.
func (r *Reconciler) recordCreated(s *scope) {
	if len(s.created) == 0 || s.first {
		return
	}
	created := make([]string, 0, len(s.created))
	for _, obj := range s.created {
		created = append(created, r.kindOf(obj)+" "+obj.GetName())
	}
	r.Recorder.Eventf(regarding(s.app), nil, corev1.EventTypeNormal, EventCreated, "Apply", "%s", listNote("Created ", created))
}

// noteLimit is the longest note the API server accepts in an Event.
const noteLimit = 1024

// listNote is lead followed by as many of items as fit in an Event's note, the rest counted.
func listNote(lead string, items []string) string {
	note := lead + items[0]
	for i := 1; i < len(items); i++ {
		next := ", " + items[i]
		// Keep room for counting what would be left after this one.
		room := 0
		if left := len(items) - i - 1; left > 0 {
			room = len(fmt.Sprintf(" and %d more", left))
		}
		if len(note)+len(next)+room > noteLimit {
			return note + fmt.Sprintf(" and %d more", len(items)-i)
		}
		note += next
	}
	return note
}

// recordFailures makes the failures of the pass Warning Events of its app, so that kubectl
// describe shows them beside the Degraded condition: every name held by someone else (the
// Event names that object as related, so that a conflict over the Deployment and one over
// the Service stay two Events), every apply the API server refused, and any other failure
// that lasts until someone acts. A transient failure is retried and raises none.
func (r *Reconciler) recordFailures(s *scope) {
	for _, f := range s.failures {
		switch {
		case f.conflict != nil:
			r.Recorder.Eventf(regarding(s.app), r.related(f.conflict.held), corev1.EventTypeWarning, EventResourceConflict, "Apply",
				"%s; it is left untouched", f.conflict)
		case f.refused != nil:
			r.Recorder.Eventf(regarding(s.app), nil, corev1.EventTypeWarning, EventApplyFailed, "Apply",
				"Applying %s %s failed: %v", f.refused.kind, f.refused.name, f.refused.err)
		case f.persistent:
			r.Recorder.Eventf(regarding(s.app), nil, corev1.EventTypeWarning, f.step, "Reconcile", "%v", f.err)
		}
	}
}

// regarding refers to app in its Events as reference does.
func regarding(app *paasv1.DemoApplication) *corev1.ObjectReference {
	return reference(paasv1.GroupVersion.WithKind("DemoApplication"), app)
}

// related refers to obj, the object an Event of an app is about, as reference does; nil
// when obj's kind is unknown.
func (r *Reconciler) related(obj client.Object) runtime.Object {
	gvk, err := r.GroupVersionKindFor(obj)
	if err != nil {
		return nil
	}
	return reference(gvk, obj)
}

// reference refers to obj by kind, name and UID, without its resourceVersion. The events
// library counts a repeated Event on one series only when its references are the same,
// resourceVersions included; every status write changes the app's, and the controllers of
// someone else's object change its, so a failure that lasts would otherwise make a new Event
// on every pass instead of counting on the first.
func reference(gvk schema.GroupVersionKind, obj metav1.Object) *corev1.ObjectReference {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return &corev1.ObjectReference{
		APIVersion: apiVersion,
		Kind:       kind,
		Namespace:  obj.GetNamespace(),
		Name:       obj.GetName(),
		UID:        obj.GetUID(),
	}
}
