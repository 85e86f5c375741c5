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

package chart_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// strictPlatform is the chart's optional application policies as a platform that names no
// registry, host or ServiceAccount of its own would set them.
const strictPlatform = `applicationPolicy: {denyNodePorts: true, denyLoadBalancers: true, requireIngressHosts: true,
  maxReplicas: 10, allowedServiceAccounts: [default]}`

// TestSamplesApplyTwice applies config/samples as written in two namespaces, under the chart's
// optional policies and with its manager running, as two teams copying the same sample would:
// every copy is admitted, and each app gets its workload (a Deployment, or a StatefulSet) and
// Service with nothing failing,
// so no sample holds a cluster-wide name (a node port) that the second copy would collide on.
func TestSamplesApplyTwice(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	teams := []string{"samples-a", "samples-b"}
	for _, ns := range append([]string{"samples"}, teams...) {
		c.namespace(t, ns)
	}
	rel := c.install(t, "samples", "samples", values(t, "watchNamespaces: [samples-a, samples-b]\n"+strictPlatform))
	c.runManager(t, rel)

	g := newG(t)
	samples := kustomizeBuild(g, "config/samples")
	g.Expect(samples).NotTo(BeEmpty())
	for _, ns := range teams {
		for _, sample := range kustomizeBuild(g, "config/samples") {
			obj := &unstructured.Unstructured{Object: sample}
			obj.SetNamespace(ns)
			g.Expect(c.admin.Create(ctx, obj)).To(Succeed(), "%s %s in %s", obj.GetKind(), obj.GetName(), ns)
		}
	}
	for _, ns := range teams {
		for _, sample := range samples {
			key := client.ObjectKey{Namespace: ns, Name: (&unstructured.Unstructured{Object: sample}).GetName()}
			var workload client.Object = &appsv1.Deployment{}
			if kind, _, _ := unstructured.NestedString(sample, "spec", "workload"); kind == string(paasv1.WorkloadStatefulSet) {
				workload = &appsv1.StatefulSet{}
			}
			g.Eventually(func(g Gomega) {
				g.Expect(c.admin.Get(ctx, key, workload)).To(Succeed())
				g.Expect(c.admin.Get(ctx, key, &corev1.Service{})).To(Succeed())
				app := &paasv1.DemoApplication{}
				g.Expect(c.admin.Get(ctx, key, app)).To(Succeed())
				g.Expect(apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)).
					To(HaveField("Status", metav1.ConditionFalse), "%v", app.Status.Conditions)
			}, 30*time.Second, 100*time.Millisecond).Should(Succeed(), "%s", key)
		}
	}
}
