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

// Package leasefence closes a leader's writes once its leader-election Lease may have
// lapsed. client-go's elector gives the Lease up only after its renewals have failed for the
// renew deadline, and a renewal hung in a restarting API server can carry that past the
// Lease's expiry, while the manager's workers and event recorder go on writing until the
// process ends. The fence refuses every write from the renew deadline after the last
// renewal that succeeded, whatever the elector's timing: a leader that lost its Lease never
// writes again.
package leasefence

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// ErrClosed is the error of a write the fence refused.
var ErrClosed = errors.New("refused by the lease fence: the leader-election Lease may have lapsed since its last renewal")

// Fence is open for the renew deadline from the sending of each acquisition or renewal of
// the Lease that succeeded, and closed once the Lease is released. Before the first
// acquisition it is open: a replica that has never led runs only what needs no Lease.
type Fence struct {
	renewDeadline time.Duration

	mu sync.Mutex
	// until is when the fence closes; zero until the Lease is first acquired.
	until time.Time
}

// New returns a fence for an elector that gives the Lease up after renewDeadline.
func New(renewDeadline time.Duration) *Fence {
	return &Fence{renewDeadline: renewDeadline}
}

// Lock returns lock, through which each acquisition or renewal opens the fence and a
// release closes it.
func (f *Fence) Lock(lock resourcelock.Interface) resourcelock.Interface {
	return &fencedLock{Interface: lock, fence: f}
}

// Wrap is a rest.Config's WrapTransport: every request but a read fails with ErrClosed
// while the fence is closed, retries included, as client-go sends each through it.
func (f *Fence) Wrap(next http.RoundTripper) http.RoundTripper {
	return &transport{fence: f, next: next}
}

// open reports whether a write sent at now goes through.
func (f *Fence) open(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.until.IsZero() || now.Before(f.until)
}

// wrote records a write of the Lease that succeeded, sent at sent: one naming this
// replica as holder opens the fence until the renew deadline, a release closes it.
func (f *Fence) wrote(sent time.Time, holding bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if holding {
		f.until = sent.Add(f.renewDeadline)
	} else {
		f.until = sent
	}
}

type fencedLock struct {
	resourcelock.Interface
	fence *Fence
}

func (l *fencedLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.write(ctx, l.Interface.Create, ler)
}

func (l *fencedLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.write(ctx, l.Interface.Update, ler)
}

// write makes one write of the Lease and, if it succeeded, tells the fence when it was sent.
func (l *fencedLock) write(ctx context.Context, write func(context.Context, resourcelock.LeaderElectionRecord) error,
	ler resourcelock.LeaderElectionRecord) error {
	sent := time.Now()
	err := write(ctx, ler)
	if err == nil {
		l.fence.wrote(sent, ler.HolderIdentity == l.Identity())
	}
	return err
}

type transport struct {
	fence *Fence
	next  http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead && !t.fence.open(time.Now()) {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrClosed)
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go reach the transport beneath, as its own wrappers do.
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }
