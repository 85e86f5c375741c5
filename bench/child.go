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
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/requestcount"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The roles a child process plays. Each runs alone in its process so that its heap, RSS and
// CPU time are its own.
const (
	// RoleManager is demo-operator's manager, built by internal/manager as the binary builds it.
	RoleManager = "manager"
	// RoleFullPodManager is the usual controller-runtime labeler: a typed, full Pod cache.
	RoleFullPodManager = "full-pod-manager"
	// RoleClientGoLabeler is the plain client-go baseline: a metadata informer and workers that
	// send the one merge patch each annotated pod needs.
	RoleClientGoLabeler = "client-go-labeler"
	// RoleWatcher is the manager without its DemoApplication controller: the operator's
	// watches (its caches, with internal/manager's options) and nothing that writes, so that a
	// convergence run can count what the watches cost the API server apart from the writes.
	RoleWatcher = "watcher"
)

// childFlags are a child's settings, passed on its command line.
type childFlags struct {
	role           string
	kubeconfig     string
	qps            float64
	burst          int
	concurrency    int
	probeAddr      string
	leaderElect    bool
	leaseNamespace string
	syncPeriod     time.Duration
	// namespaces, comma-separated, are the only ones watched; empty watches all.
	namespaces string
	// cpuProfile, when set, is where the child writes its CPU profile.
	cpuProfile string
}

func (f *childFlags) args() []string {
	return []string{"-role=" + f.role, "-kubeconfig=" + f.kubeconfig,
		"-qps=" + strconv.FormatFloat(f.qps, 'f', -1, 64), "-burst=" + strconv.Itoa(f.burst),
		"-concurrency=" + strconv.Itoa(f.concurrency), "-probe-addr=" + f.probeAddr,
		"-leader-elect=" + strconv.FormatBool(f.leaderElect), "-lease-namespace=" + f.leaseNamespace,
		"-sync-period=" + f.syncPeriod.String(), "-namespaces=" + f.namespaces, "-cpuprofile=" + f.cpuProfile}
}

func (f *childFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.role, "role", RoleManager, "what the child runs")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "the API server's kubeconfig")
	fs.Float64Var(&f.qps, "qps", 0, "client QPS")
	fs.IntVar(&f.burst, "burst", 0, "client burst")
	fs.IntVar(&f.concurrency, "concurrency", 1, "concurrent reconciles or patch workers")
	fs.StringVar(&f.probeAddr, "probe-addr", "0", "health probe address of a manager")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect a leader through a Lease")
	fs.StringVar(&f.leaseNamespace, "lease-namespace", "", "namespace of the leader-election Lease")
	fs.DurationVar(&f.syncPeriod, "sync-period", 0, "informer resync period; 0 keeps controller-runtime's")
	fs.StringVar(&f.namespaces, "namespaces", "", "comma-separated namespaces to watch; empty for all")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "file the child writes its CPU profile to")
}

// Stats is what a child reports about itself when asked.
type Stats struct {
	// HeapBytes is the heap held by live objects right after a forced GC.
	HeapBytes uint64 `json:"heapBytes"`
	// RSSBytes is the process's resident set, read before the forced GC.
	RSSBytes   uint64  `json:"rssBytes"`
	CPUSeconds float64 `json:"cpuSeconds"`
	// Writes counts non-GET requests by method and resource, e.g. "PATCH pods".
	Writes map[string]int `json:"writes"`
	// PodPatches maps a pod-name prefix to how many pods got how many patches.
	PodPatches map[string]map[int]int `json:"podPatches"`
	// Reconciles counts reconciles by controller.
	Reconciles map[string]float64 `json:"reconciles"`
}

// eventStats is both the line the parent writes to a child's stdin to ask for its stats and
// the event of the message that answers it.
const eventStats = "stats"

// message is one line a child writes to its stdout.
type message struct {
	Event string    `json:"event"`
	Time  time.Time `json:"time"`
	Stats *Stats    `json:"stats,omitempty"`
	Error string    `json:"error,omitempty"`
}

