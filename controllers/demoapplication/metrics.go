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

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The controller's series of each DemoApplication, named and shaped as kube-state-metrics
// has a Deployment's, on the manager's metrics endpoint. Each pass sets them from the status
// it wrote; they go with the app, so none is stale and there are as many as apps.
var (
	appLabels = []string{"namespace", "name"}

	// appGauges are the series of one value per app, and where the value is read.
	appGauges = []struct {
		vec   *prometheus.GaugeVec
		value func(*paasv1.DemoApplication) int64
	}{
		{appGauge("demoapplication_spec_replicas", "Pods the DemoApplication asks for (spec.replica)."),
			func(a *paasv1.DemoApplication) int64 { return int64(ptr.Deref(a.Spec.Replica, 1)) }},
		{appGauge("demoapplication_status_replicas", "Pods of the DemoApplication's Deployment (status.replicas)."),
			func(a *paasv1.DemoApplication) int64 { return int64(a.Status.Replicas) }},
		{appGauge("demoapplication_status_replicas_ready", "Ready pods of the DemoApplication's Deployment (status.readyReplicas)."),
			func(a *paasv1.DemoApplication) int64 { return int64(a.Status.ReadyReplicas) }},
		{appGauge("demoapplication_status_replicas_available", "Available pods of the DemoApplication's Deployment (status.availableReplicas)."),
			func(a *paasv1.DemoApplication) int64 { return int64(a.Status.AvailableReplicas) }},
		{appGauge("demoapplication_metadata_generation", "The DemoApplication's spec generation (metadata.generation)."),
			func(a *paasv1.DemoApplication) int64 { return a.Generation }},
		{appGauge("demoapplication_status_observed_generation", "The generation the DemoApplication's status describes (status.observedGeneration)."),
			func(a *paasv1.DemoApplication) int64 { return a.Status.ObservedGeneration }},
	}
	statusCondition = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_status_condition",
		Help: "The DemoApplication's conditions: 1 for the status each has (true, false or unknown), 0 for the others. " +
			"Reconciling and Stalled are false when absent.",
	}, append(appLabels, "condition", "status"))

	// appMetrics are all the series of an app.
	appMetrics = func() []*prometheus.GaugeVec {
		vecs := make([]*prometheus.GaugeVec, 0, 1+len(appGauges))
		vecs = append(vecs, statusCondition)
		for _, g := range appGauges {
			vecs = append(vecs, g.vec)
		}
		return vecs
	}()
)

func appGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, appLabels)
}

// conditionTypes are the conditions of a DemoApplication, each a series per status.
var conditionTypes = []string{
	paasv1.ConditionReady, paasv1.ConditionReconciling, paasv1.ConditionStalled,
	paasv1.ConditionAvailable, paasv1.ConditionProgressing, paasv1.ConditionDegraded,
}

func init() {
	for _, m := range appMetrics {
		metrics.Registry.MustRegister(m)
	}
}

// recordMetrics sets app's series from its status.
func recordMetrics(app *paasv1.DemoApplication) {
	ns, name := app.Namespace, app.Name
	for _, g := range appGauges {
		g.vec.WithLabelValues(ns, name).Set(float64(g.value(app)))
	}
	for _, t := range conditionTypes {
		status := metav1.ConditionUnknown
		if c := meta.FindStatusCondition(app.Status.Conditions, t); c != nil {
			status = c.Status
		} else if t == paasv1.ConditionReconciling || t == paasv1.ConditionStalled {
			status = metav1.ConditionFalse
		}
		for _, s := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
			value := 0.0
			if s == status {
				value = 1
			}
			statusCondition.WithLabelValues(ns, name, t, strings.ToLower(string(s))).Set(value)
		}
	}
}

// forgetMetrics removes the series of the app of key, which is gone or going.
func forgetMetrics(key types.NamespacedName) {
	for _, m := range appMetrics {
		m.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "name": key.Name})
	}
}
