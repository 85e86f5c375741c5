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
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/framework"
)

const (
	// partitionTable is the test's own nftables table, deleted when the partition heals.
	partitionTable = "demo-operator-reliability"
	// retryPeriod is how often controller-runtime's leader election tries the Lease (its
	// default), stretched by client-go's jitter of up to 1.2 more.
	retryPeriod = 2 * time.Second * 22 / 10
)

// partition drops the traffic between a pod and kube-apiserver on the machine, both ways,
// as a broken link between a node and the control plane would, until the returned function
// heals it. The pod reaches kube-apiserver through the kubernetes Service, which
// kube-proxy translates before the input hook sees it.
func partition(t *testing.T, podIP string) func() {
	t.Helper()
	port := strconv.Itoa(cluster.PortBase)
	rules := fmt.Sprintf(`table ip %s {
	chain input {
		type filter hook input priority filter - 10; policy accept;
		ip saddr %s tcp dport %s drop
	}
	chain output {
		type filter hook output priority filter - 10; policy accept;
		ip daddr %s tcp sport %s drop
	}
}
`, partitionTable, podIP, port, podIP, port)
	cmd := exec.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nft: %v: %s", err, out)
	}
	var once sync.Once
	heal := func() {
		once.Do(func() {
			if out, err := exec.Command("nft", "delete", "table", "ip", partitionTable).CombinedOutput(); err != nil {
				t.Errorf("nft delete table: %v: %s", err, out)
			}
		})
	}
	t.Cleanup(heal)
	return heal
}

