//go:build e2e

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

package e2e

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/health"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRefusedPodsReachStatus runs an app in a namespace enforcing the restricted Pod Security
// Standard that asks for what the standard refuses (privilege escalation: the operator fills in
// the standard's values only where the spec says nothing), whose ReplicaSet cannot create a
// single pod: the app says so within seconds of the
// Deployment, in the API server's words (Degraded and Stalled, FailedCreate), kstatus and
// Argo CD call it failed, one Warning Event tells it; once the namespace allows the pods, it
// becomes Ready.
func TestRefusedPodsReachStatus(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	framework.StartManager(t, cluster, "manager-status", managerBin, operatorKubeconfig, nil)
	restricted := map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
	ns := testenv.NewNamespace(t, k8s, "e2e-restricted-", testenv.NamespaceLabels(restricted), testenv.ControllersRun)
	app := builder.DemoApplication(ns, "web", port80)
	app.Spec.SecurityContext = &paasv1.SecurityContext{AllowPrivilegeEscalation: ptr.To(true)}
	g.Expect(k8s.Create(ctx, app)).To(Succeed())

	var refused, explained time.Time
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), d)).To(Succeed())
		var failure *appsv1.DeploymentCondition
		for i, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentReplicaFailure {
				failure = &d.Status.Conditions[i]
			}
		}
		g.Expect(failure).NotTo(BeNil(), "the Deployment says its ReplicaSet cannot create pods")
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		degraded := apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
		g.Expect(degraded).To(And(Not(BeNil()), HaveField("Status", metav1.ConditionTrue), HaveField("Reason", paasv1.ReasonFailedCreate),
			HaveField("Message", ContainSubstring("violates PodSecurity"))))
		g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionStalled)).To(BeTrue())
		g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionReady)).To(BeFalse())
		refused, explained = failure.LastTransitionTime.Time, degraded.LastTransitionTime.Time
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	t.Logf("the app said why its pods are refused %s after the Deployment did", explained.Sub(refused))
	g.Expect(explained.Sub(refused)).To(BeNumerically("<=", 10*time.Second))
	g.Expect(health.Kstatus(app)).To(Equal(kstatus.FailedStatus))
	g.Expect(health.ArgoCDOf(app)).To(HaveField("Status", health.Degraded))

	// One Warning Event for the transition, not one per reconcile, though the ReplicaSet keeps
	// trying and the Deployment's message keeps changing.
	failedCreate := func(g Gomega) int {
		events := &eventsv1.EventList{}
		g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
		n := 0
		for _, e := range events.Items {
			if e.Regarding.Name == app.Name && e.Regarding.Kind == "DemoApplication" && e.Reason == paasv1.ReasonFailedCreate {
				n++
				if e.Series != nil {
					n += int(e.Series.Count) - 1
				}
			}
		}
		return n
	}
	g.Eventually(failedCreate, 30*time.Second).Should(Equal(1))
	g.Consistently(failedCreate, 10*time.Second, time.Second).Should(Equal(1))

	// The cause goes: the pods are allowed, created, Running; the app is Ready and no longer
	// Degraded or Stalled.
	nsObj := &corev1.Namespace{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Name: ns}, nsObj)).To(Succeed())
	patch := client.MergeFrom(nsObj.DeepCopy())
	nsObj.Labels["pod-security.kubernetes.io/enforce"] = "privileged"
	g.Expect(k8s.Patch(ctx, nsObj, patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionReady)).To(BeTrue(), "%v", app.Status.Conditions)
		g.Expect(apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)).To(HaveField("Status", metav1.ConditionFalse))
		g.Expect(apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionStalled)).To(BeNil())
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	g.Expect(health.Kstatus(app)).To(Equal(kstatus.CurrentStatus))
	g.Expect(health.ArgoCDOf(app)).To(HaveField("Status", health.Healthy))
}
