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
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The PodDisruptionBudget that bounds the evictions of the app's pods.

// disruptionBudgetKind is the app's PodDisruptionBudget, in ownedKinds. It names no parent: it
// selects the app's pods by their labels alone, whether or not the Deployment is the app's,
// and can only refuse evictions, never make or move a pod.
var disruptionBudgetKind = owned{
	name:   "PodDisruptionBudget",
	object: func() client.Object { return &policyv1.PodDisruptionBudget{} },
	failed: paasv1.ReasonDisruptionBudgetFailed,
	build:  fromApp(newDisruptionBudget),
	// The default budget comes with the defaults, at the app's next rollout.
	postponed: func(s *scope) bool { return s.defaultsBefore && s.app.Spec.DisruptionBudget == nil },
	extract:   extractWith(policyv1ac.ExtractPodDisruptionBudget),
	// A budget's status changes at every eviction and pod change: only its spec and metadata
	// are the operator's.
	watch: specOrMetadataChanged(),
}

// newDisruptionBudget returns the PodDisruptionBudget that bounds the evictions of app's
// pods, or nil when app has none: one it declares, else maxUnavailable 1 when it runs (at
// least) more than one pod. A budget on a single pod would refuse every drain.
func newDisruptionBudget(app *paasv1.DemoApplication) *policyv1ac.PodDisruptionBudgetApplyConfiguration {
	spec := policyv1ac.PodDisruptionBudgetSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))).
		// A pod that is not ready serves nothing: evicting it costs no availability, and a
		// budget that kept it would block a drain for as long as the app is broken.
		WithUnhealthyPodEvictionPolicy(policyv1.AlwaysAllow)
	switch db := app.Spec.DisruptionBudget; {
	case db != nil && db.MinAvailable != nil:
		spec.WithMinAvailable(*db.MinAvailable)
	case db != nil && db.MaxUnavailable != nil:
		spec.WithMaxUnavailable(*db.MaxUnavailable)
	case minReplicas(app) > 1:
		spec.WithMaxUnavailable(intstr.FromInt32(1))
	default:
		return nil
	}
	return policyv1ac.PodDisruptionBudget(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// minReplicas returns the fewest pods app runs when nothing fails: its autoscaler's minimum
// while it has one, its replica otherwise.
func minReplicas(app *paasv1.DemoApplication) int32 {
	if a := app.Spec.Autoscaling; a != nil {
		return ptr.Deref(a.MinReplicas, 1)
	}
	return ptr.Deref(app.Spec.Replica, 1)
}