// TestPartitionedLeaderNeverWrites cuts the leading manager pod off kube-apiserver for 45
// seconds while DemoApplications are being edited: the other pod takes the Lease once it
// expires, every edit converges, and the audit log shows no write from the cut-off pod
// after its Lease expired, nor once it is back, as a follower.
func TestPartitionedLeaderNeverWrites(t *testing.T) {
	const (
		apps     = 20
		cut      = 45 * time.Second
		editStep = 500 * time.Millisecond
	)
	g := NewWithT(t)
	ctx := context.Background()
	installRelease(t, currentImage)
	ns := appNamespace(t, "partition-")
	createApps(t, ns, span(0, apps))
	waitConverged(t, ns, apps, 5*time.Minute)
	pods := electedPods(t, currentImage, time.Minute)
	leader := framework.LeaseHolder(g, cs, operatorNamespace)
	leaderPod := pods[slices.IndexFunc(pods, func(p corev1.Pod) bool { return p.Name == leader })]
	leaseDuration := leaseDuration(g)

	// Edit the applications in turn, before, during and after the partition.
	edits := map[string]string{}
	var editsMu sync.Mutex
	var editCount atomic.Int64
	stopEditing := make(chan struct{})
	edited := make(chan error)
	go func() {
		for n := 0; ; n++ {
			select {
			case <-stopEditing:
				close(edited)
				return
			case <-time.After(editStep):
			}
			name, value := fmt.Sprintf("app-%03d", n%apps), strconv.Itoa(n)
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				app := &paasv1.DemoApplication{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, app); err != nil {
					return err
				}
				app.Spec.Env = append(slices.DeleteFunc(app.Spec.Env, func(e paasv1.EnvVar) bool { return e.Name == "EDIT" }),
					paasv1.EnvVar{Name: "EDIT", Value: value})
				return k8s.Update(ctx, app)
			})
			if err != nil {
				edited <- err
				return
			}
			editsMu.Lock()
			edits[name] = value
			editsMu.Unlock()
			editCount.Add(1)
		}
	}()

	// Some edits land while the leader leads: six, three seconds' worth.
	waitEdits := func(from int64) {
		g.Eventually(editCount.Load, time.Minute, editStep).Should(BeNumerically(">=", from+6), "edits")
	}
	waitEdits(0)
	heal := partition(t, leaderPod.Status.PodIP)
	cutAt := time.Now()
	var next string
	g.Eventually(func(g Gomega) {
		next = framework.LeaseHolder(g, cs, operatorNamespace)
		g.Expect(next).NotTo(Equal(leader))
		g.Expect(next).NotTo(BeEmpty())
	}, 2*time.Minute, 100*time.Millisecond).Should(Succeed())
	t.Logf("leader %s cut off from kube-apiserver; %s holds the Lease %s later", leader, next, time.Since(cutAt).Round(10*time.Millisecond))
	time.Sleep(time.Until(cutAt.Add(cut)))
	heal()
	healedAt := time.Now()
	// And some once it heals, while the new leader leads.
	waitEdits(editCount.Load())
	close(stopEditing)
	g.Expect(<-edited).NotTo(HaveOccurred(), "editing")

	// Every edit converges: each application's Deployment carries its last value.
	g.Eventually(func(g Gomega) {
		deployments := deploymentsOf(g, ns)
		for name, value := range edits {
			env := deployments[name].Spec.Template.Spec.Containers[0].Env
			g.Expect(env).To(ContainElement(corev1.EnvVar{Name: "EDIT", Value: value}), name)
		}
	}, 2*time.Minute, time.Second).Should(Succeed())
	waitConverged(t, ns, apps, time.Minute)
	convergedAfter := time.Since(healedAt)

	// The old leader comes back, Ready, as a follower (the same pod: the kubelet restarts
	// its container if the manager exited on losing the Lease), and stays one.
	p := &corev1.Pod{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(&leaderPod), p)).To(Succeed())
		g.Expect(framework.PodReady(p)).To(BeTrue())
	}, 3*time.Minute, 250*time.Millisecond).Should(Succeed())
	backAfter := time.Since(healedAt)
	g.Consistently(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, operatorNamespace)).To(Equal(next))
	}, 15*time.Second, time.Second).Should(Succeed())

	// From the audit log: the takeover, the old leader's last renewal before it, the
	// Lease's expiry, and what the old leader's pod wrote after it.
	var takeover time.Time
	for _, e := range auditEvents(g, func(e *auditv1.Event) bool { return succeeded(e) && sentBy(e, next) && isLease(e) }) {
		if at := e.RequestReceivedTimestamp.Time; at.After(cutAt) && (takeover.IsZero() || at.Before(takeover)) {
			takeover = at
		}
	}
	g.Expect(takeover).NotTo(BeZero())
	loss := lostLease(g, leader, takeover, leaseDuration)
	late := make([]string, 0, len(loss.late))
	for _, e := range loss.late {
		late = append(late, describe(e))
	}
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(&leaderPod), p)).To(Succeed())
	restarts := p.Status.ContainerStatuses[0].RestartCount - leaderPod.Status.ContainerStatuses[0].RestartCount
	t.Logf("lease %s: old leader's last renewal %s before the cut; %s took over %s after it (%s after its expiry); "+
		"old leader's last write %s relative to the expiry; %d writes of it after the expiry; "+
		"%d edits converged %s after the partition healed; old leader back Ready after %s, %d container restarts, follower",
		leaseDuration, cutAt.Sub(loss.lastRenew).Round(10*time.Millisecond), next, takeover.Sub(loss.lastRenew).Round(10*time.Millisecond),
		takeover.Sub(loss.expiry).Round(10*time.Millisecond), loss.lastWrite.Sub(loss.expiry).Round(10*time.Millisecond), len(late),
		len(edits), convergedAfter.Round(100*time.Millisecond), backAfter.Round(100*time.Millisecond), restarts)
	// The follower counts the lease duration from when it saw the last renewal, up to one
	// retry after it was made, and takes the Lease at its next retry.
	g.Expect(takeover.Sub(loss.lastRenew)).To(BeNumerically("<=", leaseDuration+2*retryPeriod), "takeover within the lease duration and one retry")
	g.Expect(late).To(BeEmpty(), "writes of the partitioned leader after its Lease expired")
	g.Expect(p.Spec.NodeName).To(Equal(localcluster.NodeName))
}
