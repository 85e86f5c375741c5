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
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// Results is everything a run measured, as written to results.json.
type Results struct {
	Date     string            `json:"date"`
	Machine  Machine           `json:"machine"`
	Versions map[string]string `json:"versions"`
	Config   RunConfig         `json:"config"`
	// Defaults is the manager's default client budget during the run.
	Defaults    setting             `json:"defaults"`
	Labeling    []LabelingResult    `json:"labeling,omitempty"`
	Memory      []MemoryPoint       `json:"memory,omitempty"`
	Convergence []ConvergenceResult `json:"convergence,omitempty"`
	Steady      *SteadyState        `json:"steady,omitempty"`
	Start       *StartAndFailover   `json:"startAndFailover,omitempty"`
	Targets     []Target            `json:"targets"`
	Durations   map[string]float64  `json:"scenarioSeconds"`
	// TotalSeconds is the scenarios' time, without building or starting the API server.
	TotalSeconds float64 `json:"totalSeconds"`
}

// Machine is where the run happened.
type Machine struct {
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpuModel"`
	MemoryGB int    `json:"memoryGiB"`
	Kernel   string `json:"kernel"`
	OSArch   string `json:"osArch"`
}

// RunConfig is the part of Config that shapes the figures.
type RunConfig struct {
	Pods            int     `json:"pods"`
	Apps            int     `json:"apps"`
	Runs            int     `json:"runs"`
	PlotSizes       []int   `json:"plotSizes"`
	Steady          float64 `json:"steadySeconds"`
	SyncPeriod      float64 `json:"syncPeriodSeconds"`
	Creators        int     `json:"creators"`
	ContainerMemory int64   `json:"containerMemory,omitempty"`
	// Workload says what the apps and pods carry.
	Workload string `json:"workload"`
}

// LabelingResult is one labeler at one N and setting; figures are medians of its runs.
type LabelingResult struct {
	Role          string     `json:"role"`
	Setting       setting    `json:"setting"`
	Pods          int        `json:"pods"`
	Seconds       float64    `json:"seconds"`
	CreateSeconds float64    `json:"createSeconds"`
	PodsPerSecond float64    `json:"podsPerSecond"`
	Runs          []LabelRun `json:"runs"`
}

// ConvergenceResult is one way of getting M apps' objects at one setting; medians of its runs.
type ConvergenceResult struct {
	Role         string  `json:"role"`
	Setting      setting `json:"setting"`
	Apps         int     `json:"apps"`
	Seconds      float64 `json:"seconds"`
	P50Seconds   float64 `json:"p50Seconds"`
	P99Seconds   float64 `json:"p99Seconds"`
	WritesPerApp float64 `json:"writesPerApp"`
	EventsPerApp float64 `json:"eventsPerApp"`
	// ServerCPUMillisPerApp is kube-apiserver's and etcd's CPU time per app.
	ServerCPUMillisPerApp float64 `json:"serverCPUMillisPerApp"`
	// MachineCPUMillisPerApp is every process's CPU time per app: the control plane's, the
	// bench's and the manager's.
	MachineCPUMillisPerApp float64 `json:"machineCPUMillisPerApp"`
	// RequestsPerApp are the API server's requests per app, by verb and resource.
	RequestsPerApp map[string]float64 `json:"requestsPerApp"`
	Runs           []ConvergeRun      `json:"runs"`
}

// Target is one of the targets and whether the run met it.
type Target struct {
	Name string `json:"name"`
	Want string `json:"want"`
	Got  string `json:"got"`
	Met  bool   `json:"met"`
}

