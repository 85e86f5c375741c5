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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/event"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

func autoscaler(conditions ...autoscalingv2.HorizontalPodAutoscalerCondition) *autoscalingv2.HorizontalPodAutoscaler {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	hpa.Status.Conditions = conditions
	return hpa
}

func hpaFalse(t autoscalingv2.HorizontalPodAutoscalerConditionType, since time.Time) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: corev1.ConditionFalse, Reason: "Failed",
		Message: "no metrics", LastTransitionTime: metav1.NewTime(since)}
}

// TestAutoscalerCause: the autoscaler's False conditions are causes in its words, that stall
// once they have lasted the grace period, with one look again when it ends.
func TestAutoscalerCause(t *testing.T) {
	now := time.Now()
	grace := 2 * time.Minute
	rolledOutAvailable := deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2,
		ReadyReplicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{available(corev1.ConditionTrue)}})
	for _, tc := range []struct {
		name    string
		hpa     *autoscalingv2.HorizontalPodAutoscaler
		reason  string
		stalls  bool
		recheck time.Duration
		kstatus kstatus.Status
	}{
		{name: "able and active", hpa: autoscaler(), kstatus: kstatus.CurrentStatus},
		{name: "no metrics yet", hpa: autoscaler(hpaFalse(autoscalingv2.ScalingActive, now.Add(-30*time.Second))),
			reason: paasv1.ReasonAutoscalingInactive, recheck: 90 * time.Second, kstatus: kstatus.InProgressStatus},
		{name: "no metrics past the grace period", hpa: autoscaler(hpaFalse(autoscalingv2.ScalingActive, now.Add(-grace))),
			reason: paasv1.ReasonAutoscalingInactive, stalls: true, kstatus: kstatus.FailedStatus},
		{name: "unable to scale comes first", hpa: autoscaler(hpaFalse(autoscalingv2.ScalingActive, now.Add(-time.Hour)),
			hpaFalse(autoscalingv2.AbleToScale, now)),
			reason: paasv1.ReasonAutoscalerUnableToScale, recheck: grace, kstatus: kstatus.InProgressStatus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			c, recheck := autoscalerCause(tc.hpa, now, grace)
			g.Expect(recheck).To(Equal(tc.recheck))
			if tc.reason == "" {
				g.Expect(c).To(BeNil())
			} else {
				g.Expect(c).To(Equal(&cause{reason: tc.reason, message: "HorizontalPodAutoscaler web: no metrics", stalls: tc.stalls}))
			}
			app := testApp()
			s := &scope{app: app, workload: observeDeployment(rolledOutAvailable), workloadKnown: true, causes: causes(c)}
			setStatus(s)
			g.Expect(computeKstatus(g, app)).To(Equal(tc.kstatus))
			g.Expect(argoHealth(g, app)).To(Equal(argoVerdicts[tc.kstatus]))
			if tc.reason != "" {
				g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionReady).Reason).To(Equal(tc.reason))
			}
		})
	}
}

// TestAutoscalerWatchIgnoresMetrics: of an autoscaler's status, only a change of its conditions
// reconciles the app; its metrics and replicas change at every sync.
func TestAutoscalerWatchIgnoresMetrics(t *testing.T) {
	g := NewWithT(t)
	changed := autoscalerConditionsChanged()
	old := autoscaler(autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionTrue, Reason: "ValidMetricFound"})
	metrics := old.DeepCopy()
	metrics.Status.CurrentReplicas = 4
	metrics.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To[int32](73)}}}}
	metrics.Status.Conditions[0].Message = "recomputed"
	g.Expect(changed.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: metrics})).To(BeFalse())
	inactive := old.DeepCopy()
	inactive.Status.Conditions[0].Status, inactive.Status.Conditions[0].Reason = corev1.ConditionFalse, "FailedGetResourceMetric"
	g.Expect(changed.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: inactive})).To(BeTrue())
}
