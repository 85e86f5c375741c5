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

// Package framework holds what the end-to-end suites (kwok nodes, the real node) share: a
// local cluster of their own, a namespace per test, and the pods that serve.
package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/localcluster"
)

// Clients returns the two clients a suite talks to its cluster with: controller-runtime's, of
// scheme, and a clientset for what it has no typed objects for (tokens, logs, leases).
func Clients(cfg *rest.Config, scheme *runtime.Scheme) (client.Client, kubernetes.Interface, error) {
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return k8s, cs, nil
}

// NewNamespace creates a namespace for one test, named prefix and a random suffix, with
// labels, and deletes it afterwards; the namespace controller finishes the deletion in the
// background.
func NewNamespace(t *testing.T, k8s client.Client, prefix string, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix, Labels: labels}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	// Pods are refused until the ServiceAccount controller creates the default ServiceAccount.
	NewWithT(t).Eventually(func() error {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: ns.Name, Name: "default"}, &corev1.ServiceAccount{})
	}, 30*time.Second, 100*time.Millisecond).Should(Succeed())
	return ns.Name
}

// ReadyPods returns the pods matching labels that are Running and Ready, not being deleted.
func ReadyPods(g Gomega, k8s client.Client, namespace string, labels map[string]string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(namespace), client.MatchingLabels(labels))).To(Succeed())
	var out []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && PodReady(&p) {
			out = append(out, p)
		}
	}
	return out
}

// PodReady reports whether the pod's Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Run gives c a temporary state directory and free ports, runs setUp (which starts c, with
// whatever it builds meanwhile, in dir) and the tests, then stops c and removes dir. When
// setUp or a test fails, report (if not nil) runs first, while c still runs, to print what
// explains it. It returns the exit code for os.Exit.
func Run(m *testing.M, c *localcluster.Cluster, setUp func(dir string) error, report func()) int {
	dir, err := os.MkdirTemp("", "demo-operator-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if c.PortBase, err = localcluster.FreePortBase(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c.Dir = filepath.Join(dir, "cluster")
	defer func() {
		if err := c.Down(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the cluster:", err)
		}
	}()
	code := 1
	if err := setUp(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	if code != 0 && report != nil {
		report()
	}
	return code
}

// RequireRealNode returns when this machine can run a real node from assets; otherwise it
// ends the test binary, with a failure on CI (which installs what a real node needs: missing,
// it is a broken CI, not a skip) and with a skip elsewhere. tests names the suite.
func RequireRealNode(tests, assets string) {
	err := localcluster.NodePrerequisites(assets)
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		fmt.Fprintf(os.Stderr, "the %s cannot run: %v\n", tests, err)
		os.Exit(1)
	}
	fmt.Printf("skipping the %s: %v\n", tests, err)
	os.Exit(0)
}
