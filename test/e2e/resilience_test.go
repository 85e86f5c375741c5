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
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
)

const (
	// acquiredLease is what controller-runtime's leader election logs when a candidate becomes leader.
	acquiredLease = "Successfully acquired lease"
	// startingWorkers is what controller-runtime logs when a controller starts reconciling,
	// which a manager does only once it leads.
	startingWorkers = "Starting workers"
	// leaseDuration and retryPeriod are controller-runtime's defaults, which the manager keeps.
	leaseDuration, retryPeriod = 15 * time.Second, 2 * time.Second
)

func logContains(name, text string) bool {
	data, _ := os.ReadFile(cluster.LogFile(name))
	return strings.Contains(string(data), text)
}

// waitLeader waits until one of the candidates logs that it leads, and returns it.
func waitLeader(t *testing.T, timeout time.Duration, candidates ...string) string {
	t.Helper()
	var leader string
	NewWithT(t).Eventually(func() bool {
		for _, name := range candidates {
			if logContains(name, acquiredLease) {
				leader = name
				return true
			}
		}
		return false
	}, timeout, 50*time.Millisecond).Should(BeTrue(), "no leader among %v", candidates)
	return leader
}

// TestLeaderElection runs two managers: only the leader reconciles; when it is killed the
// other takes over within the lease duration, and when it stops gracefully it releases the
// Lease so that the next takes over within a few seconds.
func TestLeaderElection(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	grantLeaderElection(t, ns)
	args := []string{"--leader-elect", "--leader-election-namespace=" + ns}
	framework.StartManager(t, cluster, "manager-a", managerBin, operatorKubeconfig, nil, args...)
	framework.StartManager(t, cluster, "manager-b", managerBin, operatorKubeconfig, nil, args...)
	first := waitLeader(t, 30*time.Second, "manager-a", "manager-b")
	follower := map[string]string{"manager-a": "manager-b", "manager-b": "manager-a"}[first]

	app := builder.DemoApplication(ns, "elected", builder.Replicas(1), port80)
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	expectConverged(t, app, time.Minute)
	g.Expect(logContains(first, startingWorkers)).To(BeTrue())
	g.Expect(logContains(follower, startingWorkers)).To(BeFalse(), "the follower must not reconcile")
	g.Expect(logContains(follower, acquiredLease)).To(BeFalse())

	killed := time.Now()
	g.Expect(cluster.Kill(first)).To(Succeed())
	afterKill := builder.DemoApplication(ns, "after-kill", port80)
	g.Expect(k8s.Create(ctx, afterKill)).To(Succeed())
	// A candidate counts the lease duration from when it last saw the Lease change, which it
	// reads every retry period (with jitter): the bound is generous for a loaded machine, the
	// log line below gives the figure.
	waitLeader(t, leaseDuration+3*retryPeriod+10*time.Second, follower)
	failover := time.Since(killed)
	expectConverged(t, afterKill, time.Minute)
	t.Logf("kill -9 of the leader: new leader after %s, new DemoApplication converged after %s",
		failover.Round(10*time.Millisecond), time.Since(killed).Round(10*time.Millisecond))

	framework.StartManager(t, cluster, "manager-c", managerBin, operatorKubeconfig, nil, args...)
	g.Eventually(func() bool { return logContains("manager-c", "Attempting to acquire leader lease") },
		30*time.Second, 50*time.Millisecond).Should(BeTrue())
	stopped := time.Now()
	g.Expect(cluster.Stop(follower)).To(Succeed())
	waitLeader(t, 3*retryPeriod+10*time.Second, "manager-c")
	handover := time.Since(stopped)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
	app.Spec.Replica = ptr.To[int32](3)
	g.Expect(k8s.Update(ctx, app)).To(Succeed())
	expectConverged(t, app, time.Minute)
	t.Logf("graceful stop of the leader (stop included): new leader after %s", handover.Round(10*time.Millisecond))
	g.Eventually(func(g Gomega) { expectOnePerApp(g, ns, app, afterKill) }, 10*time.Second).Should(Succeed())
}

// TestAPIServerRestart stops kube-apiserver right after a change and starts it again: the
// same manager process reconnects, applies the change made before the outage and the ones
// made after it, without duplicating anything.
func TestAPIServerRestart(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	framework.StartManager(t, cluster, "manager-restart", managerBin, operatorKubeconfig, nil)
	pid := cluster.PID("manager-restart")
	ns := newNamespace(t)

	before := builder.DemoApplication(ns, "before", port80)
	g.Expect(k8s.Create(ctx, before)).To(Succeed())
	expectConverged(t, before, time.Minute)

	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(before), before)).To(Succeed())
	before.Spec.Replica = ptr.To[int32](3)
	g.Expect(k8s.Update(ctx, before)).To(Succeed())
	down := time.Now()
	g.Expect(cluster.Stop(localcluster.APIServer)).To(Succeed())
	time.Sleep(10 * time.Second)
	g.Expect(cluster.Start(localcluster.APIServer)).To(Succeed())
	g.Expect(cluster.WaitAPIServer(ctx)).To(Succeed())
	t.Logf("kube-apiserver down for %s", time.Since(down).Round(10*time.Millisecond))

	after := builder.DemoApplication(ns, "after", builder.Replicas(1), port80)
	g.Expect(k8s.Create(ctx, after)).To(Succeed())
	expectConverged(t, before, 2*time.Minute)
	expectConverged(t, after, time.Minute)
	g.Eventually(func(g Gomega) { expectOnePerApp(g, ns, before, after) }, 10*time.Second).Should(Succeed())
	g.Expect(cluster.PID("manager-restart")).To(Equal(pid), "the manager must recover without a restart")
}