func newResults(b *Bench) *Results {
	r := &Results{Date: time.Now().UTC().Format(time.RFC3339), Versions: map[string]string{},
		Durations: map[string]float64{}, Defaults: b.defaultSetting(),
		Config: RunConfig{Pods: b.cfg.Pods, Apps: b.cfg.Apps, Runs: b.cfg.Runs, PlotSizes: b.cfg.PlotSizes,
			Steady: seconds(b.cfg.Steady), SyncPeriod: seconds(b.cfg.SyncPeriod), Creators: b.cfg.Creators, ContainerMemory: b.cfg.ContainerMemory,
			Workload: workload},
		Machine: Machine{CPUs: runtime.NumCPU(), OSArch: runtime.GOOS + "/" + runtime.GOARCH,
			CPUModel: procField("/proc/cpuinfo", "model name", ":"), Kernel: strings.TrimSpace(readFile("/proc/sys/kernel/osrelease"))}}
	var kb float64
	if _, err := fmt.Sscan(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal", ":"), " kB"), &kb); err == nil {
		r.Machine.MemoryGB = int(math.Round(kb / (1 << 20)))
	}
	r.Versions["go"] = runtime.Version()
	if v, err := b.clientset.Discovery().ServerVersion(); err == nil {
		r.Versions["kube-apiserver"] = v.GitVersion
	}
	if v := readFile(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "etcd.version")); v != "" {
		r.Versions["etcd"] = strings.TrimSpace(v)
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			switch dep.Path {
			case "sigs.k8s.io/controller-runtime", "k8s.io/client-go":
				r.Versions[dep.Path] = dep.Version
			}
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				r.Versions["demo-operator"] = s.Value
			}
		}
	}
	return r
}

