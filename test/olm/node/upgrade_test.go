//go:build olmnode

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

package node

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestUpgradeAndUninstall subscribes to the stable channel at the first release, both
// releases' bundles being images in the catalog image, and serves a DemoApplication; then
// approves the upgrade along the channel: OLM unpacks the second bundle image, the CRD and the
// DemoApplication survive, and the operator's pods roll to the new manager image. Deleting the
// Subscription and the CSV then removes the operator's pods and keeps the DemoApplication and
// its workload.
func TestUpgradeAndUninstall(t *testing.T) {
	ctx := context.Background()
	first, second := releases[0], releases[1]
	source := createCatalogSource(t, localolm.Namespace, "demo-operator-upgrade", catalogImage)
	ns := testenv.NewNamespace(t, k8s, "olm-upgrade-", testenv.ControllersRun)
	steps.CreateOperatorGroup(t, ns, ns)
	sub := subscribe(t, ns, source, localolm.Namespace, "stable", first.csv)
	steps.Approve(t, ns, first.csv)
	old := steps.WaitSucceeded(t, ns, first.csv)
	expectOperatorPods(t, old, first.managerImage)
	app := createDemoApp(t, ns, "survivor")
	steps.ExpectServed(t, app)
	g := NewWithT(t)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Name: "demoapplications." + paasv1.GroupVersion.Group}, crd)).To(Succeed())

	t.Run("upgrade", func(t *testing.T) {
		g := NewWithT(t)
		start := time.Now()
		plan := steps.Approve(t, ns, second.csv)
		g.Expect(plan.Spec.ClusterServiceVersionNames).To(ConsistOf(second.csv))
		csv := steps.WaitSucceeded(t, ns, second.csv)
		g.Expect(csv.Spec.Replaces).To(Equal(first.csv))
		expectUnpacked(t, second.bundle)
		expectOperatorPods(t, csv, second.managerImage)
		t.Logf("upgrade approved → %s pods Ready from %s in %s", second.csv, second.managerImage, time.Since(start).Round(100*time.Millisecond))
		steps.ExpectReplaced(t, sub, old, second.csv)
		steps.ExpectServed(t, steps.ExpectKept(t, crd, app))
	})

	t.Run("uninstall", func(t *testing.T) {
		g := NewWithT(t)
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: second.csv}, csv)).To(Succeed())
		deploy := steps.OperatorDeployment(g, csv)
		workload := &appsv1.Deployment{}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), workload)).To(Succeed())
		g.Expect(k8s.Delete(ctx, sub)).To(Succeed())
		g.Expect(k8s.Delete(ctx, csv)).To(Succeed())
		expectUninstalled(t, deploy, app, workload)
	})
}

// expectUninstalled waits until the operator's Deployment and its pods are gone, and checks that
// what users made stays: the CRD (OLM never deletes one), the DemoApplication, and its workload,
// which the DemoApplication owns, running.
func expectUninstalled(t *testing.T, deploy *appsv1.Deployment, app *paasv1.DemoApplication, workload *appsv1.Deployment) {
	t.Helper()
	ctx := context.Background()
	g := NewWithT(t)
	g.Eventually(func(g Gomega) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(deploy), &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "operator Deployment still there: %v", err)
		pods := &corev1.PodList{}
		g.Expect(k8s.List(ctx, pods, client.InNamespace(deploy.Namespace), client.MatchingLabels(deploy.Spec.Selector.MatchLabels))).To(Succeed())
		g.Expect(pods.Items).To(BeEmpty(), "operator pods still there")
	}, olmTimeout, time.Second).Should(Succeed())
	g.Consistently(func(g Gomega) {
		crd := client.ObjectKey{Name: "demoapplications." + paasv1.GroupVersion.Group}
		g.Expect(k8s.Get(ctx, crd, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		kept := &paasv1.DemoApplication{}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), kept)).To(Succeed())
		g.Expect(kept.UID).To(Equal(app.UID))
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), d)).To(Succeed())
		g.Expect(d.UID).To(Equal(workload.UID))
		g.Expect(d.Status.ReadyReplicas).To(Equal(*app.Spec.Replica))
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), &corev1.Service{})).To(Succeed())
	}, 10*time.Second, time.Second).Should(Succeed())
}
