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

package demoapplication_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestLifecycleValidation: the CRD refuses, naming the field, what the API server or the
// kubelet would refuse of the disruption budget, the preStop, the Service and the priority
// class.
func TestLifecycleValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	one := ptr.To(intstr.FromInt32(1))
	for _, tc := range []struct {
		name    string
		change  func(*paasv1.DemoApplicationSpec)
		message string
	}{
		{"a budget of both bounds", func(s *paasv1.DemoApplicationSpec) {
			s.DisruptionBudget = &paasv1.DisruptionBudget{MinAvailable: one, MaxUnavailable: one}
		}, "spec.disruptionBudget takes exactly one of minAvailable and maxUnavailable"},
		{"an empty budget", func(s *paasv1.DemoApplicationSpec) { s.DisruptionBudget = &paasv1.DisruptionBudget{} },
			"spec.disruptionBudget takes exactly one of minAvailable and maxUnavailable"},
		{"a budget over 100%", func(s *paasv1.DemoApplicationSpec) {
			s.DisruptionBudget = &paasv1.DisruptionBudget{MaxUnavailable: ptr.To(intstr.FromString("101%"))}
		}, "spec.disruptionBudget.maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%"},
		{"a pause as long as the grace period", func(s *paasv1.DemoApplicationSpec) {
			s.TerminationGracePeriodSeconds = ptr.To[int64](10)
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 10}}}
		}, "spec.terminationGracePeriodSeconds (30 when unset) must exceed spec.lifecycle.preStop.sleep.seconds"},
		{"a pause past the default grace period", func(s *paasv1.DemoApplicationSpec) {
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 30}}}
		}, "spec.terminationGracePeriodSeconds (30 when unset) must exceed spec.lifecycle.preStop.sleep.seconds"},
		{"a preStop of both", func(s *paasv1.DemoApplicationSpec) {
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 1},
				Exec: &paasv1.ExecAction{Command: []string{"/drain"}}}}
		}, "spec.lifecycle.preStop takes exactly one of sleep and exec"},
		{"a ClusterIP Service with a node port", func(s *paasv1.DemoApplicationSpec) {
			s.Ports[0].NodePort = ptr.To[int32](30080)
			s.Service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeClusterIP}
		}, "spec.service.type ClusterIP cannot have a spec.ports[*].nodePort"},
		{"a Service without ports", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = nil
			s.Service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeLoadBalancer}
		}, "spec.service needs spec.ports"},
		{"an ExternalName Service", func(s *paasv1.DemoApplicationSpec) {
			s.Service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeExternalName}
		},
			`spec.service.type: Unsupported value: "ExternalName"`},
		{"a system priority class", func(s *paasv1.DemoApplicationSpec) { s.PriorityClassName = "system-node-critical" },
			"spec.priorityClassName cannot name a system- PriorityClass"},
		// Found by the property test: an empty behavior was stored as none, and applied at every pass.
		{"an empty autoscaling behavior", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](80), Behavior: &paasv1.AutoscalingBehavior{}}
		}, "spec.autoscaling.behavior: Invalid value: 0: spec.autoscaling.behavior in body should have at least 1 properties"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			app := builder.DemoApplication(ns, "invalid")
			tc.change(&app.Spec)
			g.Expect(k8sClient.Create(ctx, app)).To(MatchError(ContainSubstring(tc.message)))
		})
	}
}
