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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// restartCounts is each manager pod's container restarts, by pod name.
func restartCounts(pods []corev1.Pod) map[string]int32 {
	counts := map[string]int32{}
	for _, p := range pods {
		counts[p.Name] = p.Status.ContainerStatuses[0].RestartCount
	}
	return counts
}

// livenessEvents lists the kubelet's Events since since about a manager container it killed
// for failing its liveness probe (the restarts a leader's exit on losing its Lease does not
// excuse), and those about a probe that failed: fewer than the probe's failureThreshold in a
// row kill nothing.
func livenessEvents(g Gomega, since time.Time) (kills, failures []string) {
	events := &corev1.EventList{}
	g.Expect(k8s.List(context.Background(), events, client.InNamespace(operatorNamespace))).To(Succeed())
	for _, e := range events.Items {
		last := e.LastTimestamp.Time
		if last.IsZero() {
			last = e.EventTime.Time
		}
		if e.InvolvedObject.Kind != "Pod" || last.Before(since) {
			continue
		}
		event := fmt.Sprintf("%s %s %s: %s (%d times)", last.Format(time.StampMilli), e.InvolvedObject.Name, e.Reason, e.Message, e.Count)
		switch {
		case e.Reason == "Killing" && strings.Contains(e.Message, "liveness"):
			kills = append(kills, event)
		case e.Reason == "Unhealthy" && strings.HasPrefix(e.Message, "Liveness probe"):
			failures = append(failures, event)
		}
	}
	return kills, failures
}

