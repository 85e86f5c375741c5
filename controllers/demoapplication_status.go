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
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// observed is what one reconcile saw of app's children, for its status.
type observed struct {
	// deployment is app's Deployment, nil when there is none; deploymentRead is false when
	// reading it failed, and deploymentHeld says who holds a Deployment of app's name.
	deployment     *appsv1.Deployment
	deploymentRead bool
	deploymentHeld *conflictError
	// podServices counts the per-pod Services in place; nil when they could not be listed.
	podServices *int32
}

// stepError is the failure of one step of the reconcile; reason names the step.
type stepError struct {
	reason string
	err    error
}

func (e *stepError) Error() string { return e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// stepFailed returns err as a failure of the step that reason names; nil when err is.
func stepFailed(reason string, err error) error {
	if err == nil {
		return nil
	}
	return &stepError{reason: reason, err: err}
}

// persistent reports whether err will come back on its own until someone acts: a name held
// by someone else, or a request the API server refused (forbidden by RBAC, a quota or an
// admission webhook or policy; invalid). Anything else (a timeout, throttling, an API
// server unavailable, a stale read) is transient and retried.
func persistent(err error) bool {
	var conflict *conflictError
	return errors.As(err, &conflict) ||
		apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) ||
		apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsRequestEntityTooLargeError(err) || apierrors.IsMethodNotSupported(err)
}

// setStatus rebuilds app's status from what the reconcile observed and the errors its
// steps met. What it could not observe stays as the last reconcile wrote it, so that no
// condition claims what was not seen; observedGeneration advances only when every step
// succeeded, that is when the whole spec is in place.
func setStatus(app *paasv1.DemoApplication, seen *observed, errs []error) {
	if seen.deploymentRead {
		app.Status.Replicas, app.Status.ReadyReplicas, app.Status.AvailableReplicas = 0, 0, 0
		if d := seen.deployment; d != nil {
			app.Status.Replicas = d.Status.Replicas
			app.Status.ReadyReplicas = d.Status.ReadyReplicas
			app.Status.AvailableReplicas = d.Status.AvailableReplicas
		}
		setAvailableCondition(app, seen)
		setProgressingCondition(app, seen)
	}
	if seen.podServices != nil {
		app.Status.PodServices = *seen.podServices
	}
	setDegradedCondition(app, seen, errs)
	if len(errs) == 0 {
		app.Status.ObservedGeneration = app.Generation
	}
}

// deploymentMissing returns the condition c says when app has no Deployment: none exists,
// or one of its name is someone else's.
func deploymentMissing(t string, seen *observed) metav1.Condition {
	if held := seen.deploymentHeld; held != nil {
		return metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: paasv1.ReasonResourceConflict, Message: held.Error()}
	}
	return metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: paasv1.ReasonDeploymentMissing, Message: "The Deployment does not exist"}
}

// setAvailableCondition mirrors the Deployment's own Available condition.
func setAvailableCondition(app *paasv1.DemoApplication, seen *observed) {
	c := deploymentMissing(paasv1.ConditionAvailable, seen)
	if deployment := seen.deployment; deployment != nil {
		c.Reason, c.Message = paasv1.ReasonReplicasUnavailable, "Waiting for the Deployment's pods to become available"
		if d := deploymentCondition(deployment, appsv1.DeploymentAvailable); d != nil && d.Status == corev1.ConditionTrue {
			c.Status, c.Reason = metav1.ConditionTrue, paasv1.ReasonMinimumReplicasAvailable
			c.Message = d.Message
		}
	}
	setCondition(app, c)
}

// setProgressingCondition is True until the Deployment runs the current spec on every
// desired pod, and False once the rollout completed or stalled.
func setProgressingCondition(app *paasv1.DemoApplication, seen *observed) {
	c := deploymentMissing(paasv1.ConditionProgressing, seen)
	switch deployment := seen.deployment; {
	case deployment == nil:
	case progressDeadlineExceeded(deployment):
		c.Reason, c.Message = paasv1.ReasonProgressDeadlineExceeded, deploymentCondition(deployment, appsv1.DeploymentProgressing).Message
	case rolledOut(deployment):
		c.Reason, c.Message = paasv1.ReasonRolloutComplete, "Every pod runs the current spec"
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonRollingOut, "The Deployment is rolling out the current spec"
	}
	setCondition(app, c)
}

// setDegradedCondition is True when a step failed persistently, naming the first such
// step, or when the rollout stalled. A transient failure leaves it as it was: one timeout
// does not make an application degraded, nor does it show the spec in place.
func setDegradedCondition(app *paasv1.DemoApplication, seen *observed, errs []error) {
	c := metav1.Condition{Type: paasv1.ConditionDegraded, Status: metav1.ConditionFalse,
		Reason: paasv1.ReasonAsExpected, Message: "The Deployment and Service match the spec"}
	for _, err := range errs {
		if !persistent(err) {
			continue
		}
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonResourceConflict, err.Error()
		var step *stepError
		if conflict := (*conflictError)(nil); !errors.As(err, &conflict) && errors.As(err, &step) {
			c.Reason = step.reason
		}
		setCondition(app, c)
		return
	}
	if len(errs) > 0 {
		return
	}
	if d := seen.deployment; d != nil && progressDeadlineExceeded(d) {
		c.Status, c.Reason = metav1.ConditionTrue, paasv1.ReasonProgressDeadlineExceeded
		c.Message = deploymentCondition(d, appsv1.DeploymentProgressing).Message
	}
	setCondition(app, c)
}

// setCondition sets c on app, stamped with the generation it describes. Its
// lastTransitionTime only moves when its status flips.
func setCondition(app *paasv1.DemoApplication, c metav1.Condition) {
	c.ObservedGeneration = app.Generation
	meta.SetStatusCondition(&app.Status.Conditions, c)
}

// rolledOut reports whether the Deployment has observed its spec and every desired pod
// is updated and available, with no old pod left.
func rolledOut(d *appsv1.Deployment) bool {
	want := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	return s.ObservedGeneration >= d.Generation &&
		s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
}

func progressDeadlineExceeded(d *appsv1.Deployment) bool {
	c := deploymentCondition(d, appsv1.DeploymentProgressing)
	return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded"
}

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
