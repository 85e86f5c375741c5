//go:build node

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

package node

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// causeFigure is one cause's time to status, as bench/RESULTS-cause-to-status.md lists it.
type causeFigure struct {
	Cause  string `json:"cause"`
	Reason string `json:"reason"`
	// Condition carries the reason: Degraded, Reconciling, or a Warning Event on the app.
	Condition string `json:"condition"`
	Pod       string `json:"pod"`
	Message   string `json:"message"`
	// Report is what of the kubelet's the time is from; ReportedAt its time, in whole
	// seconds as the API has it, and SeenAt when the test first saw it.
	Report     string    `json:"kubeletReport"`
	ReportedAt time.Time `json:"reportedAt"`
	SeenAt     time.Time `json:"seenAt,omitzero"`
	// SaidAt is when the test first saw the app say the reason (polling every 250 ms), or
	// the Event's eventTime.
	SaidAt          time.Time `json:"saidAt"`
	Seconds         float64   `json:"secondsFromReport"`
	SecondsFromSeen float64   `json:"secondsFromSeen,omitempty"`
}

// causeResults is what bench/results-cause-to-status.json holds.
type causeResults struct {
	Date          string            `json:"date"`
	Commit        string            `json:"commit"`
	Machine       string            `json:"machine"`
	Versions      map[string]string `json:"versions"`
	BudgetSeconds float64           `json:"budgetSeconds"`
	// Passed is whether the test passed: a failure of another of its checks (a message, a fix)
	// leaves the figures standing.
	Passed  bool          `json:"testPassed"`
	Figures []causeFigure `json:"figures"`
}

// write writes the figures to $CAUSE_TO_STATUS_RESULTS, when set, as
// results-cause-to-status.json and RESULTS-cause-to-status.md.
func (c *causeFigures) write(t *testing.T) {
	dir := os.Getenv("CAUSE_TO_STATUS_RESULTS")
	if dir == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	slices.SortFunc(c.all, func(a, b causeFigure) int { return strings.Compare(a.Cause, b.Cause) })
	r := causeResults{Date: time.Now().UTC().Format(time.RFC3339), Commit: commit(), Machine: machine(), Versions: nodeVersions(),
		BudgetSeconds: statusBudget.Seconds(), Passed: !t.Failed(), Figures: c.all}
	writeFigures(t, dir, "cause-to-status", r, r.markdown())
}

// writeFigures writes a bench's results into dir (relative to the checkout unless absolute)
// as results-<name>.json and RESULTS-<name>.md.
func writeFigures(t *testing.T, dir, name string, results any, markdown string) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(testenv.Root(), dir)
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results-"+name+".json"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "RESULTS-"+name+".md"), []byte(markdown), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("figures written to %s", dir)
}

func (r causeResults) markdown() string {
	var b strings.Builder
	b.WriteString("# Time from cause to status, on the real node\n\n")
	b.WriteString("Written by `make bench-cause-to-status` (TestCausesReachStatus of test/e2e/node, all causes side by side); do not edit.\n\n")
	fmt.Fprintf(&b, "- date: %s; commit %s\n- machine: %s\n- versions: %s\n", r.Date, r.Commit, r.Machine, versions(r.Versions))
	if !r.Passed {
		b.WriteString("- the test failed a check other than these figures' (its log says which)\n")
	}
	b.WriteString("- from: the kubelet's own report of the cause, its Event's time or the container's exit in the pod's status " +
		"(whole seconds, as the API has them: a figure is up to 1 s longer than the true one)\n")
	b.WriteString("- to: the time the test first saw the app's condition say the reason (it polls every 250 ms), " +
		"or the app's Event's eventTime (microseconds)\n\n")
	fmt.Fprintf(&b, "| cause | reason | on | kubelet's report | time to status | from the test seeing the report | budget | met |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, f := range r.Figures {
		seen := ""
		if !f.SeenAt.IsZero() {
			seen = fmt.Sprintf("%.2f s", f.SecondsFromSeen)
		}
		met := "yes"
		if f.Seconds > r.BudgetSeconds {
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %.2f s | %s | ≤ %.0f s | %s |\n", f.Cause, f.Reason, f.Condition, f.Report, f.Seconds, seen, r.BudgetSeconds, met)
	}
	b.WriteString("\nMessages, as the app said them:\n\n")
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "- %s: %s\n", f.Cause, strings.ReplaceAll(f.Message, "|", "\\|"))
	}
	return b.String()
}

func versions(v map[string]string) string {
	parts := make([]string, 0, len(v))
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, k+" "+v[k])
	}
	return strings.Join(parts, ", ")
}

// commit is the checkout's commit, marked dirty when it has changes.
func commit() string {
	out, err := exec.Command("git", "-C", testenv.Root(), "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// machine describes this machine: CPUs, their model, the kernel.
func machine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(data)) {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
				model = strings.TrimSpace(value)
				break
			}
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%d CPUs (%s), %s/%s, Linux %s", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(kernel)))
}

// nodeVersions are the real node's kubelet and container runtime, and Go's.
func nodeVersions() map[string]string {
	v := map[string]string{"go": runtime.Version()}
	node := &corev1.Node{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: localcluster.NodeName}, node); err == nil {
		v["kubelet"], v["container runtime"] = node.Status.NodeInfo.KubeletVersion, node.Status.NodeInfo.ContainerRuntimeVersion
	}
	return v
}
