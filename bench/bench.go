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

// Package bench measures demo-operator at scale on a real kube-apiserver and etcd, each
// figure beside a baseline in the same run: pod labelling throughput against a plain
// client-go labeler, cache memory against a manager caching whole Pods, DemoApplication
// convergence against a client creating the objects itself, the steady state, start and
// leader failover. Every manager runs in a process of its own (the bench binary started
// again as a child) so that its heap, RSS, CPU time and writes are its own.
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/testenv"
	"github.com/cmft/demo-operator/pkg/generated/clientset/versioned"
)

// The scenarios, in the order they run.
const (
	ScenarioLabeling    = "labeling"
	ScenarioConvergence = "convergence"
	ScenarioMemory      = "memory"
	ScenarioSteady      = "steady"
	ScenarioStart       = "start"
)

// Scenarios lists every scenario in run order.
var Scenarios = []string{ScenarioLabeling, ScenarioConvergence, ScenarioMemory, ScenarioSteady, ScenarioStart}

// Config is what a bench run measures.
type Config struct {
	// Pods is N, the pods of the labelling and memory figures.
	Pods int
	// Apps is M, the DemoApplications of the convergence figures.
	Apps int
	// Runs is how many times the cheap figures are measured; their median is reported.
	Runs int
	// PlotSizes are the N of the plot; empty skips the plot.
	PlotSizes []int
	// Steady is how long the steady state is watched.
	Steady time.Duration
	// SyncPeriod shortens the informers' resync during the steady state so that resyncs fall
	// inside the window (controller-runtime's default is about 10 hours).
	SyncPeriod time.Duration
	// Creators is how many goroutines create the pods and DemoApplications.
	Creators int
	// Scenarios to run; empty runs them all.
	Scenarios []string
	// Roles are the convergence roles to run, of RoleDirect, RoleLeastWrites and
	// RoleManager; empty runs them all.
	Roles []string
	// Settings are the client budgets of the labelling and convergence figures, of
	// "defaults" (no client-side limit) and "limited" (the former 50 QPS, burst 100);
	// empty runs both.
	Settings []string
	// Out is the path of the results without extension: Out.json and a Markdown report.
	Out, Markdown string
	// Plot is the PNG's path.
	Plot string
	// QPS, Burst and Concurrency, when set, replace the manager's defaults, to try others.
	QPS         float64
	Burst       int
	Concurrency int
	// Manager, when set, is the operator's binary, whose RSS the memory figures add.
	Manager string
	// ContainerMemory, when above 0, adds to the memory figures the binary run in a memory
	// cgroup of this limit, in bytes, as in a container.
	ContainerMemory int64
	// Profile has every child write a CPU profile beside its log, in the work directory.
	Profile bool
	// EtcdQuota is etcd's backend quota in bytes (150,000 pods need more than the default).
	EtcdQuota int64
}

// Bench is one run: its API server, its clients and what it measured.
type Bench struct {
	cfg        Config
	self       string
	dir        string
	kubeconfig string
	env        *envtest.Environment
	rest       *rest.Config
	client     client.Client
	clientset  kubernetes.Interface
	metadata   metadata.Interface
	paas       versioned.Interface
	defaults   manager.Options
	results    *Results
	seq        int
	// steadyNamespace holds converged DemoApplications for the steady state.
	steadyNamespace string
	// memoryPods is how many pods the memory scenario left, in memoryNamespace, for the
	// later scenarios.
	memoryPods      int
	memoryNamespace string
}

func (b *Bench) runs(s string) bool {
	return len(b.cfg.Scenarios) == 0 || slices.Contains(b.cfg.Scenarios, s)
}

// lateNamespaces are what the steady state and start watch: the kept DemoApplications and
// the memory scenario's pods.
func (b *Bench) lateNamespaces() string {
	var ns []string
	for _, n := range []string{b.steadyNamespace, b.memoryNamespace} {
		if n != "" {
			ns = append(ns, n)
		}
	}
	return strings.Join(ns, ",")
}

