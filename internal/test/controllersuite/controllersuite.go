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
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/requestcount"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// Suite is the running suite. Tests assert through Client, which reads the API server directly
// rather than the manager's cache.
type Suite struct {
	Config  *rest.Config
	Client  client.Client
	Manager ctrl.Manager
	// Requests counts the manager's requests, so that tests can show a reconcile that changes
	// nothing writes nothing, and which reads the cache does not answer.
	Requests *requestcount.Counter
}

// OwnManager labels the DemoApplications the suite's manager leaves to a manager a test runs
// itself (RunManager), with options of its own: two managers would fight over them.
const OwnManager = "controllersuite.paas.cmft.com/own-manager"

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
	s.Requests = &requestcount.Counter{}
	mgrCfg.WrapTransport = s.Requests.Wrap
	notOwn, err := labels.NewRequirement(OwnManager, selection.DoesNotExist, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if s.Manager, err = manager.New(mgrCfg, opts, func(o *ctrl.Options) {
		o.Cache.ByObject[&paasv1.DemoApplication{}] = cache.ByObject{Label: labels.NewSelector().Add(*notOwn)}
	}); err != nil {
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

// RunManager runs, until the test ends or stop is called, another manager with opts, as the
// operator and watching the namespaces opts names: a test's own, whose DemoApplications are
// labelled OwnManager. It counts its requests in requests.
func (s *Suite) RunManager(t testing.TB, opts manager.Options) (requests *requestcount.Counter, stop func()) {
	t.Helper()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	cfg := testenv.OperatorConfig(s.Config)
	requests = &requestcount.Counter{}
	cfg.WrapTransport = requests.Wrap
	// The suite's manager has registered the controllers' names in this process.
	mgr, err := manager.New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	if err != nil {
		t.Fatalf("building a manager: %v", err)
	}
	return requests, Start(t, mgr)
}

// Start starts mgr until the test ends or stop is called, and fails the test if it stops
// with an error.
func Start(t testing.TB, mgr ctrl.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager stopped: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// MergePatch applies a JSON merge patch to obj, as a user's kubectl patch would.
func (s *Suite) MergePatch(t testing.TB, obj client.Object, patch string) {
	t.Helper()
	if err := s.Client.Patch(context.Background(), obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		t.Fatalf("patching %s: %v", obj.GetName(), err)
	}
}

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

// WritesUnder counts the manager's writes under any of prefixes.
func (s *Suite) WritesUnder(prefixes ...string) (n int) {
	for _, p := range prefixes {
		n += s.Requests.WritesUnder(p)
	}
	return n
}

// Quiesced returns the manager's writes under prefixes once a second has passed without one:
// a write is counted when its answer reaches the manager, which may be after a test saw it
// land, and a reconcile's last write may come after what a test waited for (a status write
// after the observedGeneration it read); a loop never stops writing.
func (s *Suite) Quiesced(g Gomega, prefixes ...string) int {
	n := -1
	g.Eventually(func() int {
		last := n
		n = s.WritesUnder(prefixes...)
		return n - last
	}, 15*time.Second, time.Second).Should(BeZero(), "writes under %v stop", prefixes)
	return n
}
