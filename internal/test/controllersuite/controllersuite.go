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

// Package controllersuite is what each controller package's integration tests share: a real
// kube-apiserver and etcd (testenv), an admin client, and one manager built exactly as the binary
// builds it, running with the operator's RBAC, whose requests are counted.
package controllersuite

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// Suite is the running suite. Tests assert through Client, which reads the API server directly
// rather than the manager's cache.
type Suite struct {
	Config   *rest.Config
	Client   client.Client
	Manager  ctrl.Manager
	Requests *Requests
}

// Run starts the suite, hands it to started (which keeps what the package's tests use), runs
// m's tests and stops it; it returns m's exit code, 1 when the suite could not start.
func Run(m *testing.M, started func(*Suite)) int {
	s := &Suite{}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	// Reconciles race the tests' own writes on two shared cores: give them time.
	SetDefaultEventuallyTimeout(15 * time.Second)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	env, cfg, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	s.Config = cfg

	if s.Client, err = client.New(cfg, client.Options{Scheme: manager.Scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	opts := manager.DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	opts.ConflictRetry = time.Second
	// The manager runs with the operator's RBAC, not as admin: a rule missing from it, or one
	// an admission plugin requires (OwnerReferencesPermissionEnforcement), fails here.
	mgrCfg, err := testenv.AsOperator(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s.Requests = &Requests{writes: map[string]int{}, reads: map[string]int{}}
	mgrCfg.WrapTransport = s.Requests.wrap
	if s.Manager, err = manager.New(mgrCfg, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Manager.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "manager stopped:", err)
		}
	}()

	started(s)
	return m.Run()
}

// NewNamespace creates a namespace for one test.
func (s *Suite) NewNamespace(t testing.TB) string { return testenv.NewNamespace(t, s.Client, "test-") }

// EventReasons returns the reasons of the events recorded about the named object.
func (s *Suite) EventReasons(g Gomega, namespace, name string) []string {
	list := &eventsv1.EventList{}
	g.Expect(s.Client.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

// Requests counts the manager's requests by path, writes apart from reads, so that tests can
// show a reconcile that changes nothing writes nothing, and which reads the cache does not answer.
type Requests struct {
	mu     sync.Mutex
	writes map[string]int
	reads  map[string]int
}

func (r *Requests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		r.mu.Lock()
		if req.Method != http.MethodGet {
			r.writes[req.URL.Path]++
		} else {
			r.reads[req.URL.Path]++
		}
		r.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

// ReadsUnder returns how many reads went to paths under prefix: those the cache does not
// answer (its lists and watches are cluster-wide, under no namespace).
func (r *Requests) ReadsUnder(prefix string) int {
	return r.under(r.reads, prefix, "")
}

// WritesUnder returns how many writes went to paths under prefix (events excluded: they are
// reports, not changes).
func (r *Requests) WritesUnder(prefix string) int {
	return r.under(r.writes, prefix, "/events")
}

// under sums counts of the paths under prefix, but those containing except when it is set.
func (r *Requests) under(counts map[string]int, prefix, except string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for path, count := range counts {
		if strings.HasPrefix(path, prefix) && (except == "" || !strings.Contains(path, except)) {
			n += count
		}
	}
	return n
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
