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

// Package olmtest holds the steps of an OLM install that both OLM test tiers take (OLM as
// processes in test/olm, as pods on the real node in test/olm/node): a namespace, an
// OperatorGroup, a Subscription, its InstallPlan approved, the CSV Succeeded.
package olmtest

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewNamespace creates a namespace for one test, deletes it afterwards, and returns once its
// default ServiceAccount exists (pods are refused before).
func NewNamespace(t *testing.T, k8s client.Client, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	NewWithT(t).Eventually(func() error {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: ns.Name, Name: "default"}, &corev1.ServiceAccount{})
	}, 30*time.Second, 100*time.Millisecond).Should(Succeed())
	return ns.Name
}

// CreateOperatorGroup makes the OperatorGroup of namespace, targeting targets (none: all
// namespaces).
func CreateOperatorGroup(t *testing.T, k8s client.Client, namespace string, targets ...string) {
	t.Helper()
	og := &operatorsv1.OperatorGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo-operator"},
		Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
	}
	if err := k8s.Create(context.Background(), og); err != nil {
		t.Fatal(err)
	}
}

// Subscribe subscribes namespace to spec's package, named after it, with manual approval so
// that each InstallPlan waits for Approve.
func Subscribe(t *testing.T, k8s client.Client, namespace string, spec operatorsv1alpha1.SubscriptionSpec) *operatorsv1alpha1.Subscription {
	t.Helper()
	spec.InstallPlanApproval = operatorsv1alpha1.ApprovalManual
	sub := &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: spec.Package}, Spec: &spec}
	if err := k8s.Create(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	return sub
}

// Approve waits for the InstallPlan that installs csvName to require approval, and approves it.
func Approve(t *testing.T, k8s client.Client, namespace, csvName string, timeout time.Duration) *operatorsv1alpha1.InstallPlan {
	t.Helper()
	ctx := context.Background()
	plan := &operatorsv1alpha1.InstallPlan{}
	NewWithT(t).Eventually(func(g Gomega) {
		plans := &operatorsv1alpha1.InstallPlanList{}
		g.Expect(k8s.List(ctx, plans, client.InNamespace(namespace))).To(Succeed())
		i := slices.IndexFunc(plans.Items, func(p operatorsv1alpha1.InstallPlan) bool {
			return slices.Contains(p.Spec.ClusterServiceVersionNames, csvName)
		})
		g.Expect(i).To(BeNumerically(">=", 0), "no InstallPlan for %s yet", csvName)
		*plan = plans.Items[i]
		g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseRequiresApproval), "bundle lookups: %+v", plan.Status.BundleLookups)
	}, timeout, 250*time.Millisecond).Should(Succeed())
	t.Logf("InstallPlan %s: %d steps for %v; approving", plan.Name, len(plan.Status.Plan), plan.Spec.ClusterServiceVersionNames)
	patch := client.MergeFrom(plan.DeepCopy())
	plan.Spec.Approved = true
	if err := k8s.Patch(ctx, plan, patch); err != nil {
		t.Fatal(err)
	}
	return plan
}

// WaitSucceeded waits until OLM reports the CSV Succeeded, and returns it.
func WaitSucceeded(t *testing.T, k8s client.Client, namespace, name string, timeout time.Duration) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	start := time.Now()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded), "%s: %s", csv.Status.Reason, csv.Status.Message)
	}, timeout, 250*time.Millisecond).Should(Succeed())
	t.Logf("CSV %s/%s Succeeded in %s", namespace, name, time.Since(start).Round(100*time.Millisecond))
	return csv
}

// ExpectInstalled waits until the Subscription reports the CSV installed, which the catalog
// operator records after the CSV succeeds.
func ExpectInstalled(t *testing.T, k8s client.Client, sub *operatorsv1alpha1.Subscription, csv string, timeout time.Duration) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(sub), sub)).To(Succeed())
		g.Expect(sub.Status.InstalledCSV).To(Equal(csv))
	}, timeout, 250*time.Millisecond).Should(Succeed())
}
