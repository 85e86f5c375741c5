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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The workload is the object that runs the app's pods. What the steps after it (the pods'
// causes, the per-pod Services) and the status read of it, they read here, in terms every
// workload kind has: its kind's own fields stay in its file.

// workload is what a pass observed of the object that runs the app's pods.
type workload struct {
	// object is the object as applied; kind its kind, and failed the reason of its step's
	// failures.
	object       client.Object
	kind, failed string
	// desired is how many pods it is to run; replicas, updated, ready and available are how
	// many it runs, of them of the current template, ready, and available.
	desired, replicas, updated, ready, available int32
	// observed is set once its controller has acted on its current spec.
	observed bool
	// availableMessage is its controller's word that enough pods are available, empty while
	// they are not.
	availableMessage string
	// stalled is its controller's word that the rollout stopped progressing, empty while it
	// has not.
	stalled string
	// failedCreate is its controller's word that it cannot create pods, empty while it can.
	failedCreate string
}

// observeDeployment returns what the status and the later steps read of d.
func observeDeployment(d *appsv1.Deployment) *workload {
	w := &workload{
		object: d,
		kind:   "Deployment", failed: paasv1.ReasonDeploymentFailed,
		desired:  ptr.Deref(d.Spec.Replicas, 1),
		replicas: d.Status.Replicas, updated: d.Status.UpdatedReplicas,
		ready: d.Status.ReadyReplicas, available: d.Status.AvailableReplicas,
		observed: d.Status.ObservedGeneration >= d.Generation,
	}
	if c := deploymentCondition(d, appsv1.DeploymentAvailable); c != nil && c.Status == corev1.ConditionTrue {
		w.availableMessage = c.Message
	}
	if c := deploymentCondition(d, appsv1.DeploymentProgressing); c != nil && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
		w.stalled = c.Message
	}
	if c := deploymentCondition(d, appsv1.DeploymentReplicaFailure); c != nil && c.Status == corev1.ConditionTrue {
		w.failedCreate = c.Message
	}
	return w
}

// rolledOut reports whether the workload has observed its spec and every desired pod is
// updated and available, with no old pod left.
func (w *workload) rolledOut() bool {
	return w.observed && w.updated == w.desired && w.replicas == w.desired && w.available == w.desired
}

// runs reports whether pod is one of w's: for a StatefulSet, controlled by it; for a
// Deployment, controlled by a ReplicaSet that the Deployment controls. The app's label, which
// whoever may create a pod can set, does not make a pod the app's.
func (r *Reconciler) runs(ctx context.Context, w *workload, pod metav1.Object) (bool, error) {
	if _, ok := w.object.(*appsv1.StatefulSet); ok {
		return metav1.IsControlledBy(pod, w.object), nil
	}
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
	return rs.UID == ref.UID && metav1.IsControlledBy(rs, w.object), nil
}

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
