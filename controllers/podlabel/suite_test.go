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

package podlabel_test

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
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The suite runs one manager, built exactly as the binary builds it and with the operator's
// RBAC, against a real kube-apiserver and etcd; tests assert through k8sClient, which reads the API server
// directly rather than the manager's cache.
var (
	cfg       *rest.Config
	k8sClient client.Client
	mgr       ctrl.Manager
	writes    = &writeCounter{counts: map[string]int{}}
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	// Reconciles race the tests' own writes on two shared cores: give them time.
	SetDefaultEventuallyTimeout(15 * time.Second)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	env, config, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	cfg = config

	k8sClient, err = client.New(cfg, client.Options{Scheme: manager.Scheme})
	if err != nil {
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
	mgrCfg.WrapTransport = writes.wrap
	mgr, err = manager.New(mgrCfg, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "manager stopped:", err)
		}
	}()

	return m.Run()
}

// writeCounter counts the manager's write requests by method and path, so that tests can
// show a reconcile that changes nothing writes nothing.
type writeCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (w *writeCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodGet {
			w.mu.Lock()
			w.counts[req.Method+" "+req.URL.Path]++
			w.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// to returns how many writes went to paths under prefix (events excluded: they are
// reports, not changes).
func (w *writeCounter) to(prefix string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for key, count := range w.counts {
		path := key[strings.Index(key, " ")+1:]
		if strings.HasPrefix(path, prefix) && !strings.Contains(path, "/events") {
			n += count
		}
	}
	return n
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// newNamespace creates a namespace of its own for one test. envtest runs no namespace
// controller, so namespaces are never deleted: names are unique instead.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := k8sClient.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}

// reconcileErrors returns how many reconciles of the named controller returned an error.
func reconcileErrors(g Gomega, controller string) float64 {
	errors, err := testenv.Counter("controller_runtime_reconcile_errors_total", "controller", controller)
	g.Expect(err).NotTo(HaveOccurred())
	return errors
}

// eventsFor returns the reasons of the events recorded about the named object.
func eventsFor(g Gomega, namespace, name string) []string {
	list := &eventsv1.EventList{}
	g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}
