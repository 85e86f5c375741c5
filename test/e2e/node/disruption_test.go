//go:build node

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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestDrainRefusedBelowBudget: an app of 2 replicas gets its default PodDisruptionBudget
// (maxUnavailable 1), and the eviction API, which kubectl drain calls for each pod of the node
// (retrying a refusal every 5 seconds), evicts one pod and refuses the second, with 429 and
// the budget named, until the first one's replacement is Ready; then it evicts the second.
func TestDrainRefusedBelowBudget(t *testing.T) {
	// How long a new pod's /ready answers 503: the window in which the budget must refuse.
	const notReady = 4 * time.Second
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-drain-", testenv.ControllersRun)
	app := builder.DemoApplication(ns, "shop", builder.Image(appImage), builder.Replicas(2), builder.Ports(builder.Port("http", 80, 8080)),
		readyAfter(notReady, 1))
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	pods := expectServing(t, app, 2)

	// The disruption controller has counted the pods: one may go.
	pdb := &policyv1.PodDisruptionBudget{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), pdb)).To(Succeed())
		g.Expect(pdb.Status.ObservedGeneration).To(Equal(pdb.Generation))
		g.Expect(pdb.Status.DisruptionsAllowed).To(BeEquivalentTo(1))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
	g.Expect(pdb.Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
	g.Expect(metav1.IsControlledBy(pdb, app)).To(BeTrue(), "the budget's owner: %v", pdb.OwnerReferences)

	evict := func(p corev1.Pod) error {
		return cs.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: p.Name}})
	}
	g.Expect(evict(pods[0])).To(Succeed())
	evicted := time.Now()

	// The second eviction, as drain retries it: refused while the replacement is not Ready.
	refusals := 0
	var refusal error
	g.Eventually(func() error {
		err := evict(pods[1])
		if err != nil {
			refusals++
			refusal = err
		}
		return err
	}, 2*time.Minute, 250*time.Millisecond).Should(Succeed())
	allowed := time.Now()
	g.Expect(refusals).To(BeNumerically(">", 0), "the second eviction was never refused")
	g.Expect(apierrors.IsTooManyRequests(refusal)).To(BeTrue(), "%v", refusal)
	status := refusal.(apierrors.APIStatus).Status()
	g.Expect(status.Message).To(ContainSubstring("disruption budget"))
	g.Expect(status.Details).NotTo(BeNil())
	g.Expect(status.Details.Causes).To(ContainElement(And(HaveField("Type", policyv1.DisruptionBudgetCause),
		HaveField("Message", ContainSubstring("disruption budget "+app.Name+" ")))), "%+v", status.Details)

	// What let it pass: the replacement, Ready.
	var replacement *corev1.Pod
	for _, p := range framework.ReadyPods(g, k8s, ns, podsOf(app)) {
		if !slices.ContainsFunc(pods, func(old corev1.Pod) bool { return old.Name == p.Name }) {
			replacement = &p
		}
	}
	g.Expect(replacement).NotTo(BeNil(), "no replacement Ready when the second eviction passed")
	t.Logf("first pod evicted; the second refused %d times (429: %s; %s) over %s, until its replacement %s was Ready",
		refusals, status.Message, status.Details.Causes[0].Message, allowed.Sub(evicted).Round(100*time.Millisecond), replacement.Name)
	expectServing(t, app, 2)
}
