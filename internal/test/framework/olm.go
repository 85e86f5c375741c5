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

// OLMSteps are the steps of an OLM install that both OLM test tiers take (OLM as
// processes in test/olm, as pods on the real node in test/olm/node): a namespace, an
// OperatorGroup, a Subscription, its InstallPlan approved, the CSV Succeeded; then a
// DemoApplication served by the installed operator, before and after an upgrade.

package framework

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// OLMSteps takes the steps on the cluster of Client, waiting up to Timeout for OLM each time.
type OLMSteps struct {
	Client  client.Client
	Timeout time.Duration
}

// OperatorDeployment returns the Deployment OLM made from the CSV's install strategy.
func (s OLMSteps) OperatorDeployment(g Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) *appsv1.Deployment {
	specs := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	g.Expect(specs).To(HaveLen(1), "Deployments of CSV %s", csv.Name)
	d := &appsv1.Deployment{}
	g.Expect(s.Client.Get(context.Background(), client.ObjectKey{Namespace: csv.Namespace, Name: specs[0].Name}, d)).To(Succeed())
	return d
}

// CreateOperatorGroup makes the OperatorGroup of namespace, targeting targets (none: all
// namespaces).
func (s OLMSteps) CreateOperatorGroup(t *testing.T, namespace string, targets ...string) {
	t.Helper()
	og := &operatorsv1.OperatorGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo-operator"},
		Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
	}
	if err := s.Client.Create(context.Background(), og); err != nil {
		t.Fatal(err)
	}
}

// Subscribe subscribes namespace to spec's package, named after it, with manual approval so
// that each InstallPlan waits for Approve.
func (s OLMSteps) Subscribe(t *testing.T, namespace string, spec operatorsv1alpha1.SubscriptionSpec) *operatorsv1alpha1.Subscription {
	t.Helper()
	spec.InstallPlanApproval = operatorsv1alpha1.ApprovalManual
	sub := &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: spec.Package}, Spec: &spec}
	if err := s.Client.Create(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	return sub
}

// Approve waits for the InstallPlan that installs csvName to require approval, and approves it.
func (s OLMSteps) Approve(t *testing.T, namespace, csvName string) *operatorsv1alpha1.InstallPlan {
	t.Helper()
	ctx := context.Background()
	plan := &operatorsv1alpha1.InstallPlan{}
	NewWithT(t).Eventually(func(g Gomega) {
		plans := &operatorsv1alpha1.InstallPlanList{}
		g.Expect(s.Client.List(ctx, plans, client.InNamespace(namespace))).To(Succeed())
		i := slices.IndexFunc(plans.Items, func(p operatorsv1alpha1.InstallPlan) bool {
			return slices.Contains(p.Spec.ClusterServiceVersionNames, csvName)
		})
		g.Expect(i).To(BeNumerically(">=", 0), "no InstallPlan for %s yet", csvName)
		*plan = plans.Items[i]
		g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseRequiresApproval), "bundle lookups: %+v", plan.Status.BundleLookups)
	}, s.Timeout, 250*time.Millisecond).Should(Succeed())
	t.Logf("InstallPlan %s: %d steps for %v; approving", plan.Name, len(plan.Status.Plan), plan.Spec.ClusterServiceVersionNames)
	patch := client.MergeFrom(plan.DeepCopy())
	plan.Spec.Approved = true
	if err := s.Client.Patch(ctx, plan, patch); err != nil {
		t.Fatal(err)
	}
	return plan
}

// WaitSucceeded waits until OLM reports the CSV Succeeded, and returns it.
func (s OLMSteps) WaitSucceeded(t *testing.T, namespace, name string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	start := time.Now()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(s.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded), "%s: %s", csv.Status.Reason, csv.Status.Message)
	}, s.Timeout, 250*time.Millisecond).Should(Succeed())
	t.Logf("CSV %s/%s Succeeded in %s", namespace, name, time.Since(start).Round(100*time.Millisecond))
	return csv
}