// RunChild runs one child process: args are its flags. It stops when its stdin closes or on
// SIGTERM, and answers "stats" lines on stdin with a stats message.
func RunChild(args []string) int {
	var f childFlags
	fs := flag.NewFlagSet("child", flag.ContinueOnError)
	f.bind(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	if f.cpuProfile != "" {
		// Every 4 KiB allocated rather than 512 KiB: a cached pod's few hundred bytes show
		// by allocation site in the heap profile.
		runtime.MemProfileRate = 4096
		profile, err := os.Create(f.cpuProfile)
		if err != nil {
			return 1
		}
		defer profile.Close()
		if err := pprof.StartCPUProfile(profile); err != nil {
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	out := &reporter{enc: json.NewEncoder(os.Stdout)}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	writes := &requestcount.Counter{Key: writeKey}
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			if in.Text() == eventStats {
				out.send(message{Event: eventStats, Stats: stats(writes)})
				if f.cpuProfile != "" {
					// What the heap holds when the figures are read, by allocation site.
					writeHeapProfile(strings.TrimSuffix(f.cpuProfile, ".cpu.pprof") + ".heap.pprof")
				}
			}
		}
		cancel()
	}()

	if err := runRole(ctx, f, writes, out); err != nil {
		out.send(message{Event: "error", Error: err.Error()})
		return 1
	}
	return 0
}

func runRole(ctx context.Context, f childFlags, writes *requestcount.Counter, out *reporter) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(f.qps), f.burst
	cfg.WrapTransport = writes.Wrap
	switch f.role {
	case RoleClientGoLabeler:
		return runClientGoLabeler(ctx, cfg, f.namespaces, f.concurrency, out)
	case RoleManager, RoleFullPodManager, RoleWatcher:
	default:
		return fmt.Errorf("unknown role %q", f.role)
	}

	customize := func(o *ctrl.Options) {
		if f.leaseNamespace != "" {
			o.LeaderElectionNamespace = f.leaseNamespace
		}
		if f.syncPeriod > 0 {
			o.Cache.SyncPeriod = &f.syncPeriod
		}
	}
	var mgr ctrl.Manager
	if f.role != RoleFullPodManager {
		opts := manager.DefaultOptions()
		opts.MetricsAddr, opts.ProbeAddr, opts.LeaderElect = "0", f.probeAddr, f.leaderElect
		opts.QPS, opts.Burst, opts.MaxConcurrent = f.qps, f.burst, f.concurrency
		opts.WatchNamespaces = f.namespaces
		opts.EnableDemoApp = f.role != RoleWatcher
		mgr, err = manager.New(cfg, opts, customize)
	} else {
		mgr, err = newFullPodManager(cfg, f.probeAddr, f.concurrency, func(o *ctrl.Options) {
			if f.namespaces != "" {
				o.Cache.DefaultNamespaces = map[string]cache.Config{}
				for _, ns := range strings.Split(f.namespaces, ",") {
					o.Cache.DefaultNamespaces[ns] = cache.Config{}
				}
			}
			customize(o)
		})
	}
	if err != nil {
		return err
	}
	// A follower syncs its cache while it waits for the Lease: "synced" and "elected" come
	// independently, and a leader is ready once it has sent both.
	go func() {
		if mgr.GetCache().WaitForCacheSync(ctx) {
			out.send(message{Event: "synced"})
		}
	}()
	go func() {
		select {
		case <-mgr.Elected():
			out.send(message{Event: "elected"})
		case <-ctx.Done():
			return
		}
		// Controllers create their informers as they start: wait for each to hold the
		// whole of its kind, so that "ready" means every object is in the cache.
		for _, obj := range watched(f.role) {
			if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
				return
			}
		}
		out.send(message{Event: "ready"})
	}()
	return mgr.Start(ctx)
}

// watched returns the kinds the role's controllers cache.
func watched(role string) []client.Object {
	if role == RoleFullPodManager {
		return []client.Object{&corev1.Pod{}}
	}
	metadata := func(kind string) client.Object {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		return m
	}
	return []client.Object{metadata("Pod"), &paasv1.DemoApplication{}, &appsv1.Deployment{}, &corev1.Service{},
		&policyv1.PodDisruptionBudget{}, &networkingv1.NetworkPolicy{}, metadata("ConfigMap"), metadata("Secret")}
}

// newFullPodManager is the baseline of the memory figures: the same labeler written the
// usual way, with For(&corev1.Pod{}) caching whole Pods.
func newFullPodManager(cfg *rest.Config, probeAddr string, concurrency int, customize func(*ctrl.Options)) (ctrl.Manager, error) {
	opts := ctrl.Options{Scheme: manager.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: probeAddr}
	customize(&opts)
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, err
	}
	r := &fullPodLabeler{Client: mgr.GetClient()}
	return mgr, ctrl.NewControllerManagedBy(mgr).Named("full-pod-labeler").For(&corev1.Pod{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrency}).Complete(r)
}

