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

// Command bench measures demo-operator at scale beside baselines and writes the results
// (make bench). Run as "bench child ..." it is one of the measured processes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cmft/demo-operator/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		os.Exit(bench.RunChild(os.Args[2:]))
	}
	cfg := bench.Config{}
	var sizes, scenarios, settings, roles string
	flag.IntVar(&cfg.Pods, "pods", 10_000, "N: pods of the labelling and memory figures (150000 is Kubernetes' documented limit)")
	flag.IntVar(&cfg.Apps, "apps", 1_000, "M: DemoApplications of the convergence figures")
	flag.IntVar(&cfg.Runs, "runs", 3, "runs of each cheap figure; the median is reported")
	flag.StringVar(&sizes, "plot-sizes", "1000,5000,10000,20000", "N of the plot, comma-separated; empty for no plot")
	flag.DurationVar(&cfg.Steady, "steady", 2*time.Minute, "how long the steady state is watched")
	flag.DurationVar(&cfg.SyncPeriod, "sync-period", 30*time.Second, "informer resync during the steady state, so that resyncs fall in the window")
	flag.IntVar(&cfg.Creators, "creators", 8, "goroutines creating pods and DemoApplications")
	flag.StringVar(&scenarios, "scenarios", "", "comma-separated scenarios to run, of "+strings.Join(bench.Scenarios, ",")+"; empty for all")
	flag.StringVar(&settings, "settings", "", `client budgets of the labelling and convergence figures, `+
		`of "defaults,limited" (no client-side limit, 50 QPS/100 burst); empty for both`)
	flag.StringVar(&roles, "roles", "", "comma-separated convergence roles to run, of "+
		strings.Join([]string{bench.RoleDirect, bench.RoleLeastWrites, bench.RoleLeastWritesApply, bench.RoleLeastWritesWatched,
			bench.RoleManager}, ",")+"; empty for all")
	flag.Float64Var(&cfg.QPS, "qps", 0, "replaces the manager's default --kube-api-qps, to try another")
	flag.IntVar(&cfg.Burst, "burst", 0, "replaces the manager's default --kube-api-burst")
	flag.IntVar(&cfg.Concurrency, "concurrency", 0, "replaces the manager's default --max-concurrent-reconciles")
	flag.StringVar(&cfg.Manager, "manager", "", "the operator's binary (make build), whose RSS the memory figures add at 0 and N pods")
	flag.Func("container-memory", `with -manager, also measure the binary's RSS in a memory cgroup of this limit `+
		`("256Mi": the chart's), as in a container`, func(v string) error {
		q, err := resource.ParseQuantity(v)
		cfg.ContainerMemory = q.Value()
		return err
	})
	flag.StringVar(&cfg.Out, "out", "bench/results.json", "results in JSON")
	flag.StringVar(&cfg.Markdown, "markdown", "bench/RESULTS.md", "results in Markdown")
	flag.StringVar(&cfg.Plot, "plot", "bench/throughput-memory.png", "the plot")
	flag.BoolVar(&cfg.Profile, "profile", false, "have every child write a CPU profile beside its log (go tool pprof)")
	flag.Int64Var(&cfg.EtcdQuota, "etcd-quota", 8<<30, "etcd's backend quota in bytes")
	flag.Parse()
	for _, s := range strings.Split(sizes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				fmt.Fprintf(os.Stderr, "-plot-sizes: %v\n", err)
				os.Exit(2)
			}
			cfg.PlotSizes = append(cfg.PlotSizes, n)
		}
	}
	if scenarios != "" {
		cfg.Scenarios = strings.Split(scenarios, ",")
	}
	if settings != "" {
		cfg.Settings = strings.Split(settings, ",")
	}
	if roles != "" {
		cfg.Roles = strings.Split(roles, ",")
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if err := bench.Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
