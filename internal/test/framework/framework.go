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

// Package framework holds what the end-to-end suites (kwok nodes, the real node, OLM) share: a
// local cluster of their own with its clients, a namespace per test, the pods that serve, and
// the steps of an OLM install.
package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// ReadyPods returns the pods matching labels that are Running and Ready, not being deleted.
func ReadyPods(g Gomega, k8s client.Client, namespace string, labels map[string]string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(namespace), client.MatchingLabels(labels))).To(Succeed())
	var out []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && PodReady(&p) {
			out = append(out, p)
		}
	}
	return out
}

// PodReady reports whether the pod runs and its Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodRunning && slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
	})
}

// Suite is what Run gives a suite's set-up: a local cluster of its own, up, and the clients
// its tests talk to it with.
type Suite struct {
	Cluster *localcluster.Cluster
	// Dir is the suite's temporary directory, removed after the run; the cluster's state is
	// in Dir/cluster.
	Dir string
	// ManagerBin is main.go built while the cluster started, when Options.BuildManager asked.
	ManagerBin string
	Config     *rest.Config
	// Client is controller-runtime's, of Options.Scheme; Clientset is for what the suite has
	// no typed objects for (tokens, logs, leases).
	Client    client.Client
	Clientset kubernetes.Interface
}

// Options say how Run starts a suite's cluster and what the suite adds to it.
type Options struct {
	Scheme *runtime.Scheme
	// BuildManager builds the manager binary while the cluster starts, the two slowest steps of
	// a set-up.
	BuildManager bool
	// QPS and Burst raise the clients' rate limits, for suites that create thousands of
	// objects; zero keeps client-go's.
	QPS   float32
	Burst int
	// Timeout bounds the cluster's start and SetUp.
	Timeout time.Duration
	// SetUp adds what the suite needs to the running cluster (images, CRDs, OLM); nil adds
	// nothing.
	SetUp func(ctx context.Context, s *Suite) error
	// Report, when set-up or a test fails, prints what explains it while the cluster still runs.
	Report func()
}

// Assets returns the values of the environment variables names, the directories of the
// binaries a suite runs, which its make target sets; when one is unset it ends the test binary
// with a skip that names target.
func Assets(target string, names ...string) []string {
	values := make([]string, len(names))
	for i, name := range names {
		if values[i] = os.Getenv(name); values[i] == "" {
			fmt.Printf("%s is not set: skipping (run %s)\n", name, target)
			os.Exit(0)
		}
	}
	return values
}

// Run gives c a temporary state directory and free ports, starts it (building the manager
// meanwhile if asked), makes the clients, runs o.SetUp and the tests, then stops c and removes
// the directory. When the set-up or a test fails, o.Report runs first, while c still runs. It
// returns the exit code for os.Exit.
func Run(m *testing.M, c *localcluster.Cluster, o Options) int {
	// The operator runs as a process of its own, which logs; the suites' clients log nothing
	// of interest, and unset, controller-runtime prints a stack trace for their first line.
	ctrllog.SetLogger(logr.Discard())
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
	if err := setUp(c, dir, o); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	if code != 0 && o.Report != nil {
		o.Report()
	}
	return code
}

func setUp(c *localcluster.Cluster, dir string, o Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	s := &Suite{Cluster: c, Dir: dir}
	var err error
	if o.BuildManager {
		s.ManagerBin, err = upWithManager(ctx, c, dir)
	} else {
		err = c.Up(ctx)
	}
	if err != nil {
		return err
	}
	if s.Config, err = c.RESTConfig(); err != nil {
		return err
	}
	if o.QPS != 0 {
		s.Config.QPS, s.Config.Burst = o.QPS, o.Burst
	}
	if s.Client, err = client.New(s.Config, client.Options{Scheme: o.Scheme}); err != nil {
		return err
	}
	if s.Clientset, err = kubernetes.NewForConfig(s.Config); err != nil {
		return err
	}
	if o.SetUp == nil {
		return nil
	}
	return o.SetUp(ctx, s)
}
