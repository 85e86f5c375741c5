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
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestLeaderElectionID runs managers in one namespace on a real API server: two installs
// with Lease names of their own each elect a leader, two replicas of one install only one.
func TestLeaderElectionID(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "operators"}}
	g.Expect(c.Create(context.Background(), ns)).To(Succeed())

	// start runs a manager with the Lease id in ns until the returned function stops it.
	start := func(id string) (ctrl.Manager, func()) {
		opts := DefaultOptions()
		opts.MetricsAddr, opts.ProbeAddr = "0", "0"
		opts.LeaderElect, opts.LeaderElectionNS, opts.LeaderElectionID = true, ns.Name, id
		mgr, err := New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
		g.Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- mgr.Start(ctx) }()
		stop := sync.OnceFunc(func() {
			cancel()
			if err := <-done; err != nil {
				t.Logf("manager %s stopped: %v", id, err)
			}
		})
		t.Cleanup(stop)
		return mgr, stop
	}

	a, stopA := start("web-demo-operator")
	b, _ := start("api-demo-operator")
	g.Eventually(a.Elected(), 30*time.Second).Should(BeClosed())
	g.Eventually(b.Elected(), 30*time.Second).Should(BeClosed(), "a second install in the namespace leads too")

	replica, _ := start("web-demo-operator")
	g.Consistently(replica.Elected(), 3*time.Second).ShouldNot(BeClosed(), "a replica of the first waits")
	stopA()
	g.Eventually(replica.Elected(), 30*time.Second).Should(BeClosed(), "and takes over once the leader lets go")

	// By default the manager's clients have no client-side rate limit, as in
	// controller-runtime: the API server's Priority and Fairness protects it.
	g.Expect(a.GetConfig().QPS).To(BeNumerically("<", 0))
	g.Expect(a.GetConfig().RateLimiter).To(BeNil())
}
