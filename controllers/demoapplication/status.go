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
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// setStatus rebuilds the app's status from what the pass observed and the failures its
// steps met. What it could not observe stays as the last reconcile wrote it, so that no
// condition claims what was not seen; Ready, Reconciling and Stalled sum up the rest for
// kstatus, and observedGeneration says which spec they describe.
func setStatus(s *scope) {
	app := s.app
	app.Status.Selector = labels.SelectorFromSet(selectorFor(app)).String()
	if s.workloadKnown {
		app.Status.Replicas, app.Status.ReadyReplicas, app.Status.AvailableReplicas = 0, 0, 0
		app.Status.DesiredReplicas = 0
		if w := s.workload; w != nil {
			app.Status.DesiredReplicas = w.desired
			app.Status.Replicas = w.replicas
			app.Status.ReadyReplicas = w.ready
			app.Status.AvailableReplicas = w.available
		}
		setAvailableCondition(s)
		setProgressingCondition(s)
	}
	if s.podServices != nil {
		app.Status.PodServices = *s.podServices
	}
	if url := observedURL(s); url != nil {
		app.Status.URL = *url
	}
	setDegradedCondition(s)
	setSummaryConditions(s)
	app.Status.ObservedGeneration = app.Generation
}

// workloadMissing returns the condition of type t when the app has no workload: none
// exists, or one of its name is someone else's.
func workloadMissing(t string, s *scope) metav1.Condition {
	kind := workloadOf(s.app)
	if held := s.conflictOf(kind.failed); held != nil {
		return metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: paasv1.ReasonResourceConflict, Message: held.Error()}
	}
	reason := paasv1.ReasonDeploymentMissing
	if isStatefulSet(s.app) {
		reason = paasv1.ReasonStatefulSetMissing
	}
	return metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: reason, Message: "The " + kind.name + " does not exist"}
}

// setAvailableCondition mirrors the workload's own word that enough pods are available.
func setAvailableCondition(s *scope) {
	c := workloadMissing(paasv1.ConditionAvailable, s)
	if w := s.workload; w != nil {
		c.Reason, c.Message = paasv1.ReasonReplicasUnavailable, "Waiting for the "+workloadOf(s.app).name+"'s pods to become available"
		if w.availableMessage != "" {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonMinimumReplicasAvailable, w.availableMessage
		}
	}
	setCondition(s.app, c)
}

// setProgressingCondition is True until the workload runs the current spec on every
// desired pod, and False once the rollout completed or stalled.
func setProgressingCondition(s *scope) {
	c := workloadMissing(paasv1.ConditionProgressing, s)
	switch w := s.workload; {
	case w == nil:
	case w.stalled != "":
		c.Reason, c.Message = paasv1.ReasonProgressDeadlineExceeded, w.stalled
	case w.rolledOut():
		c.Reason, c.Message = paasv1.ReasonRolloutComplete, "Every pod runs the current spec"
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonRollingOut, "The "+workloadOf(s.app).name+" is rolling out the current spec"
	}
	setCondition(s.app, c)
}

// setDegradedCondition is True when a step failed persistently, naming the first such
// step and what waits for its object; when the ReplicaSet cannot create pods, or the pods
// cannot run, in the cluster's words; or when the rollout stalled. A transient failure
// leaves it as it was: one timeout does not make an application degraded, nor does it
// show the spec in place.
func setDegradedCondition(s *scope) {
	c := metav1.Condition{Type: paasv1.ConditionDegraded, Status: metav1.ConditionFalse,
		Reason: paasv1.ReasonAsExpected, Message: "The " + workloadOf(s.app).name + " and Service match the spec"}
	for _, f := range s.failures {
		if !f.persistent {
			continue
		}
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, f.step, strings.Join(append([]string{f.err.Error()}, s.waiting[f.step]...), "; ")
		if f.conflict != nil {
			c.Reason = paasv1.ReasonResourceConflict
		}
		setCondition(s.app, c)
		return
	}
	if len(s.failures) > 0 {
		return
	}
	if w := s.workload; w != nil {
		if w.failedCreate != "" {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonFailedCreate, w.failedCreate
		} else if p := s.firstCause(true); p != nil {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, p.reason, p.message
		} else if w.stalled != "" {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonProgressDeadlineExceeded, w.stalled
		}
	}
	setCondition(s.app, c)
}

// setSummaryConditions sums up the others for kstatus and kubectl wait: Stalled while
// Degraded, Ready once every object is applied and the rollout complete and available,
// Reconciling otherwise. Reconciling and Stalled are present only when True, as kstatus and
// Flux's runtime conditions have them.
func setSummaryConditions(s *scope) {
	app := s.app
	degraded := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
	ready := metav1.Condition{Type: paasv1.ConditionReady, Status: metav1.ConditionFalse}
	switch working := reconciling(s); {
	case degraded != nil && degraded.Status == metav1.ConditionTrue:
		ready.Reason, ready.Message = degraded.Reason, degraded.Message
		setCondition(app, metav1.Condition{Type: paasv1.ConditionStalled, Status: metav1.ConditionTrue,
			Reason: degraded.Reason, Message: degraded.Message})
		meta.RemoveStatusCondition(&app.Status.Conditions, paasv1.ConditionReconciling)
	case working != nil:
		ready.Reason, ready.Message = working.Reason, working.Message
		setCondition(app, *working)
		meta.RemoveStatusCondition(&app.Status.Conditions, paasv1.ConditionStalled)
	default:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionTrue, paasv1.ReasonRolloutComplete,
			"Every object is applied and every pod runs the current spec"
		meta.RemoveStatusCondition(&app.Status.Conditions, paasv1.ConditionReconciling)
		meta.RemoveStatusCondition(&app.Status.Conditions, paasv1.ConditionStalled)
	}
	setCondition(app, ready)
}

// reconciling returns the Reconciling condition while the spec is not in place and nothing
// keeps it from getting there: a step to retry, a Deployment not observed or missing, a
// cause that may pass by itself, a rollout under way, pods not yet available. Nil when the spec is in place.
func reconciling(s *scope) *metav1.Condition {
	c := &metav1.Condition{Type: paasv1.ConditionReconciling, Status: metav1.ConditionTrue}
	conditions := s.app.Status.Conditions
	available := meta.FindStatusCondition(conditions, paasv1.ConditionAvailable)
	progressing := meta.FindStatusCondition(conditions, paasv1.ConditionProgressing)
	switch {
	case len(s.failures) > 0:
		c.Reason, c.Message = paasv1.ReasonRetrying, s.failures[0].err.Error()
	case !s.workloadKnown || available == nil || progressing == nil:
		c.Reason, c.Message = paasv1.ReasonRetrying, "The "+workloadOf(s.app).name+" could not be read"
	case s.firstCause(false) != nil:
		c.Reason, c.Message = s.firstCause(false).reason, s.firstCause(false).message
	case progressing.Status == metav1.ConditionTrue || progressing.Reason != paasv1.ReasonRolloutComplete:
		c.Reason, c.Message = progressing.Reason, progressing.Message
	case available.Status != metav1.ConditionTrue:
		c.Reason, c.Message = available.Reason, available.Message
	default:
		return nil
	}
	return c
}

// setCondition sets c on app, stamped with the generation it describes. Its
// lastTransitionTime only moves when its status flips.
func setCondition(app *paasv1.DemoApplication, c metav1.Condition) {
	c.ObservedGeneration = app.Generation
	meta.SetStatusCondition(&app.Status.Conditions, c)
}