func readFile(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

func procField(path, key, sep string) string {
	for _, line := range strings.Split(readFile(path), "\n") {
		if k, v, ok := strings.Cut(line, sep); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func median(xs []float64) float64 { return percentile(xs, 50) }

// percentile returns the nearest-rank percentile p of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(rank, len(s)-1))]
}

func (r *Results) addLabeling(role string, s setting, n int, runs []LabelRun) {
	secs, creates := make([]float64, 0, len(runs)), make([]float64, 0, len(runs))
	for _, run := range runs {
		secs, creates = append(secs, run.Seconds), append(creates, run.CreateSeconds)
	}
	res := LabelingResult{Role: role, Setting: s, Pods: n, Seconds: median(secs), CreateSeconds: median(creates), Runs: runs}
	res.PodsPerSecond = float64(n) / res.Seconds
	r.Labeling = append(r.Labeling, res)
}

func (r *Results) addConvergence(role string, s setting, m int, runs []ConvergeRun) {
	pick := func(f func(ConvergeRun) float64) float64 {
		xs := make([]float64, 0, len(runs))
		for _, run := range runs {
			xs = append(xs, f(run))
		}
		return median(xs)
	}
	r.Convergence = append(r.Convergence, ConvergenceResult{Role: role, Setting: s, Apps: m, Runs: runs,
		Seconds:                pick(func(c ConvergeRun) float64 { return c.Seconds }),
		P50Seconds:             pick(func(c ConvergeRun) float64 { return c.P50Seconds }),
		P99Seconds:             pick(func(c ConvergeRun) float64 { return c.P99Seconds }),
		WritesPerApp:           pick(func(c ConvergeRun) float64 { return c.WritesPerApp }),
		EventsPerApp:           pick(func(c ConvergeRun) float64 { return c.EventsPerApp }),
		ServerCPUMillisPerApp:  pick(func(c ConvergeRun) float64 { return c.ServerCPUSeconds * 1000 / float64(m) }),
		MachineCPUMillisPerApp: pick(func(c ConvergeRun) float64 { return c.MachineCPUSeconds * 1000 / float64(m) }),
		RequestsPerApp:         map[string]float64{}})
	res := &r.Convergence[len(r.Convergence)-1]
	for _, run := range runs {
		for key := range run.RequestsPerApp {
			res.RequestsPerApp[key] = pick(func(c ConvergeRun) float64 { return c.RequestsPerApp[key] })
		}
	}
}

func (r *Results) labeling(role, settingName string, n int) *LabelingResult {
	for i, l := range r.Labeling {
		if l.Role == role && l.Setting.Name == settingName && l.Pods == n {
			return &r.Labeling[i]
		}
	}
	return nil
}

func (r *Results) memory(role string, n int) *MemoryPoint {
	for i, m := range r.Memory {
		if m.Role == role && m.Pods == n {
			return &r.Memory[i]
		}
	}
	return nil
}

func (r *Results) convergence(role, settingName string) *ConvergenceResult {
	for i, c := range r.Convergence {
		if c.Role == role && c.Setting.Name == settingName {
			return &r.Convergence[i]
		}
	}
	return nil
}

// evaluate checks the targets against what the run measured.
func (r *Results) evaluate(b *Bench) {
	r.Targets = nil
	add := func(name, want, got string, met bool) {
		r.Targets = append(r.Targets, Target{Name: name, Want: want, Got: got, Met: met})
	}
	n := b.cfg.Pods
	for _, s := range []string{settingDefaults, settingLimited} {
		op, base := r.labeling(RoleManager, s, n), r.labeling(RoleClientGoLabeler, s, n)
		if op == nil || base == nil {
			continue
		}
		ratio := op.Seconds / base.Seconds
		add(fmt.Sprintf("labelling time, %d pods, %s", n, s), "≤ 1.10 × client-go",
			fmt.Sprintf("%.1f s vs %.1f s = %.2f ×", op.Seconds, base.Seconds, ratio), ratio <= 1.10)
		once, extra, unannotated := 0, 0, 0
		for _, run := range op.Runs {
			for count, pods := range run.PodPatches["a"] {
				if count == 1 {
					once += pods
				} else {
					extra += pods
				}
			}
			unannotated += total(run.PodPatches["u"])
		}
		want := n * len(op.Runs)
		add(fmt.Sprintf("writes per labelled pod, %s", s), "exactly 1",
			fmt.Sprintf("%d of %d pods patched once, %d more than once", once, want, extra), once == want && extra == 0)
		add(fmt.Sprintf("writes to unannotated pods, %s", s), "0",
			fmt.Sprintf("%d (%d pods)", unannotated, n/10*len(op.Runs)), unannotated == 0)
	}
	for _, size := range []int{10_000, n} {
		op, base := r.memory(RoleManager, size), r.memory(RoleFullPodManager, size)
		if op == nil || base == nil {
			continue
		}
		ratio := op.HeapGrowthBytes / base.HeapGrowthBytes
		add(fmt.Sprintf("heap growth, %d pods", size), "≤ 25 % of full-Pod cache",
			fmt.Sprintf("%.1f MiB vs %.1f MiB = %.0f %%", op.HeapGrowthBytes/mib, base.HeapGrowthBytes/mib, ratio*100), ratio <= 0.25)
		if size >= 150_000 {
			for _, role := range []string{RoleBinary, RoleBinaryContained} {
				if m := r.memory(role, size); m != nil {
					name := roleName(role)
					if role == RoleBinaryContained {
						name = fmt.Sprintf("bin/manager in a %d MiB memory cgroup", r.Config.ContainerMemory/mib)
					}
					// No limit: GOMEMLIMIT from the default limit; in the chart's: from that one.
					want := 200e6
					if role == RoleBinaryContained {
						want = 160e6
					}
					add(fmt.Sprintf("RSS, %d pods, %s", size, name), fmt.Sprintf("≤ %.0f MB", want/1e6),
						fmt.Sprintf("%.0f MB (%.0f MiB)", m.RSSBytes/1e6, m.RSSBytes/mib), m.RSSBytes <= want)
				}
			}
		}
		if size == n {
			break
		}
	}
	for _, s := range []string{settingDefaults, settingLimited} {
		op, base := r.convergence(RoleManager, s), r.convergence(RoleDirect, s)
		if op == nil || base == nil {
			continue
		}
		add(fmt.Sprintf("writes per DemoApplication, %s", s),
			fmt.Sprintf("≤ %d: one per object it needs, one status (Deployments never change status here)", appWrites),
			fmt.Sprintf("%.2f (+ %.2f events)", op.WritesPerApp, op.EventsPerApp), op.WritesPerApp <= appWrites)
		// Against the least writes where the run has them: a direct client makes no status
		// write and sets no owner, so no operator can come close to it.
		baseName := "direct client"
		if least := r.convergence(RoleLeastWrites, s); least != nil {
			base, baseName = least, "least writes"
			cpu := op.ServerCPUMillisPerApp / base.ServerCPUMillisPerApp
			add(fmt.Sprintf("API server + etcd CPU per new DemoApplication, %s", s), "≤ 1.20 × least writes",
				fmt.Sprintf("%.1f ms vs %.1f ms = %.2f ×%s", op.ServerCPUMillisPerApp, base.ServerCPUMillisPerApp, cpu,
					perRound(op, base, func(c ConvergeRun) float64 { return c.ServerCPUSeconds })), cpu <= 1.20)
		}
		ratio := op.Seconds / base.Seconds
		add(fmt.Sprintf("convergence time, %d apps, %s", op.Apps, s), "≤ 1.25 × "+baseName,
			fmt.Sprintf("%.1f s vs %.1f s = %.2f ×%s", op.Seconds, base.Seconds, ratio,
				perRound(op, base, func(c ConvergeRun) float64 { return c.Seconds })), ratio <= 1.25)
	}
	if st := r.Steady; st != nil {
		writes, reconciles := total(st.Writes), total(st.Reconciles)
		add("steady-state writes", "0", fmt.Sprintf("%d in %.0f s", writes, st.WindowSeconds), writes == 0)
		add("steady-state reconciles", "only on real changes (none)",
			fmt.Sprintf("%.0f in %.0f s, %.0f-s resync", reconciles, st.WindowSeconds, st.SyncPeriodSeconds), reconciles == 0)
	}
}

// perRound is the ratio of op's figure to base's in each round, so that a median hides no
// spread: "" when there is one round.
func perRound(op, base *ConvergenceResult, f func(ConvergeRun) float64) string {
	if len(op.Runs) < 2 || len(op.Runs) != len(base.Runs) {
		return ""
	}
	var ratios []string
	for i := range op.Runs {
		ratios = append(ratios, fmt.Sprintf("%.2f", f(op.Runs[i])/f(base.Runs[i])))
	}
	return " (rounds: " + strings.Join(ratios, ", ") + " ×)"
}

// write writes the JSON results, the Markdown report and the plot.
func (r *Results) write(b *Bench) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(b.cfg.Out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	if len(b.cfg.PlotSizes) > 0 && b.cfg.Plot != "" {
		if err := r.plot(b.cfg.Plot, b.cfg.PlotSizes); err != nil {
			return fmt.Errorf("plotting: %w", err)
		}
	}
	return os.WriteFile(b.cfg.Markdown, []byte(r.markdown(b)), 0o644)
}

func mark(met bool) string {
	if met {
		return "yes"
	}
	return "**no**"
}

func roleName(role string) string {
	return map[string]string{
		RoleManager:            "demo-operator",
		RoleClientGoLabeler:    "client-go baseline",
		RoleFullPodManager:     "full-Pod-cache baseline",
		RoleBinary:             "bin/manager",
		RoleBinaryContained:    "bin/manager, memory cgroup",
		RoleDirect:             "direct-client baseline",
		RoleLeastWrites:        "least writes (no operator)",
		RoleLeastWritesApply:   "least writes, applied as the operator does",
		RoleLeastWritesWatched: "least writes, applied, operator's watches held",
	}[role]
}

// table is the summary printed at the end of a run.
func (r *Results) table() string {
	var sb strings.Builder
	r.writeTargets(&sb)
	r.writeFigures(&sb)
	return sb.String()
}

func (r *Results) writeTargets(sb *strings.Builder) {
	fmt.Fprintf(sb, "| target | want | measured | met |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		fmt.Fprintf(sb, "| %s | %s | %s | %s |\n", t.Name, t.Want, t.Got, mark(t.Met))
	}
	sb.WriteString("\n")
}

func (r *Results) writeFigures(sb *strings.Builder) {
	if len(r.Labeling) > 0 {
		sb.WriteString("Pod labelling: first create to last pod labelled (median of runs)\n\n")
		sb.WriteString("| labeler | setting (QPS/burst/workers) | pods | time | pods/s | creates alone | runs |\n|---|---|---|---|---|---|---|\n")
		for _, l := range r.Labeling {
			fmt.Fprintf(sb, "| %s | %s | %d | %.1f s | %.0f | %.1f s | %d |\n", roleName(l.Role), settingText(l.Setting),
				l.Pods, l.Seconds, l.PodsPerSecond, l.CreateSeconds, len(l.Runs))
		}
		sb.WriteString("\n")
	}
	if len(r.Memory) > 0 {
		sb.WriteString("Memory with N pods in the cluster, half annotated (heap after GC; growth over the same process with no pods; " +
			"bin/manager is the binary an image ships, of which only RSS is read)\n\n")
		sb.WriteString("| manager | pods | heap | RSS | heap growth | bytes/pod |\n|---|---|---|---|---|---|\n")
		for _, m := range r.Memory {
			if m.Role == RoleBinary || m.Role == RoleBinaryContained {
				fmt.Fprintf(sb, "| %s | %d | – | %.1f MiB | – | – |\n", roleName(m.Role), m.Pods, m.RSSBytes/mib)
				continue
			}
			fmt.Fprintf(sb, "| %s | %d | %.1f MiB | %.1f MiB | %.1f MiB | %.0f |\n", roleName(m.Role), m.Pods,
				m.HeapBytes/mib, m.RSSBytes/mib, m.HeapGrowthBytes/mib, m.BytesPerPod)
		}
		sb.WriteString("\n")
	}
	if len(r.Convergence) > 0 {
		sb.WriteString("DemoApplication convergence: first create to last app converged (median of runs)\n\n")
		sb.WriteString("| how | setting (QPS/burst/workers) | apps | time | p50 | p99 | writes/app | events/app | " +
			"API server + etcd CPU/app | machine CPU/app (all processes) | runs |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, c := range r.Convergence {
			fmt.Fprintf(sb, "| %s | %s | %d | %.1f s | %.2f s | %.2f s | %.2f | %.2f | %.1f ms | %.1f ms | %d |\n", roleName(c.Role),
				settingText(c.Setting), c.Apps, c.Seconds, c.P50Seconds, c.P99Seconds, c.WritesPerApp, c.EventsPerApp,
				c.ServerCPUMillisPerApp, c.MachineCPUMillisPerApp, len(c.Runs))
		}
		sb.WriteString("\n")
		r.roundsTable(sb)
		r.decompositionTable(sb)
		r.requestsTable(sb)
	}
	if st := r.Steady; st != nil {
		fmt.Fprintf(sb, "Steady state: %d pods, %d DemoApplications, %.0f s watched with a %.0f-s resync\n\n",
			st.Pods, st.Apps, st.WindowSeconds, st.SyncPeriodSeconds)
		sb.WriteString("| writes at start | reconciles at start | writes in window | reconciles in window | CPU seconds in window |\n|---|---|---|---|---|\n")
		fmt.Fprintf(sb, "| %d | %s | %d | %s | %.2f |\n\n", total(st.StartupWrites), counts(st.StartupReconciles),
			total(st.Writes), counts(st.Reconciles), st.CPUSeconds)
	}
	if s := r.Start; s != nil {
		sb.WriteString("Start and failover (median of runs; each run in brackets)\n\n| measure | median | runs |\n|---|---|---|\n")
		for _, row := range []struct {
			name string
			xs   []float64
		}{{"start to /readyz", s.ReadySeconds}, {"start to caches full", s.CachesSeconds},
			{"failover after kill -9", s.KillSeconds}, {"failover after SIGTERM", s.GracefulSeconds}} {
			fmt.Fprintf(sb, "| %s | %.2f s | %s |\n", row.name, median(row.xs), floats(row.xs))
		}
		sb.WriteString("\n")
	}
}

func settingText(s setting) string {
	if s.QPS <= 0 {
		return fmt.Sprintf("%s (no limit/%d)", s.Name, s.Concurrency)
	}
	return fmt.Sprintf("%s (%g/%d/%d)", s.Name, s.QPS, s.Burst, s.Concurrency)
}

func counts(m map[string]float64) string {
	if total(m) == 0 {
		return "0"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func floats(xs []float64) string {
	parts := make([]string, 0, len(xs))
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(parts, ", ")
}

func (r *Results) markdown(b *Bench) string {
	var sb strings.Builder
	sb.WriteString("# demo-operator benchmark results\n\n")
	sb.WriteString("Written by `make bench` (bench/); do not edit. Every manager and baseline ran in a process of its own " +
		"against one kube-apiserver and etcd (envtest's, no controller-manager: Deployments never get a status).\n\n")
	fmt.Fprintf(&sb, "- date: %s; scenarios took %.0f s (%s)\n", r.Date, r.TotalSeconds, durations(r.Durations))
	fmt.Fprintf(&sb, "- machine: %d CPUs (%s), %d GiB, %s, Linux %s\n", r.Machine.CPUs, r.Machine.CPUModel,
		r.Machine.MemoryGB, r.Machine.OSArch, r.Machine.Kernel)
	versions := make([]string, 0, len(r.Versions))
	for _, k := range slices.Sorted(maps.Keys(r.Versions)) {
		versions = append(versions, k+" "+r.Versions[k])
	}
	fmt.Fprintf(&sb, "- versions: %s\n", strings.Join(versions, ", "))
	fmt.Fprintf(&sb, "- N = %d pods, M = %d DemoApplications, %d runs of the cheap figures, %d creator goroutines; "+
		"manager defaults QPS %g, burst %d, %d concurrent reconciles\n", r.Config.Pods, r.Config.Apps, r.Config.Runs,
		r.Config.Creators, r.Defaults.QPS, r.Defaults.Burst, r.Defaults.Concurrency)
	fmt.Fprintf(&sb, "- workload: %s\n\n", r.Config.Workload)
	sb.WriteString("## Targets\n\n")
	r.writeTargets(&sb)
	sb.WriteString("## Figures\n\n")
	r.writeFigures(&sb)
	if len(b.cfg.PlotSizes) > 0 && b.cfg.Plot != "" {
		fmt.Fprintf(&sb, "![pods labelled per second and heap per pod against N](%s)\n", filepath.Base(b.cfg.Plot))
	}
	return sb.String()
}

func durations(d map[string]float64) string {
	var parts []string
	for _, s := range Scenarios {
		if v, ok := d[s]; ok {
			parts = append(parts, fmt.Sprintf("%s %.0f s", s, v))
		}
	}
	return strings.Join(parts, ", ")
}

// requestsTable sets the API server's requests per app of each way of converging side by
// side, by verb and resource, so that what the manager asks beyond the least writes shows.
func (r *Results) requestsTable(sb *strings.Builder) {
	var keys []string
	for _, c := range r.Convergence {
		for key, n := range c.RequestsPerApp {
			// Discovery and lease renewals, a few per run, are not the apps' cost.
			if n >= 0.005 && !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	if len(keys) == 0 {
		return
	}
	slices.Sort(keys)
	sb.WriteString("API server requests per app during convergence, by verb and resource (apiserver_request_total; " +
		"the bench's own creates and watches included, which the least-writes row makes alone)\n\n| request |")
	for _, c := range r.Convergence {
		fmt.Fprintf(sb, " %s, %s |", roleName(c.Role), c.Setting.Name)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(r.Convergence)) + "\n")
	totals := make([]float64, len(r.Convergence))
	for _, key := range keys {
		fmt.Fprintf(sb, "| %s |", key)
		for i, c := range r.Convergence {
			fmt.Fprintf(sb, " %.2f |", c.RequestsPerApp[key])
			totals[i] += c.RequestsPerApp[key]
		}
		sb.WriteString("\n")
	}
	sb.WriteString("| **all** |")
	for _, t := range totals {
		fmt.Fprintf(sb, " **%.2f** |", t)
	}
	sb.WriteString("\n\n")
}

// decompositionTable shows where the manager's control-plane CPU per app goes beyond the
// least writes: each least-writes role adds one ingredient of the operator's traffic, so the
// step from the row before is that ingredient's cost, and what is left to the manager's row
// is its reconciles' own (their reads of the cache cost the API server nothing).
func (r *Results) decompositionTable(sb *strings.Builder) {
	for _, s := range []string{settingDefaults, settingLimited} {
		least, op := r.convergence(RoleLeastWrites, s), r.convergence(RoleManager, s)
		if least == nil || op == nil {
			continue
		}
		fmt.Fprintf(sb, "Where the manager's API server + etcd CPU goes beyond the least writes, %s "+
			"(median of runs; each row adds one ingredient to the row before)\n\n", s)
		sb.WriteString("| how | CPU/app | × least writes | step over the row before | share of the gap | manager ÷ this row |\n|---|---|---|---|---|---|\n")
		gap, before := op.ServerCPUMillisPerApp-least.ServerCPUMillisPerApp, least.ServerCPUMillisPerApp
		for _, role := range []string{RoleLeastWrites, RoleLeastWritesApply, RoleLeastWritesWatched, RoleManager} {
			c := r.convergence(role, s)
			if c == nil {
				continue
			}
			step, share := "–", "–"
			if role != RoleLeastWrites {
				d := c.ServerCPUMillisPerApp - before
				step, share = fmt.Sprintf("%+.1f ms", d), fmt.Sprintf("%.0f %%", 100*d/gap)
			}
			fmt.Fprintf(sb, "| %s | %.1f ms | %.2f | %s | %s | %.2f%s |\n", roleName(role), c.ServerCPUMillisPerApp,
				c.ServerCPUMillisPerApp/least.ServerCPUMillisPerApp, step, share, op.ServerCPUMillisPerApp/c.ServerCPUMillisPerApp,
				perRound(op, c, func(c ConvergeRun) float64 { return c.ServerCPUSeconds }))
			before = c.ServerCPUMillisPerApp
		}
		sb.WriteString("\n")
	}
}

// roundsTable lists every convergence run by round, in the order the runs went, with the
// state each started on, so that the spread behind the medians shows and a run that started
// on what an earlier one left would stand out.
func (r *Results) roundsTable(sb *strings.Builder) {
	type row struct {
		c   *ConvergenceResult
		run ConvergeRun
	}
	rounds := map[string][][]row{}
	var settings []string
	for i := range r.Convergence {
		c := &r.Convergence[i]
		if !slices.Contains(settings, c.Setting.Name) {
			settings = append(settings, c.Setting.Name)
		}
		for round, run := range c.Runs {
			for len(rounds[c.Setting.Name]) <= round {
				rounds[c.Setting.Name] = append(rounds[c.Setting.Name], nil)
			}
			rounds[c.Setting.Name][round] = append(rounds[c.Setting.Name][round], row{c, run})
		}
	}
	sb.WriteString("Convergence runs, in the order they ran (each round starts with the next role; " +
		"every run starts once the earlier runs' objects are deleted and etcd is compacted and defragmented)\n\n")
	sb.WriteString("| setting | round | # | how | time | p50 | p99 | API server + etcd CPU/app | apps, Services, Events stored at start | " +
		"etcd revision, db at start | idle control-plane CPU at start |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range settings {
		for i, round := range rounds[s] {
			slices.SortFunc(round, func(a, b row) int { return a.run.Order - b.run.Order })
			for _, x := range round {
				st := x.run.Start
				fmt.Fprintf(sb, "| %s | %d | %d | %s | %.1f s | %.2f s | %.2f s | %.1f ms | %d, %d, %d | %d, %.1f MB | %.2f cores |\n",
					s, i+1, x.run.Order, roleName(x.c.Role), x.run.Seconds, x.run.P50Seconds, x.run.P99Seconds,
					x.run.ServerCPUSeconds*1000/float64(x.c.Apps), st.Objects["demoapplications"], st.Objects["services"],
					st.Objects["events"], st.EtcdRevision, st.EtcdDBBytes/1e6, st.IdleCores)
			}
		}
	}
	sb.WriteString("\n")
}
