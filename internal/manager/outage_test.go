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

package manager

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRecoversAfterAPIServerOutage stops kube-apiserver while the manager has 150 new
// DemoApplications to reconcile, so that every reconcile fails for the whole outage, and
// starts it again: every app must show its status within a few retry backoffs of the API
// server's return, not after a wait as long as the outage (controller-runtime's default
// limiter doubles each app's wait up to 1000 s).
func TestRecoversAfterAPIServerOutage(t *testing.T) {
	t.Parallel()
	const (
		apps    = 150
		outage  = 25 * time.Second
		backoff = 2 * time.Second
		// The backoff and 150 reconciles on a loaded machine; with controller-runtime's
		// default limiter the last app waited 20 s.
		bound = 10 * time.Second
	)
	g := NewWithT(t)
	env, err := testenv.New()
	g.Expect(err).NotTo(HaveOccurred())
	// Killed right after SIGTERM, a crash: drained gracefully, kube-apiserver would serve
	// the manager's requests for up to a minute. It keeps its certificates across the
	// restart, which the clients trust.
	env.ControlPlaneStopTimeout = time.Millisecond
	env.ControlPlane.GetAPIServer().CertDir = t.TempDir()
	cfg, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "outage"}}
	g.Expect(c.Create(ctx, ns)).To(Succeed())
	// Created before the manager starts: its first list queues them all at once.
	for i := range apps {
		app := &paasv1.DemoApplication{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%03d", i), Namespace: ns.Name},
			Spec:       paasv1.DemoApplicationSpec{Image: "registry.local/shop:1"},
		}
		g.Expect(c.Create(ctx, app)).To(Succeed())
	}

	opts := DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr, opts.EnablePodLabeler = "0", "0", false
	opts.MaxRetryBackoff = backoff
	mgr, err := New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	g.Expect(err).NotTo(HaveOccurred())
	// The manager's first Deployment: its workers run only once its caches have synced, and
	// so once its queue holds every app (controller-runtime waits for the handlers to have
	// seen the informers' first list). Read from the API server rather than from the
	// process's metrics, which the package's other tests share.
	deployments, err := c.Watch(ctx, &appsv1.DeploymentList{}, client.InNamespace(ns.Name))
	g.Expect(err).NotTo(HaveOccurred())
	mgrCtx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Logf("manager stopped: %v", err)
		}
	})
	// Killed then, before it reconciles many: killed earlier, the wait would be the
	// informers' own list backoff, not the reconciles'.
	select {
	case <-deployments.ResultChan():
	case <-time.After(time.Minute):
		t.Fatal("the manager created no Deployment within a minute")
	}
	deployments.Stop()
	apiServer := env.ControlPlane.GetAPIServer()
	stopped := time.Now()
	g.Expect(apiServer.Stop()).To(Or(Succeed(), MatchError(ContainSubstring("timeout waiting"))))
	time.Sleep(time.Until(stopped.Add(outage)))
	g.Expect(apiServer.Start()).To(Succeed())
	back := time.Now()
	t.Logf("kube-apiserver down %.1fs", back.Sub(stopped).Seconds())

	// pending lists the apps whose status or Deployment is not there yet.
	pending := func() []string {
		list, deployments := &paasv1.DemoApplicationList{}, &appsv1.DeploymentList{}
		if c.List(ctx, list, client.InNamespace(ns.Name)) != nil || c.List(ctx, deployments, client.InNamespace(ns.Name)) != nil {
			return []string{"(no answer)"}
		}
		deployed := map[string]bool{}
		for _, d := range deployments.Items {
			deployed[d.Name] = true
		}
		var names []string
		for _, app := range list.Items {
			if app.Status.ObservedGeneration != app.Generation || !deployed[app.Name] {
				names = append(names, app.Name)
			}
		}
		return names
	}
	waiting := len(pending())
	t.Logf("%d of %d DemoApplications not reconciled when kube-apiserver returned", waiting, apps)
	g.Eventually(pending, 3*time.Minute, 250*time.Millisecond).Should(BeEmpty())
	took := time.Since(back)
	t.Logf("%d DemoApplications reconciled %.1fs after kube-apiserver returned", apps, took.Seconds())
	g.Expect(took).To(BeNumerically("<", bound), "every DemoApplication reconciled within %v of kube-apiserver's return", bound)
}
