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
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/prometheus/procfs"
)

// The memory figures' roles that run the operator's own binary rather than a child.
const (
	// RoleBinary is the operator's own binary, as an image ships it; only its RSS is read.
	RoleBinary = "binary"
	// RoleBinaryContained is the binary in a memory cgroup, as in a container with a memory
	// limit, from which it sets its GOMEMLIMIT.
	RoleBinaryContained = "binary-contained"
)

// binaryMemory adds to the memory figures the RSS of the operator's binary with n pods in
// namespace: alone, and in a memory cgroup when the run has a container limit.
func (b *Bench) binaryMemory(ctx context.Context, namespace string, n, runs int) error {
	type binary struct {
		role            string
		containerMemory int64
	}
	binaries := []binary{{RoleBinary, 0}}
	if b.cfg.ContainerMemory > 0 {
		binaries = append(binaries, binary{RoleBinaryContained, b.cfg.ContainerMemory})
	}
	for _, l := range binaries {
		var rssBytes, anonBytes, fileBytes []float64
		for range runs {
			rss, err := b.binaryRSS(ctx, namespace, l.containerMemory)
			if err != nil {
				return err
			}
			// What the collector spends to stay under GOMEMLIMIT shows in the CPU of the start.
			b.logf("memory N=%d %s: ready in %.1f s, %.1f CPU s until its memory settled",
				n, l.role, rss.ready.Seconds(), rss.cpuSeconds)
			rssBytes = append(rssBytes, float64(rss.total()))
			anonBytes, fileBytes = append(anonBytes, float64(rss.anon)), append(fileBytes, float64(rss.file))
		}
		point := MemoryPoint{Role: l.role, Pods: n, RSSBytes: median(rssBytes),
			RSSAnonBytes: median(anonBytes), RSSFileBytes: median(fileBytes)}
		b.logf("memory N=%d %s: RSS %.1f MiB (anonymous %.1f MiB, file %.1f MiB)",
			n, l.role, point.RSSBytes/mib, point.RSSAnonBytes/mib, point.RSSFileBytes/mib)
		b.results.Memory = append(b.results.Memory, point)
	}
	return nil
}

// binaryRSS runs the operator's own binary, as an image ships it, watching namespace, and
// returns its resident set once it is ready and its memory has settled. The children of the
// other roles run the same manager inside the bench binary, which is larger: their RSS
// counts the bench's code too, while their heap, read after a forced GC, is the manager's.
// A containerMemory above 0 runs the binary in a memory cgroup of that limit, as a
// container's: the manager sets its GOMEMLIMIT from it, as in an install.
func (b *Bench) binaryRSS(ctx context.Context, namespace string, containerMemory int64) (resident, error) {
	addr, err := localcluster.FreeAddr()
	if err != nil {
		return resident{}, err
	}
	b.seq++
	log, err := os.Create(filepath.Join(b.dir, fmt.Sprintf("%03d-binary.log", b.seq)))
	if err != nil {
		return resident{}, err
	}
	defer log.Close()
	s := b.defaultSetting()
	args := []string{b.cfg.Manager, "--kubeconfig=" + b.kubeconfig, "--watch-namespaces=" + namespace,
		"--metrics-bind-address=0", "--health-probe-bind-address=" + addr,
		"--kube-api-qps=" + strconv.FormatFloat(s.QPS, 'f', -1, 64), "--kube-api-burst=" + strconv.Itoa(s.Burst),
		"--max-concurrent-reconciles=" + strconv.Itoa(s.Concurrency)}
	var cgroup *memoryCgroup
	if containerMemory > 0 {
		if cgroup, err = newMemoryCgroup(fmt.Sprintf("demo-operator-bench-%d", b.seq), containerMemory); err != nil {
			return resident{}, err
		}
		defer cgroup.remove()
		// The shell joins the cgroup and becomes the manager, which so starts inside it.
		args = append([]string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, cgroup.procs()}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return resident{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()

	started := time.Now()
	deadline := started.Add(5 * time.Minute)
	if err := awaitReady(ctx, addr, 100*time.Millisecond, 5*time.Minute); err != nil {
		return resident{}, fmt.Errorf("%s (log %s): %w", b.cfg.Manager, log.Name(), err)
	}
	ready := time.Since(started)
	// Ready says the caches are full; the list buffers become garbage only after that, and
	// the runtime returns freed memory gradually: wait until the resident set stops moving.
	var last resident
	for stable := 0; stable < 5 && time.Now().Before(deadline); {
		time.Sleep(time.Second)
		now, err := processResident(cmd.Process.Pid)
		if err != nil {
			return resident{}, err
		}
		if diff := int64(now.total()) - int64(last.total()); diff < int64(last.total()/100) && -diff < int64(last.total()/100) {
			stable++
		} else {
			stable = 0
		}
		last = now
	}
	last.ready = ready
	if proc, err := procfs.NewProc(cmd.Process.Pid); err == nil {
		if stat, err := proc.Stat(); err == nil {
			last.cpuSeconds = stat.CPUTime()
		}
	}
	if cgroup != nil {
		if kills, err := cgroup.oomKills(); err != nil || kills > 0 {
			return resident{}, fmt.Errorf("%s in a memory cgroup of %d bytes: %d OOM kills (%v)", b.cfg.Manager, containerMemory, kills, err)
		}
		// What the kernel charges the container, beside RSS: the executable's pages are
		// charged to whoever read them first (here the build), and reclaimed under pressure.
		if usage, peak, err := cgroup.charged(); err == nil {
			b.logf("memory cgroup: %.1f MiB charged, peak %.1f MiB", float64(usage)/mib, float64(peak)/mib)
		}
	}
	return last, nil
}

// awaitReady polls the /readyz of the manager whose probes listen on addr until it answers
// 200, every interval, for at most timeout.
func awaitReady(ctx context.Context, addr string, interval, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s", timeout)
		}
		time.Sleep(interval)
	}
}