// TestControlPlaneRestartsUnderBurst creates 500 DemoApplications of one pod each while
// kube-apiserver is restarted once, then etcd: every one converges, with exactly one
// Deployment, one ReplicaSet and one Service each, none Degraded or of a stale generation.
// The kubelet never kills a manager container: a container may restart only because its
// manager, leading, could not renew the Lease through the outage and exited, as a leader
// must; then the audit log shows no write of its pod after the Lease expired, until it led
// again.
func TestControlPlaneRestartsUnderBurst(t *testing.T) {
	const n = 500
	g := NewWithT(t)
	// Each wait below has a deadline of its own; this one bounds the outages and the creates.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	installRelease(t, currentImage)
	pods := electedPods(t, currentImage, time.Minute)
	before := restartCounts(pods)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, p := range pods {
			logs, _ := cs.CoreV1().Pods(operatorNamespace).GetLogs(p.Name, &corev1.PodLogOptions{TailLines: ptr.To[int64](40)}).DoRaw(context.Background())
			t.Logf("%s log:\n%s", p.Name, logs)
		}
	})
	leaseDuration := leaseDuration(g)
	ns := appNamespace(t, "burst-")

	// A user's client retries what the outage refuses; a create whose answer the outage
	// lost may find its object already there.
	created := make(chan int, n)
	createErr := make(chan error, 1)
	go func() {
		defer close(created)
		for _, i := range span(0, n) {
			var last error
			err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
				app := newApp(ns, i)
				app.Spec.Replica = ptr.To[int32](1)
				last = k8s.Create(ctx, app)
				return last == nil || apierrors.IsAlreadyExists(last), nil
			})
			if err != nil {
				createErr <- fmt.Errorf("creating DemoApplication %d of %d: %w; last answer: %v", i+1, n, err, last)
				return
			}
			created <- i
		}
	}()
	start := time.Now()
	var outages []string
	count := 0
	for range created {
		count++
		var component string
		switch count {
		case n / 5:
			component = localcluster.APIServer
		case n / 2:
			component = localcluster.Etcd
		default:
			continue
		}
		down := time.Now()
		g.Expect(cluster.Restart(ctx, component)).To(Succeed())
		outages = append(outages, component+" restarted in "+time.Since(down).Round(10*time.Millisecond).String())
	}
	select {
	case err := <-createErr:
		g.Expect(err).NotTo(HaveOccurred())
	default:
	}
	g.Expect(count).To(Equal(n))
	createdIn := time.Since(start)
	waitConverged(t, ns, n, 8*time.Minute)
	convergedIn := time.Since(start)

	// No duplicates: one Deployment, one ReplicaSet, one Service per DemoApplication.
	owned := func(objs []metav1.Object) map[string]int {
		by := map[string]int{}
		for _, o := range objs {
			if ref := metav1.GetControllerOf(o); ref != nil {
				by[ref.Kind+"/"+ref.Name]++
			}
		}
		return by
	}
	deployments, replicaSets, services := &appsv1.DeploymentList{}, &appsv1.ReplicaSetList{}, &corev1.ServiceList{}
	g.Expect(k8s.List(ctx, deployments, client.InNamespace(ns))).To(Succeed())
	g.Expect(k8s.List(ctx, replicaSets, client.InNamespace(ns))).To(Succeed())
	g.Expect(k8s.List(ctx, services, client.InNamespace(ns))).To(Succeed())
	d, r := make([]metav1.Object, 0, len(deployments.Items)), make([]metav1.Object, 0, len(replicaSets.Items))
	var s []metav1.Object
	for i := range deployments.Items {
		d = append(d, &deployments.Items[i])
	}
	for i := range replicaSets.Items {
		r = append(r, &replicaSets.Items[i])
	}
	for i := range services.Items {
		if ref := metav1.GetControllerOf(&services.Items[i]); ref != nil && ref.Kind == "DemoApplication" {
			s = append(s, &services.Items[i])
		}
	}
	for kind, by := range map[string]map[string]int{"Deployments": owned(d), "ReplicaSets": owned(r), "Services": owned(s)} {
		g.Expect(by).To(HaveLen(n), kind)
		for owner, count := range by {
			g.Expect(count).To(Equal(1), "%s of %s", kind, owner)
		}
	}

	// Restarts: none the kubelet's, each one a leader's exit on losing its Lease, or a start
	// while the API server was down, which its log says.
	kills, failures := livenessEvents(g, start)
	g.Expect(kills).To(BeEmpty(), "the kubelet killed a manager container for its liveness probe")
	t.Logf("liveness probes failed under the burst, none killing: %v", failures)
	var restarts []string
	for _, p := range electedPods(t, currentImage, 2*time.Minute) {
		status := p.Status.ContainerStatuses[0]
		if status.RestartCount == before[p.Name] {
			continue
		}
		last := status.LastTerminationState.Terminated
		g.Expect(last).NotTo(BeNil(), "%s restarted %d times, with no last termination", p.Name, status.RestartCount-before[p.Name])
		logs, err := cs.CoreV1().Pods(operatorNamespace).GetLogs(p.Name, &corev1.PodLogOptions{
			Container: status.Name, Previous: true, TailLines: ptr.To[int64](20)}).DoRaw(ctx)
		g.Expect(err).NotTo(HaveOccurred(), "logs of %s's last container", p.Name)
		// A leader that lost its Lease exits; restarted while kube-apiserver is still down,
		// the manager cannot start (it reads the API's discovery first) and exits again
		// until the kubelet's next try finds the API server back.
		leaderLost := strings.Contains(string(logs), "leader election lost")
		startedTooSoon := strings.Contains(string(logs), `"error":"creating the manager:`) &&
			strings.Contains(string(logs), "connect: connection refused")
		g.Expect(last.ExitCode == 1 && (leaderLost || startedTooSoon)).To(BeTrue(),
			"%s restarted %d times; its last container ended %s with exit code %d (%s), logging:\n%s",
			p.Name, status.RestartCount-before[p.Name], last.FinishedAt.Format(time.RFC3339), last.ExitCode, last.Reason, logs)
		loss := lostLease(g, p.Name, last.FinishedAt.Time, leaseDuration)
		var late []string
		for _, e := range loss.late {
			late = append(late, describe(e))
		}
		g.Expect(late).To(BeEmpty(), "writes of %s after its Lease expired, before it led again", p.Name)
		restarts = append(restarts, fmt.Sprintf("%s: %d (last: leader election lost %v, API server down at start %v), Lease lost %s after its last renewal, "+
			"last write %s before the expiry", p.Name, status.RestartCount-before[p.Name], leaderLost, startedTooSoon,
			last.FinishedAt.Sub(loss.lastRenew).Round(time.Second), loss.expiry.Sub(loss.lastWrite).Round(10*time.Millisecond)))
	}
	t.Logf("%d DemoApplications created in %s through %v; all converged after %s, one Deployment, ReplicaSet and Service each; "+
		"no liveness kill; manager container restarts %v", n, createdIn.Round(100*time.Millisecond), outages,
		convergedIn.Round(100*time.Millisecond), restarts)
}
