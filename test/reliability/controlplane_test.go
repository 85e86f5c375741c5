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

	"github.com/cmft/demo-operator/internal/test/localcluster"
)

// restartCounts is each manager pod's container restarts, by pod name.
func restartCounts(pods []corev1.Pod) map[string]int32 {
	counts := map[string]int32{}
	for _, p := range pods {
		counts[p.Name] = p.Status.ContainerStatuses[0].RestartCount
	}
	return counts
}

// TestControlPlaneRestartsUnderBurst creates 500 DemoApplications of one pod each while kube-apiserver is
// restarted once, then etcd: every one converges, with exactly one Deployment, one
// ReplicaSet and one Service each, none Degraded or of a stale generation, and the manager
// pods' containers never restart.
func TestControlPlaneRestartsUnderBurst(t *testing.T) {
	const n = 500
	g := NewWithT(t)
	ctx := context.Background()
	installRelease(t, currentImage)
	before := restartCounts(managerPods(t, currentImage, time.Minute))
	ns := appNamespace(t, "burst-")

	// A user's client retries what the outage refuses; a create whose answer the outage
	// lost may find its object already there.
	created := make(chan int, n)
	go func() {
		defer close(created)
		for _, i := range span(0, n) {
			_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
				app := newApp(ns, i)
				app.Spec.Replica = ptr.To[int32](1)
				err := k8s.Create(ctx, app)
				return err == nil || apierrors.IsAlreadyExists(err), nil
			})
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
	g.Expect(count).To(Equal(n))
	createdIn := time.Since(start)
	waitConverged(t, ns, n, 10*time.Minute)
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
	var d, r, s []metav1.Object
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

	after := restartCounts(managerPods(t, currentImage, time.Minute))
	t.Logf("%d DemoApplications created in %s through %v; all converged after %s, one Deployment, ReplicaSet and Service each; "+
		"manager container restarts before %v, after %v", n, createdIn.Round(100*time.Millisecond), outages,
		convergedIn.Round(100*time.Millisecond), before, after)
	g.Expect(after).To(Equal(before), "manager containers restarted")
}