// processRSS reads pid's resident set, as the kubelet would see it.
func processRSS(pid int) (uint64, error) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	stat, err := proc.Stat()
	if err != nil {
		return 0, err
	}
	return uint64(stat.ResidentMemory()), nil
}

// resident is a process's resident set by kind of page, as /proc/PID/status splits it.
type resident struct {
	// anon is the heap, stacks and the runtime's own memory; file is the executable's pages
	// that were touched; shmem is shared memory, which the manager does not use.
	anon, file, shmem uint64
	// ready is how long the binary took to be ready, and cpuSeconds the CPU it used until
	// its resident set settled; binaryRSS sets them.
	ready      time.Duration
	cpuSeconds float64
}

func (r resident) total() uint64 { return r.anon + r.file + r.shmem }

// processResident reads pid's resident set by kind of page.
func processResident(pid int) (resident, error) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return resident{}, err
	}
	status, err := proc.NewStatus()
	if err != nil {
		return resident{}, err
	}
	return resident{anon: status.RssAnon, file: status.RssFile, shmem: status.RssShmem}, nil
}

// memoryCgroup is a memory cgroup under the bench's own, with a limit, as a container has.
type memoryCgroup struct {
	dir string
	v1  bool
}

// newMemoryCgroup makes the cgroup name, limited to limit bytes, under the bench's own, in
// the cgroup v2 hierarchy or, where memory is a v1 controller, in its v1 hierarchy.
func newMemoryCgroup(name string, limit int64) (*memoryCgroup, error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	var c *memoryCgroup
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		switch {
		case len(parts) != 3:
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			c = &memoryCgroup{dir: filepath.Join("/sys/fs/cgroup/memory", parts[2], name), v1: true}
		case parts[0] == "0" && c == nil:
			c = &memoryCgroup{dir: filepath.Join("/sys/fs/cgroup", parts[2], name)}
		}
	}
	if c == nil {
		return nil, errors.New("no memory cgroup in /proc/self/cgroup")
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("making a memory cgroup (run as root, or without -container-memory): %w", err)
	}
	file := "memory.max"
	if c.v1 {
		file = "memory.limit_in_bytes"
	}
	if err := os.WriteFile(filepath.Join(c.dir, file), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		c.remove()
		return nil, fmt.Errorf("limiting memory cgroup %s: %w", c.dir, err)
	}
	return c, nil
}

func (c *memoryCgroup) procs() string { return filepath.Join(c.dir, "cgroup.procs") }

// oomKills counts the processes the kernel killed in the cgroup for want of memory.
func (c *memoryCgroup) oomKills() (int, error) {
	file := "memory.events"
	if c.v1 {
		file = "memory.oom_control"
	}
	data, err := os.ReadFile(filepath.Join(c.dir, file))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok {
			return strconv.Atoi(strings.TrimSpace(n))
		}
	}
	return 0, nil
}

// charged returns the memory the kernel charges the cgroup now and at its peak.
func (c *memoryCgroup) charged() (usage, peak uint64, err error) {
	files := [2]string{"memory.current", "memory.peak"}
	if c.v1 {
		files = [2]string{"memory.usage_in_bytes", "memory.max_usage_in_bytes"}
	}
	var values [2]uint64
	for i, file := range files {
		data, err := os.ReadFile(filepath.Join(c.dir, file))
		if err != nil {
			return 0, 0, err
		}
		if values[i], err = strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64); err != nil {
			return 0, 0, err
		}
	}
	return values[0], values[1], nil
}

// remove deletes the cgroup once its processes are gone.
func (c *memoryCgroup) remove() {
	for range 50 {
		if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
