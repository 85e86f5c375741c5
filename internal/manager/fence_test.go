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
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/leasefence"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestLeaderThatLostItsLeaseNeverWritesAgain takes a leading manager's Lease from it on a
// real API server while its client writes as fast as it can, and goes on writing after the
// manager has stopped, as workers do until the process exits: no write lands once the Lease
// has expired, each is refused by the lease fence.
func TestLeaderThatLostItsLeaseNeverWritesAgain(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "operators"}}
	g.Expect(admin.Create(ctx, ns)).To(Succeed())
	written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "written"}}
	g.Expect(admin.Create(ctx, written)).To(Succeed())

	opts := DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	opts.LeaderElect, opts.LeaderElectionNS = true, ns.Name
	opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = 4*time.Second, 3*time.Second, 500*time.Millisecond
	mgr, err := New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	g.Expect(err).NotTo(HaveOccurred())
	mgrCtx, stop := context.WithCancel(ctx)
	defer stop()
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(mgrCtx) }()
	g.Eventually(mgr.Elected(), 30*time.Second).Should(BeClosed())

	var (
		mu                sync.Mutex
		writes            int
		lastWrite         time.Time
		lastErr           error
		writerCtx, finish = context.WithCancel(ctx)
		writerDone        = make(chan struct{})
	)
	go func() {
		defer close(writerDone)
		for i := 0; writerCtx.Err() == nil; i++ {
			patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"data":{"n":"%d"}}`, i))
			err := mgr.GetClient().Patch(writerCtx, written.DeepCopy(), patch)
			mu.Lock()
			if err == nil {
				writes, lastWrite = writes+1, time.Now()
			} else {
				lastErr = err
			}
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	g.Eventually(func() int { mu.Lock(); defer mu.Unlock(); return writes }, 10*time.Second).Should(BeNumerically(">", 10))

	// Another holder takes the Lease; the manager's last renewal is the one it overwrites.
	var expiry time.Time
	g.Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		lease := &coordinationv1.Lease{}
		if err := admin.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: opts.LeaderElectionID}, lease); err != nil {
			return err
		}
		expiry = lease.Spec.RenewTime.Add(time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second)
		lease.Spec.HolderIdentity = ptr.To("another-manager")
		lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		lease.Spec.LeaseDurationSeconds = ptr.To[int32](3600)
		return admin.Update(ctx, lease)
	})).To(Succeed())

	g.Eventually(stopped, 30*time.Second).Should(Receive(MatchError(ContainSubstring("leader election lost"))))
	time.Sleep(time.Until(expiry.Add(2 * time.Second)))
	finish()
	<-writerDone

	mu.Lock()
	defer mu.Unlock()
	g.Expect(lastWrite).To(BeTemporally("<", expiry), "the manager's last write, after its Lease expired at %s", expiry.Format(time.StampMilli))
	g.Expect(lastErr).To(MatchError(leasefence.ErrClosed))
	t.Logf("%d writes; the last returned %s before the Lease expired", writes, expiry.Sub(lastWrite).Round(time.Millisecond))
}
