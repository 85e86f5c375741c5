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
	"os"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The suite runs one manager, built exactly as the binary builds it and with the operator's
// RBAC, against a real kube-apiserver and etcd; tests assert through k8sClient, which reads the API server
// directly rather than the manager's cache.
var (
	cfg       *rest.Config
	k8sClient client.Client
	mgr       ctrl.Manager
	writes    *controllersuite.Requests
)

func TestMain(m *testing.M) {
	os.Exit(controllersuite.Run(m, func(s *controllersuite.Suite) {
		cfg, k8sClient, mgr, writes = s.Config, s.Client, s.Manager, s.Requests
	}))
}

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