type fullPodLabeler struct{ client.Client }

func (r *fullPodLabeler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Get(ctx, req.NamespacedName, pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := pod.Annotations[wellknown.DefaultPodLabelAnnotation] == wellknown.OptIn
	current, has := pod.Labels[wellknown.DefaultPodNameLabel]
	if want == has && (!want || current == pod.Name) {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(pod.DeepCopy())
	if want {
		metav1.SetMetaDataLabel(&pod.ObjectMeta, wellknown.DefaultPodNameLabel, pod.Name)
	} else {
		delete(pod.Labels, wellknown.DefaultPodNameLabel)
	}
	return ctrl.Result{}, client.IgnoreNotFound(r.Patch(ctx, pod, patch))
}

// reporter writes messages to stdout one line at a time.
type reporter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (r *reporter) send(m message) {
	m.Time = time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.enc.Encode(m)
}

// writeKey counts the process's writes alone, so that the figures hold its own writes and
// nothing else the API server serves: by resource, and a pod's patches by pod too (after a
// space), whose counts show how often each pod was written.
func writeKey(r requestcount.Request) (requestcount.Request, bool) {
	if r.Method == http.MethodGet {
		return r, false
	}
	resource, name := resourceOf(r.Path)
	r.Path = resource
	if resource == "pods" && r.Method == http.MethodPatch && !r.Refused {
		r.Path += " " + name
	}
	return r, true
}

// resourceOf returns the resource (with its subresource) and the object name of an API path
// such as /api/v1/namespaces/ns/pods/name or /apis/g/v/namespaces/ns/r/name/status.
func resourceOf(path string) (resource, name string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		if p == resourceNamespaces && i+2 < len(parts) {
			parts = parts[i+2:]
			break
		}
	}
	if len(parts) >= 2 && (parts[0] == "api" || parts[0] == "apis") {
		parts = parts[len(parts)-1:]
	}
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return parts[0], ""
	case 2:
		return parts[0], parts[1]
	default:
		return parts[0] + "/" + parts[2], parts[1]
	}
}

// stats reads the process's figures; writes is its Counter, keyed by writeKey.
func stats(writes *requestcount.Counter) *Stats {
	rss, _ := processRSS(os.Getpid())
	reconciles, _ := testenv.Counters("controller_runtime_reconcile_total", "controller")
	s := &Stats{RSSBytes: rss, CPUSeconds: cpuSeconds(), Writes: map[string]int{},
		PodPatches: map[string]map[int]int{}, Reconciles: reconciles}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	s.HeapBytes = sample[0].Value.Uint64()
	logMemoryClasses()
	for r, n := range writes.Counts() {
		resource, pod, patched := strings.Cut(r.Path, " ")
		if patched {
			// Named by its app, the part of the name before the first dash.
			prefix, _, _ := strings.Cut(pod, "-")
			if s.PodPatches[prefix] == nil {
				s.PodPatches[prefix] = map[int]int{}
			}
			s.PodPatches[prefix][n]++
			r.Path = resource
		}
		key := r.Method + " " + r.Path
		if r.Refused {
			// A conflict, say: nothing was written, but the request is shown.
			key = "refused " + key
		}
		s.Writes[key] += n
	}
	return s
}

// logMemoryClasses writes to the child's log where the Go runtime's memory goes, in MiB: the
// live heap beside the free space of its spans (fragmentation), what is free but not yet
// returned to the system, stacks and the runtime's own metadata.
func logMemoryClasses() {
	var samples []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	line := "memory classes (MiB):"
	for _, s := range samples {
		line += fmt.Sprintf(" %s=%.1f", strings.TrimSuffix(strings.TrimPrefix(s.Name, "/memory/classes/"), ":bytes"), float64(s.Value.Uint64())/mib)
	}
	fmt.Fprintln(os.Stderr, line)
}

// writeHeapProfile writes the heap's profile to path; the stats have just run a GC, so its
// in-use figures are the live heap's. A profile that cannot be written is only missing.
func writeHeapProfile(path string) {
	file, err := os.Create(path)
	if err != nil {
		return
	}
	defer file.Close()
	_ = pprof.Lookup("heap").WriteTo(file, 0)
}

func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}
