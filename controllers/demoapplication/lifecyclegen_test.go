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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The property test's generator of the fields of a pod's end and of its exposure: the
// disruption budget, the grace period and preStop, the revision history, the Service's type
// and annotations, the priority class and the autoscaler's behavior.

// lifecycle gives spec a disruption budget, a grace period, a preStop and a revision history
// now and then, at and past their edges.
func (g specGen) lifecycle(spec *paasv1.DemoApplicationSpec) {
	if g.set(0.3) {
		spec.TerminationGracePeriodSeconds = ptr.To(int64(g.pickN(30, 1, 2, 6, 86400, edgeN, 0, 86401)))
	}
	if g.set(0.3) {
		grace := int(ptr.Deref(spec.TerminationGracePeriodSeconds, 30))
		handler := &paasv1.LifecycleHandler{}
		if g.chance(0.7) || g.edge(0.1) {
			seconds := g.pickN(0, 1, 5, 29, edgeN, -1, 30, 86400)
			if !g.crossing() && seconds >= grace {
				seconds = grace - 1
			}
			handler.Sleep = &paasv1.SleepAction{Seconds: int64(seconds)}
		}
		if handler.Sleep == nil || g.edge(0.1) {
			handler.Exec = &paasv1.ExecAction{Command: []string{g.pick("/app/drain", "/bin/sh", edge, "")}}
		}
		spec.Lifecycle = &paasv1.Lifecycle{PreStop: handler}
	}
	if g.set(0.2) {
		spec.RevisionHistoryLimit = ptr.To(int32(g.pickN(0, 3, 10, 100, edgeN, -1, 101)))
	}
	if g.set(0.3) {
		bound := func() *intstr.IntOrString {
			if g.chance(0.5) {
				return ptr.To(intstr.FromInt32(int32(g.pickN(0, 1, 2, 1000, edgeN, -1))))
			}
			return ptr.To(intstr.FromString(g.pick("50%", "100%", "0%", "001%", edge, "101%", "1", "%", "-1%", "one")))
		}
		db := &paasv1.DisruptionBudget{}
		if g.chance(0.5) {
			db.MinAvailable = bound()
		} else {
			db.MaxUnavailable = bound()
		}
		if g.edge(0.1) {
			db.MinAvailable, db.MaxUnavailable = bound(), bound()
		}
		// A budget must let a pod go at the app's fewest pods: one that does not disagrees
		// with replica or autoscaling.minReplicas (or, of 0 or 100%, with every app). An app
		// of no replica is counted as one, which leaves out a few valid budgets.
		fewest := ptr.Deref(spec.Replica, 1)
		if spec.Autoscaling != nil {
			fewest = ptr.Deref(spec.Autoscaling.MinReplicas, 1)
		}
		budget := policyv1.PodDisruptionBudgetSpec{MinAvailable: db.MinAvailable, MaxUnavailable: db.MaxUnavailable}
		if !g.crossing() && disruptionsAllowed(budget, max(fewest, 1)) < 1 {
			db.MinAvailable, db.MaxUnavailable = nil, ptr.To(intstr.FromInt32(1))
		}
		spec.DisruptionBudget = db
	}
}

// exposure gives spec a Service type and annotations, a priority class and an autoscaler's
// behavior now and then, at and past their edges.
func (g specGen) exposure(spec *paasv1.DemoApplicationSpec) {
	if g.set(0.3) && (len(spec.Ports) > 0 || g.crossing()) {
		s := &paasv1.ServiceSettings{Type: corev1.ServiceType(g.pick("", "ClusterIP", "NodePort", "LoadBalancer", edge, "ExternalName"))}
		nodePorts := false
		for _, p := range spec.Ports {
			nodePorts = nodePorts || p.NodePort != nil
		}
		if s.Type == corev1.ServiceTypeClusterIP && nodePorts && !g.crossing() {
			s.Type = corev1.ServiceTypeLoadBalancer
		}
		if g.set(0.5) {
			s.Annotations = map[string]string{g.pick("service.beta.kubernetes.io/aws-load-balancer-type", "metallb.io/address-pool", edge, "bad key"): g.pick("nlb", "")}
		}
		spec.Service = s
	}
	if g.set(0.2) {
		spec.PriorityClassName = paasv1.ObjectName(g.pick("high", "batch.low", edge, "system-node-critical", "system-cluster-critical", "High"))
	}
	if a := spec.Autoscaling; a != nil && g.set(0.4) {
		rules := func() *paasv1.ScalingRules {
			r := &paasv1.ScalingRules{}
			if g.chance(0.7) {
				r.StabilizationWindowSeconds = ptr.To(int32(g.pickN(0, 60, 300, 3600, edgeN, -1, 3601)))
			}
			if g.chance(0.3) {
				r.SelectPolicy = ptr.To(autoscalingv2.ScalingPolicySelect(g.pick("Max", "Min", "Disabled", edge, "Any")))
			}
			for range g.count(3) {
				r.Policies = append(r.Policies, paasv1.ScalingPolicy{
					Type:          autoscalingv2.HPAScalingPolicyType(g.pick("Pods", "Percent", edge, "Nodes")),
					Value:         int32(g.pickN(1, 4, 100, edgeN, 0)),
					PeriodSeconds: int32(g.pickN(15, 60, 1800, edgeN, 0, 1801)),
				})
			}
			// An empty one says nothing: refused.
			if r.StabilizationWindowSeconds == nil && r.SelectPolicy == nil && len(r.Policies) == 0 && !g.crossing() {
				r.StabilizationWindowSeconds = ptr.To[int32](300)
			}
			return r
		}
		b := &paasv1.AutoscalingBehavior{}
		if g.chance(0.8) {
			b.ScaleDown = rules()
		}
		if g.chance(0.5) || (b.ScaleDown == nil && !g.crossing()) {
			b.ScaleUp = rules()
		}
		a.Behavior = b
	}
}
