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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// setStatus rebuilds app's status from the Deployment observed (nil when there is none),
// the number of per-pod Services in place, and the error the reconcile met: nil, a
// conflictError or an applyError.
func setStatus(app *paasv1.DemoApplication, deployment *appsv1.Deployment, podServices int32, err error) {
	app.Status.Replicas, app.Status.ReadyReplicas, app.Status.AvailableReplicas = 0, 0, 0
	app.Status.PodServices = podServices
	if deployment != nil {
		app.Status.Replicas = deployment.Status.Replicas
		app.Status.ReadyReplicas = deployment.Status.ReadyReplicas
		app.Status.AvailableReplicas = deployment.Status.AvailableReplicas
	}
	setAvailableCondition(app, deployment)
	setProgressingCondition(app, deployment)
	setDegradedCondition(app, deployment, err)
	if err == nil {
		app.Status.ObservedGeneration = app.Generation
	}
}

// setAvailableCondition mirrors the Deployment's own Available condition.
func setAvailableCondition(app *paasv1.DemoApplication, deployment *appsv1.Deployment) {
	c := metav1.Condition{Type: paasv1.ConditionAvailable, Status: metav1.ConditionFalse,
		Reason: paasv1.ReasonDeploymentMissing, Message: "The Deployment does not exist"}
	if deployment != nil {
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
func setProgressingCondition(app *paasv1.DemoApplication, deployment *appsv1.Deployment) {
	c := metav1.Condition{Type: paasv1.ConditionProgressing, Status: metav1.ConditionFalse,
		Reason: paasv1.ReasonDeploymentMissing, Message: "The Deployment does not exist"}
	switch {
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

// setDegradedCondition is True when the reconcile failed or the rollout stalled.
func setDegradedCondition(app *paasv1.DemoApplication, deployment *appsv1.Deployment, err error) {
	c := metav1.Condition{Type: paasv1.ConditionDegraded, Status: metav1.ConditionFalse,
		Reason: paasv1.ReasonAsExpected, Message: "The Deployment and Service match the spec"}
	var conflict *conflictError
	var applyErr *applyError
	switch {
	case errors.As(err, &conflict):
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonResourceConflict, conflict.Error()
	case errors.As(err, &applyErr):
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, paasv1.ReasonApplyFailed, applyErr.Error()
	case deployment != nil && progressDeadlineExceeded(deployment):
		c.Status, c.Reason = metav1.ConditionTrue, paasv1.ReasonProgressDeadlineExceeded
		c.Message = deploymentCondition(deployment, appsv1.DeploymentProgressing).Message
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