func (b *Bench) measures(s setting) bool {
	return len(b.cfg.Settings) == 0 || slices.Contains(b.cfg.Settings, s.Name)
}

func (b *Bench) logf(format string, args ...any) {
	fmt.Printf("%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// Run starts kube-apiserver and etcd, runs the scenarios and writes the results.
func Run(ctx context.Context, cfg Config) error {
	b := &Bench{cfg: cfg, defaults: manager.DefaultOptions()}
	if cfg.QPS > 0 {
		b.defaults.QPS = cfg.QPS
	}
	if cfg.Burst > 0 {
		b.defaults.Burst = cfg.Burst
	}
	if cfg.Concurrency > 0 {
		b.defaults.MaxConcurrent = cfg.Concurrency
	}
	var err error
	if b.self, err = os.Executable(); err != nil {
		return err
	}
	if b.dir, err = os.MkdirTemp("", "demo-operator-bench-"); err != nil {
		return err
	}
	b.logf("work dir (children's logs): %s", b.dir)
	if err := b.startAPIServer(); err != nil {
		return err
	}
	defer func() { _ = b.env.Stop() }()
	b.results = newResults(b)

	began := time.Now()
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{ScenarioLabeling, b.labeling},
		{ScenarioConvergence, b.convergence},
		{ScenarioMemory, b.memory},
		{ScenarioSteady, b.steady},
		{ScenarioStart, b.startAndFailover},
	}
	for _, step := range steps {
		if !b.runs(step.name) {
			continue
		}
		b.logf("== %s", step.name)
		t := time.Now()
		if err := step.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		b.results.Durations[step.name] = seconds(time.Since(t))
		b.results.TotalSeconds = seconds(time.Since(began))
		// Written after each scenario, so that a run cut short keeps what it measured.
		b.results.evaluate(b)
		if err := b.results.write(b); err != nil {
			return err
		}
	}
	fmt.Println()
	fmt.Print(b.results.table())
	return nil
}

// startAPIServer starts envtest's kube-apiserver and etcd with the CRD, sized for the run.
func (b *Bench) startAPIServer() error {
	env, err := testenv.New()
	if err != nil {
		return err
	}
	api := env.ControlPlane.GetAPIServer().Configure()
	// envtest's /24 holds 254 Services; the convergence figures need thousands.
	api.Set("service-cluster-ip-range", "10.0.0.0/16")
	// The bench's own clients are not what is measured: let the server take them all.
	api.Set("max-requests-inflight", "2000").Set("max-mutating-requests-inflight", "1000")
	if b.cfg.EtcdQuota > 0 {
		env.ControlPlane.Etcd = &envtest.Etcd{}
		env.ControlPlane.Etcd.Configure().Set("quota-backend-bytes", fmt.Sprint(b.cfg.EtcdQuota))
	}
	env.ControlPlaneStartTimeout = 2 * time.Minute
	if b.rest, err = env.Start(); err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	b.env = env
	b.kubeconfig = filepath.Join(b.dir, "kubeconfig")
	if err := os.WriteFile(b.kubeconfig, env.KubeConfig, 0o600); err != nil {
		return err
	}
	// The parent only sets the scene and watches: no client-side limits.
	b.rest.QPS, b.rest.Burst = -1, 0
	if b.client, err = client.New(b.rest, client.Options{Scheme: manager.Scheme}); err != nil {
		return err
	}
	proto := rest.CopyConfig(b.rest)
	proto.ContentType = "application/vnd.kubernetes.protobuf"
	if b.clientset, err = kubernetes.NewForConfig(proto); err != nil {
		return err
	}
	if b.metadata, err = metadata.NewForConfig(b.rest); err != nil {
		return err
	}
	b.paas, err = versioned.NewForConfig(b.rest)
	return err
}

func seconds(d time.Duration) float64 { return d.Seconds() }
