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
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// appSeries returns the demoapplication_* series of the app namespace/name, as the metrics
// endpoint serves them: by name, with their other labels, and their values.
func appSeries(g Gomega, namespace, name string) map[string]float64 {
	families, err := metrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	series := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "demoapplication_") {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			var others []string
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
				if l.GetName() != "namespace" && l.GetName() != "name" {
					others = append(others, l.GetName()+"="+l.GetValue())
				}
			}
			if labels["namespace"] != namespace || labels["name"] != name {
				continue
			}
			sort.Strings(others)
			series[f.GetName()+"{"+strings.Join(others, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	return series
}

// TestMetricsPerApp checks an app's series as a Prometheus scrape reads them: its replicas
// and one series per condition and status, following its status, and gone with the app.
func TestMetricsPerApp(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := builder.DemoApplication(ns, "web")
	app.Spec.Replica = ptr.To[int32](3)
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	// envtest runs no Deployment controller: no pod, the rollout under way.
	g.Eventually(func(g Gomega) {
		series := appSeries(g, ns, "web")
		g.Expect(series).To(HaveKeyWithValue("demoapplication_spec_replicas{}", 3.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_replicas_ready{}", 0.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_condition{condition=Ready,status=false}", 1.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_condition{condition=Ready,status=true}", 0.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_condition{condition=Reconciling,status=true}", 1.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_condition{condition=Stalled,status=false}", 1.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_condition{condition=Degraded,status=false}", 1.0))
		g.Expect(series).To(HaveKeyWithValue("demoapplication_status_observed_generation{}", 1.0))
		// 6 of replicas and generations, 3 statuses of 6 conditions: bounded by the number of apps.
		g.Expect(series).To(HaveLen(6 + 3*6))
	}, waitFor, pollEvery).Should(Succeed())

	g.Expect(k8sClient.Delete(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) map[string]float64 { return appSeries(g, ns, "web") }, waitFor, pollEvery).Should(BeEmpty())
}
