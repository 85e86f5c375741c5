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
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestDefaultsComeWithTheNextRollout: a Deployment the previous operator built (no default
// pause, no config hash, no defaults annotation) keeps its pod template, and the app gets no
// default disruption budget, while nothing else would change the template; not even a change
// of the ConfigMap it reads rolls it. The next change to the template brings all the defaults
// at once.
func TestDefaultsComeWithTheNextRollout(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"level": "info"}}
	g.Expect(k8sClient.Create(ctx, settings)).To(Succeed())
	app := builder.DemoApplication(ns, "web", builder.Replicas(2), builder.Env(paasv1.EnvVar{Name: "LEVEL", ValueFrom: &paasv1.EnvVarSource{
		ConfigMapKeyRef: &paasv1.KeySelector{Name: "settings", Key: "level"}}}))
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	// A new app gets them all.
	g.Eventually(func(g Gomega) {
		d := get(g, ns, app.Name, &appsv1.Deployment{})
		g.Expect(d.Annotations).To(HaveKeyWithValue(demoapplication.DefaultsAnnotation, "2"))
		g.Expect(d.Spec.Template.Annotations).To(HaveKey(demoapplication.ConfigHashAnnotation))
		g.Expect(d.Spec.Template.Spec.Containers[0].Lifecycle.PreStop.Sleep.Seconds).To(BeEquivalentTo(demoapplication.DefaultPreStopSeconds))
		get(g, ns, app.Name, &policyv1.PodDisruptionBudget{})
	}, waitFor, pollEvery).Should(Succeed())

	// The Deployment as the previous operator left it: written by the operator's field
	// manager, without what this one adds; the previous operator had made no budget. Once
	// the operator has done writing: a reconcile still under way would put the defaults back.
	deployments, budgets := "/apis/apps/v1/namespaces/"+ns+"/", "/apis/policy/v1/namespaces/"+ns+"/"
	suite.Quiesced(g, deployments, budgets, "/apis/paas.cmft.com/v1/namespaces/"+ns+"/")
	live := get(g, ns, app.Name, &appsv1.Deployment{})
	old, err := appsv1ac.ExtractDeployment(live, wellknown.FieldManager)
	g.Expect(err).NotTo(HaveOccurred())
	delete(old.Annotations, demoapplication.DefaultsAnnotation)
	delete(old.Spec.Template.Annotations, demoapplication.ConfigHashAnnotation)
	old.Spec.Template.Spec.Containers[0].Lifecycle = nil
	g.Expect(k8sClient.Apply(ctx, old, client.FieldOwner(wellknown.FieldManager), client.ForceOwnership)).To(Succeed())
	// The operator's cache holds the rewrite before the budget goes: a reconcile for the
	// budget's deletion that read the Deployment as it was would put the defaults back.
	g.Eventually(func(g Gomega) {
		cached := &appsv1.Deployment{}
		g.Expect(mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(live), cached)).To(Succeed())
		g.Expect(cached.Annotations).NotTo(HaveKey(demoapplication.DefaultsAnnotation))
	}, waitFor, pollEvery).Should(Succeed())
	budget := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app.Name}}
	g.Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, budget))).To(Succeed())
	g.Eventually(gone(ns, app.Name, &policyv1.PodDisruptionBudget{}), waitFor, pollEvery).Should(BeTrue())

	// Then the operator writes neither, even when the ConfigMap the pods read changes; counted
	// from where its writes so far have come back (its own deletion of the budget may still be).
	before := suite.Quiesced(g, deployments, budgets)
	settings.Data["level"] = "debug"
	g.Expect(k8sClient.Update(ctx, settings)).To(Succeed())
	update(g, app, func(a *paasv1.DemoApplication) { a.Labels = map[string]string{"team": "shop"} })
	g.Consistently(func() int { return suite.WritesUnder(deployments, budgets) }, 3*time.Second).Should(Equal(before))
	d := get(g, ns, app.Name, &appsv1.Deployment{})
	g.Expect(d.Generation).To(Equal(live.Generation+1), "only the test's rewrite moved the template")
	g.Expect(d.Annotations).NotTo(HaveKey(demoapplication.DefaultsAnnotation))

	// A change to the template brings the defaults with it, in the same rollout.
	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Image = "registry.invalid/web:2" })
	g.Eventually(func(g Gomega) {
		d := get(g, ns, app.Name, &appsv1.Deployment{})
		g.Expect(d.Generation).To(Equal(live.Generation+2), "one rollout")
		g.Expect(d.Annotations).To(HaveKeyWithValue(demoapplication.DefaultsAnnotation, "2"))
		g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal("registry.invalid/web:2"))
		g.Expect(d.Spec.Template.Annotations).To(HaveKey(demoapplication.ConfigHashAnnotation))
		g.Expect(d.Spec.Template.Spec.Containers[0].Lifecycle).NotTo(BeNil())
		get(g, ns, app.Name, &policyv1.PodDisruptionBudget{})
	}, waitFor, pollEvery).Should(Succeed())
}
