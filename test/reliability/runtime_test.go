//go:build reliability

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

package reliability

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestContainerdRestart restarts the real node's containerd under the running operator, as
// a runtime upgrade does: the manager pods are Ready again without a restart of their
// containers, one of them holds the Lease, and a DemoApplication created right after runs its
// pod on the real node, which only the restarted containerd can start.
func TestContainerdRestart(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installRelease(t, currentImage)
	before := restartCounts(electedPods(t, currentImage, time.Minute))
	// Not pinned to the kwok nodes: its pods go to the real node, the one without a taint.
	ns := testenv.NewNamespace(t, k8s, "runtime-", testenv.ControllersRun)

	start := time.Now()
	g.Expect(cluster.Restart(ctx, localcluster.Containerd)).To(Succeed())
	restarted := time.Since(start)
	// The node is Ready: the kubelet reports a runtime it cannot reach as NotReady.
	g.Eventually(func(g Gomega) {
		node := &corev1.Node{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Name: localcluster.NodeName}, node)).To(Succeed())
		ready := slices.IndexFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
		g.Expect(ready).NotTo(Equal(-1))
		g.Expect(node.Status.Conditions[ready].Status).To(Equal(corev1.ConditionTrue))
	}, 2*time.Minute, time.Second).Should(Succeed())
	// The pause image is the one image the node already pulls from the cluster's registry.
	app := builder.DemoApplication(ns, "after-restart", builder.Image(cluster.PauseImage()), builder.Replicas(1))
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	waitConverged(t, ns, 1, 2*time.Minute)
	converged := time.Since(start)
	pods := framework.ReadyPods(g, k8s, ns, map[string]string{"app.kubernetes.io/name": app.Name})
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].Spec.NodeName).To(Equal(localcluster.NodeName))

	after := restartCounts(electedPods(t, currentImage, 2*time.Minute))
	leader := framework.LeaseHolder(g, cs, operatorNamespace)
	t.Logf("containerd restarted in %s; a DemoApplication created then ran its pod on %s and converged after %s; "+
		"manager pods Ready, %s leading; container restarts before %v, after %v", restarted.Round(10*time.Millisecond),
		pods[0].Spec.NodeName, converged.Round(10*time.Millisecond), leader, before, after)
	g.Expect(after).To(Equal(before), "manager containers restarted")
}