// ExpectInstalled waits until the Subscription reports the CSV installed, which the catalog
// operator records after the CSV succeeds.
func (s OLMSteps) ExpectInstalled(t *testing.T, sub *operatorsv1alpha1.Subscription, csv string) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(s.Client.Get(context.Background(), client.ObjectKeyFromObject(sub), sub)).To(Succeed())
		g.Expect(sub.Status.InstalledCSV).To(Equal(csv))
	}, s.Timeout, 250*time.Millisecond).Should(Succeed())
}

// ExpectReplaced waits until OLM has deleted old, the CSV an upgrade replaced, and the
// Subscription names next installed.
func (s OLMSteps) ExpectReplaced(t *testing.T, sub *operatorsv1alpha1.Subscription, old *operatorsv1alpha1.ClusterServiceVersion, next string) {
	t.Helper()
	NewWithT(t).Eventually(func() bool {
		return apierrors.IsNotFound(s.Client.Get(context.Background(), client.ObjectKeyFromObject(old), &operatorsv1alpha1.ClusterServiceVersion{}))
	}, s.Timeout, 250*time.Millisecond).Should(BeTrue(), "OLM keeps the replaced CSV %s", old.Name)
	s.ExpectInstalled(t, sub, next)
}

// ExpectKept checks that an upgrade kept what users own: crd and app are the same objects
// (their UIDs) and app's spec is unchanged. It returns app as it is now.
func (s OLMSteps) ExpectKept(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, app *paasv1.DemoApplication) *paasv1.DemoApplication {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	upgraded := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(s.Client.Get(ctx, client.ObjectKeyFromObject(crd), upgraded)).To(Succeed())
	g.Expect(upgraded.UID).To(Equal(crd.UID), "the upgrade replaced the CRD")
	after := &paasv1.DemoApplication{}
	g.Expect(s.Client.Get(ctx, client.ObjectKeyFromObject(app), after)).To(Succeed())
	g.Expect(after.UID).To(Equal(app.UID), "the upgrade replaced the DemoApplication")
	g.Expect(after.Spec).To(Equal(app.Spec), "the upgrade changed the DemoApplication's spec")
	return after
}

// CreateDemoApp creates the DemoApplication that builder.DemoApplication makes of namespace,
// name and opts.
func (s OLMSteps) CreateDemoApp(t *testing.T, namespace, name string, opts ...builder.Option) *paasv1.DemoApplication {
	t.Helper()
	app := builder.DemoApplication(namespace, name, opts...)
	if err := s.Client.Create(context.Background(), app); err != nil {
		t.Fatal(err)
	}
	return app
}

// ExpectServed waits until the installed operator serves app: its Deployment and Service
// exist and app controls them, the Deployment's pods are ready, and app's status says so for
// its current generation, Available.
func (s OLMSteps) ExpectServed(t *testing.T, app *paasv1.DemoApplication) {
	t.Helper()
	ctx := context.Background()
	NewWithT(t).Eventually(func(g Gomega) {
		current := &paasv1.DemoApplication{}
		g.Expect(s.Client.Get(ctx, client.ObjectKeyFromObject(app), current)).To(Succeed())
		want := ptr.Deref(current.Spec.Replica, 1)
		d := &appsv1.Deployment{}
		g.Expect(s.Client.Get(ctx, client.ObjectKeyFromObject(app), d)).To(Succeed())
		g.Expect(metav1.IsControlledBy(d, current)).To(BeTrue())
		g.Expect(d.Status.ReadyReplicas).To(Equal(want))
		svc := &corev1.Service{}
		g.Expect(s.Client.Get(ctx, client.ObjectKeyFromObject(app), svc)).To(Succeed())
		g.Expect(metav1.IsControlledBy(svc, current)).To(BeTrue())
		g.Expect(current.Status.ReadyReplicas).To(Equal(want))
		g.Expect(current.Status.ObservedGeneration).To(Equal(current.Generation))
		g.Expect(apimeta.IsStatusConditionTrue(current.Status.Conditions, paasv1.ConditionAvailable)).To(BeTrue())
	}, s.Timeout, 250*time.Millisecond).Should(Succeed())
}

// OLMScheme knows the kinds the OLM tiers read and write: the built-in ones, CRDs, OLM's and
// the DemoApplication.
func OLMScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		operatorsv1.AddToScheme, operatorsv1alpha1.AddToScheme, paasv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}
