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

	specReplicas = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_spec_replicas",
		Help: "Pods the DemoApplication asks for (spec.replica).",
	}, appLabels)
	statusReplicas = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_status_replicas",
		Help: "Pods of the DemoApplication's Deployment (status.replicas).",
	}, appLabels)
	readyReplicas = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_status_replicas_ready",
		Help: "Ready pods of the DemoApplication's Deployment (status.readyReplicas).",
	}, appLabels)
	availableReplicas = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_status_replicas_available",
		Help: "Available pods of the DemoApplication's Deployment (status.availableReplicas).",
	}, appLabels)
	generation = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_metadata_generation",
		Help: "The DemoApplication's spec generation (metadata.generation).",
	}, appLabels)
	observedGeneration = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_status_observed_generation",
		Help: "The generation the DemoApplication's status describes (status.observedGeneration).",
	}, appLabels)
	statusCondition = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "demoapplication_status_condition",
		Help: "The DemoApplication's conditions: 1 for the status each has (true, false or unknown), 0 for the others. " +
			"Reconciling and Stalled are false when absent.",
	}, append(appLabels, "condition", "status"))

	appMetrics = []*prometheus.GaugeVec{specReplicas, statusReplicas, readyReplicas, availableReplicas, generation, observedGeneration, statusCondition}
)

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
	specReplicas.WithLabelValues(ns, name).Set(float64(ptr.Deref(app.Spec.Replica, 1)))
	statusReplicas.WithLabelValues(ns, name).Set(float64(app.Status.Replicas))
	readyReplicas.WithLabelValues(ns, name).Set(float64(app.Status.ReadyReplicas))
	availableReplicas.WithLabelValues(ns, name).Set(float64(app.Status.AvailableReplicas))
	generation.WithLabelValues(ns, name).Set(float64(app.Generation))
	observedGeneration.WithLabelValues(ns, name).Set(float64(app.Status.ObservedGeneration))
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
