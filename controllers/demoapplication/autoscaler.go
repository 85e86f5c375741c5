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
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The HorizontalPodAutoscaler of an app that asks for one: it scales the app's Deployment,
// which it waits for, and says why it cannot.

// autoscalerKind is the app's HorizontalPodAutoscaler, in ownedKinds.
var autoscalerKind = owned{
	name:   "HorizontalPodAutoscaler",
	object: func() client.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
	failed: paasv1.ReasonAutoscalerFailed,
	build:  fromApp(newAutoscaler),
	parent: workloadOf,
	observe: func(r *Reconciler, _ context.Context, s *scope, obj client.Object) {
		r.observeAutoscaler(s, obj.(*autoscalingv2.HorizontalPodAutoscaler))
	},
	extract: extractWith(autoscalingv2ac.ExtractHorizontalPodAutoscaler),
	// An autoscaler's status changes at every metrics sync: of it, only its conditions say
	// whether it can scale the app.
	watch: specOrMetadataChanged(autoscalerConditionsChanged()),
}

// newAutoscaler returns the HorizontalPodAutoscaler that scales app's Deployment, or nil
// when app asks for none.
func newAutoscaler(app *paasv1.DemoApplication) *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration {
	a := app.Spec.Autoscaling
	if a == nil {
		return nil
	}
	spec := autoscalingv2ac.HorizontalPodAutoscalerSpec().
		WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
			WithAPIVersion(appsv1.SchemeGroupVersion.String()).WithKind(workloadOf(app).name).WithName(app.Name)).
		WithMinReplicas(ptr.Deref(a.MinReplicas, 1)).
		WithMaxReplicas(a.MaxReplicas)
	for _, target := range []struct {
		resource    corev1.ResourceName
		utilization *int32
	}{{corev1.ResourceCPU, a.TargetCPUUtilizationPercentage}, {corev1.ResourceMemory, a.TargetMemoryUtilizationPercentage}} {
		if target.utilization == nil {
			continue
		}
		spec.WithMetrics(autoscalingv2ac.MetricSpec().
			WithType(autoscalingv2.ResourceMetricSourceType).
			WithResource(autoscalingv2ac.ResourceMetricSource().
				WithName(target.resource).
				WithTarget(autoscalingv2ac.MetricTarget().
					WithType(autoscalingv2.UtilizationMetricType).
					WithAverageUtilization(*target.utilization))))
	}
	spec.WithBehavior(converted[*autoscalingv2ac.HorizontalPodAutoscalerBehaviorApplyConfiguration](a.Behavior))
	return autoscalingv2ac.HorizontalPodAutoscaler(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// observeAutoscaler records why hpa, the app's, cannot scale it, if it cannot.
func (r *Reconciler) observeAutoscaler(s *scope, hpa *autoscalingv2.HorizontalPodAutoscaler) {
	c, recheck := autoscalerCause(hpa, time.Now(), r.gracePeriod())
	if c != nil {
		s.causes = append(s.causes, c)
	}
	s.recheck(recheck)
}

// autoscalerCause returns why hpa cannot scale, in its own words: it cannot read or write the
// Deployment's scale (AbleToScale False) or cannot compute one (ScalingActive False: no
// metrics, no resource request). The cause stalls once its condition has been False for
// grace; until then, recheck says when it will.
func autoscalerCause(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time, grace time.Duration) (c *cause, recheck time.Duration) {
	for _, check := range []struct {
		condition autoscalingv2.HorizontalPodAutoscalerConditionType
		reason    string
	}{
		{autoscalingv2.AbleToScale, paasv1.ReasonAutoscalerUnableToScale},
		{autoscalingv2.ScalingActive, paasv1.ReasonAutoscalingInactive},
	} {
		for _, cond := range hpa.Status.Conditions {
			if cond.Type != check.condition || cond.Status != corev1.ConditionFalse {
				continue
			}
			c = &cause{reason: check.reason, message: fmt.Sprintf("HorizontalPodAutoscaler %s: %s", hpa.Name, cond.Message)}
			left := cond.LastTransitionTime.Add(grace).Sub(now)
			if c.stalls = left <= 0; !c.stalls {
				recheck = left
			}
			return c, recheck
		}
	}
	return nil, 0
}

// autoscalerConditionsChanged lets through the autoscaler updates that change one of its
// conditions' type, status or reason: its metrics and current replicas change at every sync,
// and would reconcile the app each time.
func autoscalerConditionsChanged() predicate.Funcs {
	type key struct {
		t      autoscalingv2.HorizontalPodAutoscalerConditionType
		status corev1.ConditionStatus
		reason string
	}
	keys := func(obj client.Object) []key {
		hpa, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
		if !ok {
			return nil
		}
		out := make([]key, 0, len(hpa.Status.Conditions))
		for _, c := range hpa.Status.Conditions {
			out = append(out, key{c.Type, c.Status, c.Reason})
		}
		return out
	}
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(e event.UpdateEvent) bool { return !slices.Equal(keys(e.ObjectOld), keys(e.ObjectNew)) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
