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

package bench

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// StartAndFailover are the manager's start and leader handover times, medians over the runs.
type StartAndFailover struct {
	// ReadySeconds runs from exec to the manager's /readyz answering 200.
	ReadySeconds []float64 `json:"readySeconds"`
	// CachesSeconds runs from exec to every informer of the controllers holding its kind.
	CachesSeconds []float64 `json:"cachesSeconds"`
	// KillSeconds runs from kill -9 of the leader to the follower leading.
	KillSeconds []float64 `json:"killSeconds"`
	// GracefulSeconds runs from SIGTERM to the leader to the follower leading.
	GracefulSeconds []float64 `json:"gracefulSeconds"`
}

// startAndFailover measures the start of a manager on the API server as the earlier
// scenarios left it, then leader failover between two managers.
func (b *Bench) startAndFailover(ctx context.Context) error {
	r := &StartAndFailover{}
	b.results.Start = r
	for range b.cfg.Runs {
		ready, caches, err := b.startToReady(ctx)
		if err != nil {
			return err
		}
		r.ReadySeconds, r.CachesSeconds = append(r.ReadySeconds, ready), append(r.CachesSeconds, caches)
		b.logf("start: /readyz after %.2fs, caches full after %.2fs", ready, caches)
	}
	ns, err := b.newNamespace(ctx, "leader")
	if err != nil {
		return err
	}
	for range b.cfg.Runs {
		kill, graceful, err := b.failover(ns)
		if err != nil {
			return err
		}
		r.KillSeconds, r.GracefulSeconds = append(r.KillSeconds, kill), append(r.GracefulSeconds, graceful)
		b.logf("failover: after kill -9 %.2fs, after SIGTERM %.2fs", kill, graceful)
	}
	return nil
}

func (b *Bench) startToReady(ctx context.Context) (ready, caches float64, err error) {
	addr, err := localcluster.FreeAddr()
	if err != nil {
		return 0, 0, err
	}
	f := b.defaultSetting().child(RoleManager, b.lateNamespaces())
	f.probeAddr = addr
	p, err := b.start(f)
	if err != nil {
		return 0, 0, err
	}
	defer p.stop()
	if err := awaitReady(ctx, addr, 10*time.Millisecond, 5*time.Minute); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", p.name, err)
	}
	ready = seconds(time.Since(p.started))
	if err := p.await(5*time.Minute, "ready"); err != nil {
		return 0, 0, err
	}
	at := p.event("ready")
	return ready, seconds(at.Sub(p.started)), nil
}

// failover starts two electing managers, kills the leader with SIGKILL and times the
// follower's takeover; then starts a third and stops the new leader with SIGTERM, which
// releases the Lease.
func (b *Bench) failover(namespace string) (kill, graceful float64, err error) {
	f := b.defaultSetting().child(RoleManager, b.lateNamespaces())
	f.leaderElect, f.leaseNamespace = true, namespace
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.kill()
		}
	}()
	startOne := func() (*proc, error) {
		p, err := b.start(f)
		if err == nil {
			procs = append(procs, p)
			err = p.await(2*time.Minute, "synced")
		}
		return p, err
	}
	first, err := startOne()
	if err != nil {
		return 0, 0, err
	}
	if err := first.await(time.Minute, "elected"); err != nil {
		return 0, 0, err
	}
	second, err := startOne()
	if err != nil {
		return 0, 0, err
	}
	// Let the follower try the Lease once, as it would have long before a real failure.
	time.Sleep(3 * time.Second)

	killed := time.Now()
	first.kill()
	if err := second.await(time.Minute, "elected"); err != nil {
		return 0, 0, err
	}
	at := second.event("elected")
	kill = seconds(at.Sub(killed))

	third, err := startOne()
	if err != nil {
		return 0, 0, err
	}
	time.Sleep(3 * time.Second)
	stopped := time.Now()
	if err := second.signal(syscall.SIGTERM); err != nil {
		return 0, 0, err
	}
	if err := third.await(time.Minute, "elected"); err != nil {
		return 0, 0, err
	}
	at = third.event("elected")
	return kill, seconds(at.Sub(stopped)), nil
}
