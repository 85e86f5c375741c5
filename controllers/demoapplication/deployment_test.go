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
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestDeploymentStrategy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "db")
	app.Spec.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{
		MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	strategy := func(g Gomega) appsv1.DeploymentStrategy { return get(g, ns, "db", &appsv1.Deployment{}).Spec.Strategy }
	quarter := ptr.To(intstr.FromString("25%"))

	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g)).To(Equal(appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}))
	}, waitFor, pollEvery).Should(Succeed())

	// Each switch goes through, whichever way: the API server's defaults never block it.
	update(g, app, func(a *paasv1.DemoApplication) {
		a.Spec.Strategy = &paasv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	})
	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g)).To(Equal(appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}))
		a := get(g, ns, "db", &paasv1.DemoApplication{})
		g.Expect(a).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
		g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation))
	}, waitFor, pollEvery).Should(Succeed())

	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Strategy = nil })
	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g)).To(Equal(appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: quarter, MaxUnavailable: quarter}}))
	}, waitFor, pollEvery).Should(Succeed())

	// Someone else's switch is put back too.
	d := get(g, ns, "db", &appsv1.Deployment{})
	suite.MergePatch(t, d, `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}`)
	g.Eventually(func(g Gomega) {
		g.Expect(strategy(g).Type).To(Equal(appsv1.RollingUpdateDeploymentStrategyType))
	}, waitFor, pollEvery).Should(Succeed())

	// Converged, it writes nothing.
	writesNothing(g, "/apis/apps/v1/namespaces/"+ns+"/")
}
