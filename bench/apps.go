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
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/pkg/generated/clientset/versioned"
)

// The convergence roles played by the bench's own clients, beside RoleManager.
const (
	// RoleDirect is the convergence baseline: a client creating the Deployments and Services itself.
	RoleDirect = "direct-client"
	// RoleLeastWrites sends, per app, the writes that any operator needs for the same
	// outcome, with none of an operator's reads or checks but the two the outcome needs (the
	// app's ConfigMap and Secret, read from the watch cache, of which the pod template's
	// config hash is made): the DemoApplication, its objects created outright, and one status
	// write. It bounds what the manager could do.
	RoleLeastWrites = "least-writes"
	// RoleLeastWritesApply is least writes sent as the operator sends them: the Deployment
	// and Service by a create-only server-side apply under its field manager, the status by
	// its merge patch with a resourceVersion.
	RoleLeastWritesApply = "least-writes-apply"
	// RoleLeastWritesWatched is least-writes-apply while a process holds the operator's
	// watches (RoleWatcher), so that what they cost the API server counts: every ingredient of
	// the manager's traffic but its reconciles, as the operator records no Event for a new app.
	RoleLeastWritesWatched = "least-writes-apply-watched"
)

// leastWrites are the roles that add, one at a time, an ingredient of the operator's
// traffic to the least writes, so that the gap between the two decomposes.
var leastWrites = map[string]struct{ apply, watched bool }{
	RoleLeastWrites:        {},
	RoleLeastWritesApply:   {apply: true},
	RoleLeastWritesWatched: {apply: true, watched: true},
}

// createOnly is the resourceVersion no object has, which makes an apply create or be refused,
// as controllers/demoapplication/apply.go sends it for a name its cache does not hold.
var createOnly = strconv.FormatUint(math.MaxUint64, 10)

// appTracker follows, from the API server's watches, when each app's objects exist and its
// status is current.
type appTracker struct {
	mu         sync.Mutex
	needStatus bool
	n, count   int
	apps       map[string]*appState
	done       chan time.Time
}

type appState struct {
	created                     time.Time
	deployment, service, status bool
	converged                   time.Time
}

func (t *appTracker) update(name string, f func(*appState)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.apps[name]
	if s == nil {
		s = &appState{}
		t.apps[name] = s
	}
	f(s)
	if s.converged.IsZero() && s.deployment && s.service && (s.status || !t.needStatus) {
		s.converged = time.Now()
		if t.count++; t.count == t.n {
			t.done <- s.converged
		}
	}
}

// latencies returns each app's create-to-converged time, sorted.
func (t *appTracker) latencies() []float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]float64, 0, len(t.apps))
	for _, s := range t.apps {
		out = append(out, seconds(s.converged.Sub(s.created)))
	}
	slices.Sort(out)
	return out
}

func (b *Bench) trackApps(ctx context.Context, namespace string, n int, needStatus bool) (*appTracker, error) {
	t := &appTracker{needStatus: needStatus, n: n, apps: map[string]*appState{}, done: make(chan time.Time, 1)}
	kube := informers.NewSharedInformerFactoryWithOptions(b.clientset, 0, informers.WithNamespace(namespace))
	// The generated client has no informers: list and watch through its REST client.
	apps := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(b.paas.PaasV1().RESTClient(),
		"demoapplications", namespace, fields.Everything()), &paasv1.DemoApplication{}, 0, cache.Indexers{})
	handlers := map[cache.SharedIndexInformer]func(any){
		kube.Apps().V1().Deployments().Informer(): func(obj any) {
			t.update(obj.(*appsv1.Deployment).Name, func(s *appState) { s.deployment = true })
		},
		kube.Core().V1().Services().Informer(): func(obj any) {
			t.update(obj.(*corev1.Service).Name, func(s *appState) { s.service = true })
		},
		apps: func(obj any) {
			app := obj.(*paasv1.DemoApplication)
			// A status that missed the app's ConfigMap or Secret (the watch cache the operator
			// reads them from may lag their create) is not the outcome.
			current := app.Status.ObservedGeneration == app.Generation && len(app.Status.Conditions) > 0 &&
				!slices.ContainsFunc(app.Status.Conditions, func(c metav1.Condition) bool { return c.Reason == paasv1.ReasonConfigNotFound })
			t.update(app.Name, func(s *appState) { s.status = s.status || current })
		},
	}
	for informer, seen := range handlers {
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: seen, UpdateFunc: func(_, obj any) { seen(obj) }}); err != nil {
			return nil, err
		}
	}
	kube.Start(ctx.Done())
	go apps.Run(ctx.Done())
	kube.WaitForCacheSync(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), apps.HasSynced)
	return t, nil
}

// ConvergeRun is one measurement of M DemoApplications (or their objects) created at once.
type ConvergeRun struct {
	// Seconds runs from the first create to the last app converged.
	Seconds    float64 `json:"seconds"`
	P50Seconds float64 `json:"p50Seconds"`
	P99Seconds float64 `json:"p99Seconds"`
	// Writes are the manager's write requests by method and resource (the direct client's: 2
	// per app); those the API server refused are keyed "refused <method> <resource>".
	Writes map[string]int `json:"writes"`
	// WritesPerApp counts accepted writes to Deployments, Services and DemoApplications, not events.
	WritesPerApp float64 `json:"writesPerApp"`
	// EventsPerApp counts the Events the manager recorded.
	EventsPerApp float64 `json:"eventsPerApp"`
	// ServerCPUSeconds is what kube-apiserver and etcd used from the first create to the
	// last app converged: the cost of the run to the control plane.
	ServerCPUSeconds float64 `json:"serverCPUSeconds"`
	// MachineCPUSeconds is what every process of the machine used over the same span: the
	// control plane, the bench's clients and the manager (or watcher) together. With the cores
	// saturated, a run's time follows it.
	MachineCPUSeconds float64 `json:"machineCPUSeconds"`
	// RequestsPerApp are the requests the API server served during the run, reads included,
	// per app, by verb and resource (apiserver_request_total): the bench's own (its creates,
	// its watches) as well as the manager's, which a least-writes run shows alone.
	RequestsPerApp map[string]float64 `json:"requestsPerApp"`
	// Order is the run's place in its round (1 for the first): the roles' order rotates.
	Order int `json:"order"`
	// Start is the state the run started on.
	Start ClusterState `json:"start"`
}

// convergeRun creates m apps in a namespace of its own; with role RoleManager a manager
// turns them into Deployments and Services, with RoleDirect the bench creates those itself
// within the same client budget, and with RoleLeastWrites also the apps and their status.
func (b *Bench) convergeRun(ctx context.Context, role string, s setting, m int) (ConvergeRun, string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start, err := b.clusterState(ctx)
	if err != nil {
		return ConvergeRun{}, "", err
	}
	b.logf("convergence %s %s starts on: %s", s.Name, role, start)
	ns, err := b.newNamespace(ctx, "apps")
	if err != nil {
		return ConvergeRun{}, "", err
	}
	var p *proc
	if role == RoleManager || leastWrites[role].watched {
		child := RoleManager
		if role != RoleManager {
			child = RoleWatcher
		}
		if p, err = b.start(s.child(child, ns)); err != nil {
			return ConvergeRun{}, ns, err
		}
		defer p.stop()
		if err := p.await(2*time.Minute, "elected", "ready"); err != nil {
			return ConvergeRun{}, ns, err
		}
	}
	tracker, err := b.trackApps(ctx, ns, m, role != RoleDirect)
	if err != nil {
		return ConvergeRun{}, ns, err
	}
	create, workers := b.creator(ns, role, s)
	if create == nil {
		return ConvergeRun{}, ns, fmt.Errorf("no client for %s", role)
	}
	serverCPU, err := b.serverCPUSeconds()
	if err != nil {
		return ConvergeRun{}, ns, err
	}
	machineCPU, err := machineCPUSeconds()
	if err != nil {
		return ConvergeRun{}, ns, err
	}
	requests, err := b.apiRequests(ctx)
	if err != nil {
		return ConvergeRun{}, ns, err
	}
	defer b.profileAPIServer(ctx, role, 30)()
	begin := time.Now()
	if err := parallel(workers, m, func(i int) error {
		name := fmt.Sprintf("app-%05d", i)
		tracker.update(name, func(s *appState) { s.created = time.Now() })
		return create(ctx, name)
	}); err != nil {
		return ConvergeRun{}, ns, err
	}
	timeout := 5*time.Minute + s.rateBound(float64(m)*6)
	run := ConvergeRun{Start: start}
	select {
	case last := <-tracker.done:
		run.Seconds = seconds(last.Sub(begin))
		cpu, err := b.serverCPUSeconds()
		if err != nil {
			return run, ns, err
		}
		run.ServerCPUSeconds = cpu - serverCPU
		if cpu, err = machineCPUSeconds(); err != nil {
			return run, ns, err
		}
		run.MachineCPUSeconds = cpu - machineCPU
	case <-time.After(timeout):
		return run, ns, fmt.Errorf("%s: not every app converged after %s", role, timeout)
	}
	latencies := tracker.latencies()
	run.P50Seconds, run.P99Seconds = percentile(latencies, 50), percentile(latencies, 99)
	run.Writes = map[string]int{"POST deployments": m, "POST services": m, "POST poddisruptionbudgets": m, "POST networkpolicies": m}
	if least, ok := leastWrites[role]; ok {
		run.Writes["PUT demoapplications/status"] = m
		if least.apply {
			run.Writes = map[string]int{"PATCH deployments": m, "PATCH services": m, "PATCH poddisruptionbudgets": m,
				"PATCH networkpolicies": m, "PATCH demoapplications/status": m}
		}
	}
	if role == RoleManager {
		// Let the reconciles that the objects' own create events trigger finish.
		time.Sleep(2 * time.Second)
		stats, err := p.Stats()
		if err != nil {
			return run, ns, err
		}
		run.Writes = stats.Writes
	}
	after, err := b.apiRequests(ctx)
	if err != nil {
		return run, ns, err
	}
	run.RequestsPerApp = requestsPerApp(requests, after, m)
	for key, n := range run.Writes {
		switch {
		case strings.HasPrefix(key, "refused "):
		case strings.HasSuffix(key, " selfsubjectreviews"):
			// The manager's restraint check at its start, once per process: stores nothing.
		case strings.HasSuffix(key, " events"):
			run.EventsPerApp += float64(n) / float64(m)
		default:
			run.WritesPerApp += float64(n) / float64(m)
		}
	}
	return run, ns, nil
}

// createConfigs creates the ConfigMap and Secret of the app name, as its team would before
// the app, in every role alike.
func createConfigs(ctx context.Context, clientset kubernetes.Interface, namespace, name string) (string, error) {
	cm, secret := configObjects(namespace, name)
	if _, err := clientset.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return "", err
	}
	if _, err := clientset.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return "", err
	}
	return configHash(cm, secret), nil
}

// readConfigs reads the ConfigMap and Secret of the app name, as an operator that hashes
// them must, and returns their hash: from the watch cache, or from etcd when the cache has
// not yet seen one created just before.
func readConfigs(ctx context.Context, clientset kubernetes.Interface, namespace, name string) (string, error) {
	cm, err := readFresh(ctx, clientset.CoreV1().ConfigMaps(namespace).Get, configName(name))
	if err != nil {
		return "", err
	}
	secret, err := readFresh(ctx, clientset.CoreV1().Secrets(namespace).Get, secretName(name))
	if err != nil {
		return "", err
	}
	return configHash(cm, secret), nil
}

// readFresh gets name from the watch cache, then from etcd if the cache lacks it.
func readFresh[T any](ctx context.Context, get func(context.Context, string, metav1.GetOptions) (T, error), name string) (T, error) {
	obj, err := get(ctx, name, metav1.GetOptions{ResourceVersion: "0"})
	if apierrors.IsNotFound(err) {
		return get(ctx, name, metav1.GetOptions{})
	}
	return obj, err
}

// creator returns what creates one app for role, and how many goroutines call it: the
// bench's creators for DemoApplications, the manager's budget for the bench's direct clients.
// Every role first creates the app's ConfigMap and Secret (the team's, not the operator's).
func (b *Bench) creator(namespace, role string, s setting) (func(context.Context, string) error, int) {
	if role == RoleManager {
		return func(ctx context.Context, name string) error {
			if _, err := createConfigs(ctx, b.clientset, namespace, name); err != nil {
				return err
			}
			return b.client.Create(ctx, benchApp(namespace, name))
		}, b.cfg.Creators
	}
	cfg := rest.CopyConfig(b.rest)
	cfg.QPS, cfg.Burst = float32(s.QPS), s.Burst
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, 0
	}
	paas, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, 0
	}
	writer, err := client.New(cfg, client.Options{Scheme: manager.Scheme})
	if err != nil {
		return nil, 0
	}
	least, isLeast := leastWrites[role]
	return func(ctx context.Context, name string) error {
		// The team's own objects, through the bench's client in every role, outside the budget.
		hash, err := createConfigs(ctx, b.clientset, namespace, name)
		if err != nil {
			return err
		}
		if isLeast {
			if hash, err = readConfigs(ctx, clientset, namespace, name); err != nil {
				return err
			}
		}
		app := benchApp(namespace, name)
		if !isLeast {
			objects := newAppObjects(app, hash)
			if _, err := clientset.AppsV1().Deployments(namespace).Create(ctx, objects.deployment, metav1.CreateOptions{}); err != nil {
				return err
			}
			if _, err := clientset.CoreV1().Services(namespace).Create(ctx, objects.service, metav1.CreateOptions{}); err != nil {
				return err
			}
			if _, err := clientset.PolicyV1().PodDisruptionBudgets(namespace).Create(ctx, objects.budget, metav1.CreateOptions{}); err != nil {
				return err
			}
			_, err := clientset.NetworkingV1().NetworkPolicies(namespace).Create(ctx, objects.networkPolicy, metav1.CreateOptions{})
			return err
		}
		app, err = paas.PaasV1().DemoApplications(namespace).Create(ctx, app, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		for _, obj := range newAppObjects(app, hash).all() {
			if least.apply {
				// An apply names its kind in its body: the builders' objects carry theirs.
				obj.SetResourceVersion(createOnly)
				var u map[string]any
				if u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
					return err
				}
				err = writer.Apply(ctx, client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: u}),
					client.FieldOwner(wellknown.FieldManager), client.ForceOwnership)
			} else {
				err = writer.Create(ctx, obj)
			}
			if err != nil {
				return err
			}
		}
		original := app.DeepCopy()
		app.Status.ObservedGeneration = app.Generation
		// The status the operator writes for a new app, so that the status write costs as much.
		for _, c := range []metav1.Condition{
			{Type: paasv1.ConditionAvailable, Status: metav1.ConditionFalse, Reason: paasv1.ReasonReplicasUnavailable,
				Message: "Waiting for the Deployment's pods to become available"},
			{Type: paasv1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: paasv1.ReasonRollingOut,
				Message: "The Deployment is rolling out the current spec"},
			{Type: paasv1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: paasv1.ReasonAsExpected,
				Message: "The Deployment and Service match the spec"},
		} {
			c.ObservedGeneration = app.Generation
			meta.SetStatusCondition(&app.Status.Conditions, c)
		}
		if least.apply {
			err = writer.Status().Patch(ctx, app, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
		} else {
			err = writer.Status().Update(ctx, app)
		}
		return err
	}, s.Concurrency
}

// convergence measures M apps with the defaults (no client-side limit) and with the former
// 50-QPS limit, beside the direct client, each run on the same state.
func (b *Bench) convergence(ctx context.Context) error {
	for _, j := range []struct {
		s    setting
		runs int
	}{{b.defaultSetting(), b.cfg.Runs}, {b.limitedSetting(), 1}} {
		if !b.measures(j.s) {
			continue
		}
		runs := map[string][]ConvergeRun{}
		roles := []string{RoleDirect, RoleManager}
		if j.s.Name == settingDefaults {
			// The least-writes roles in the order they add the operator's ingredients.
			roles = []string{RoleDirect, RoleLeastWrites, RoleLeastWritesApply, RoleLeastWritesWatched, RoleManager}
		}
		if len(b.cfg.Roles) > 0 {
			roles = slices.DeleteFunc(roles, func(r string) bool { return !slices.Contains(b.cfg.Roles, r) })
		}
		baseline, err := b.objectCounts(ctx)
		if err != nil {
			return err
		}
		for i := range j.runs {
			// Each round starts with the next role, so that none always runs first (ABC, BCA, CAB).
			for k := range roles {
				role := roles[(i+k)%len(roles)]
				if err := b.settle(ctx, baseline); err != nil {
					return err
				}
				r, ns, err := b.convergeRun(ctx, role, j.s, b.cfg.Apps)
				if err != nil {
					return err
				}
				r.Order = k + 1
				// Every run's objects go, the manager's too, or the next runs would start on more
				// than the first did; the steady state converges apps of its own.
				if err := b.emptyAppsNamespace(ctx, ns); err != nil {
					return err
				}
				b.logf("convergence %s M=%d %s run %d: %.1fs, p50 %.2fs, p99 %.2fs, %.2f writes/app, %.2f events/app, API server and etcd %.1f CPU s",
					j.s.Name, b.cfg.Apps, role, i+1, r.Seconds, r.P50Seconds, r.P99Seconds, r.WritesPerApp, r.EventsPerApp, r.ServerCPUSeconds)
				runs[role] = append(runs[role], r)
			}
		}
		for _, role := range roles {
			b.results.addConvergence(role, j.s, b.cfg.Apps, runs[role])
		}
	}
	return nil
}

// SteadyState is the manager watching a converged cluster where nothing changes.
type SteadyState struct {
	WindowSeconds     float64 `json:"windowSeconds"`
	SyncPeriodSeconds float64 `json:"syncPeriodSeconds"`
	Pods              int     `json:"pods"`
	Apps              int     `json:"apps"`
	// StartupWrites are the writes of the manager's start on the converged cluster.
	StartupWrites map[string]int `json:"startupWrites"`
	// StartupReconciles are the reconciles of that start, by controller.
	StartupReconciles map[string]float64 `json:"startupReconciles"`
	Writes            map[string]int     `json:"writes"`
	Reconciles        map[string]float64 `json:"reconciles"`
	CPUSeconds        float64            `json:"cpuSeconds"`
}

// steady converges M apps (a manager's run, not measured), starts a manager on them and
// the memory scenario's pods, lets its start settle, then watches it for the window, with
// resyncs due inside it.
func (b *Bench) steady(ctx context.Context) error {
	_, ns, err := b.convergeRun(ctx, RoleManager, b.defaultSetting(), b.cfg.Apps)
	if err != nil {
		return err
	}
	b.steadyNamespace = ns
	f := b.defaultSetting().child(RoleManager, b.lateNamespaces())
	f.syncPeriod = b.cfg.SyncPeriod
	p, err := b.start(f)
	if err != nil {
		return err
	}
	defer p.stop()
	if err := p.await(5*time.Minute, "elected", "ready"); err != nil {
		return err
	}
	// Settled when three polls, a second apart, see no new reconcile; a resync shorter than
	// that keeps reconciling, so give up waiting after half a minute.
	var before *Stats
	settle := time.Now().Add(30 * time.Second)
	for still := 0; still < 3 && time.Now().Before(settle); {
		time.Sleep(time.Second)
		st, err := p.Stats()
		if err != nil {
			return err
		}
		if before != nil && total(st.Reconciles) == total(before.Reconciles) {
			still++
		} else {
			still = 0
		}
		before = st
	}
	b.logf("steady: start settled, %v writes; watching for %s with a %s resync", before.Writes, b.cfg.Steady, b.cfg.SyncPeriod)
	time.Sleep(b.cfg.Steady)
	after, err := p.Stats()
	if err != nil {
		return err
	}
	st := &SteadyState{WindowSeconds: seconds(b.cfg.Steady), SyncPeriodSeconds: seconds(b.cfg.SyncPeriod),
		Pods: b.memoryPods, Apps: b.cfg.Apps, StartupWrites: before.Writes, StartupReconciles: before.Reconciles,
		Writes: map[string]int{}, Reconciles: map[string]float64{}, CPUSeconds: after.CPUSeconds - before.CPUSeconds}
	for k, v := range after.Writes {
		if d := v - before.Writes[k]; d != 0 {
			st.Writes[k] = d
		}
	}
	for k, v := range after.Reconciles {
		st.Reconciles[k] = v - before.Reconciles[k]
	}
	b.logf("steady: %v writes, reconciles %v, %.2f CPU seconds", st.Writes, st.Reconciles, st.CPUSeconds)
	b.results.Steady = st
	return nil
}

func total[K comparable, V int | float64](m map[K]V) V {
	var sum V
	for _, v := range m {
		sum += v
	}
	return sum
}

// serverCPUSeconds is the CPU time kube-apiserver and etcd, the bench's children, have used.
func (b *Bench) serverCPUSeconds() (float64, error) {
	procs, err := procfs.AllProcs()
	if err != nil {
		return 0, err
	}
	var total float64
	found := 0
	for _, p := range procs {
		stat, err := p.Stat()
		if err != nil || stat.PPID != os.Getpid() || (stat.Comm != "kube-apiserver" && stat.Comm != "etcd") {
			continue
		}
		total += stat.CPUTime()
		found++
	}
	if found != 2 {
		return 0, fmt.Errorf("found %d of kube-apiserver and etcd among the bench's processes", found)
	}
	return total, nil
}

// machineCPUSeconds is the CPU time the machine's processors spent busy since boot.
func machineCPUSeconds() (float64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	stat, err := fs.Stat()
	if err != nil {
		return 0, err
	}
	t := stat.CPUTotal
	return t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ + t.Steal, nil
}

// settle waits until the cluster holds what it held before the first run (namespaces aside:
// with no namespace controller, a deleted one would never go) and then compacts etcd, so that
// every run starts on the same state. A run once started on the objects of every manager run
// before it: each later run was slower (least writes 10.2, 21.7, 21.5 s at M=1,000).
func (b *Bench) settle(ctx context.Context, baseline map[string]int) error {
	// The Events no run's namespace holds: the manager's Warning on its ServiceAccount, at
	// each start, that the API server does not restrain it (the bench's cluster has no
	// restraint policies).
	events, err := b.clientset.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, e := range events.Items {
		if err := b.clientset.CoreV1().Events(e.Namespace).Delete(ctx, e.Name, metav1.DeleteOptions{}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		counts, err := b.objectCounts(ctx)
		if err != nil {
			return err
		}
		var left []string
		for resource, n := range counts {
			if resource != resourceNamespaces && n > baseline[resource] {
				left = append(left, fmt.Sprintf("%s %d (was %d)", resource, n, baseline[resource]))
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("what earlier runs made is still there: %s", strings.Join(left, ", "))
		}
		time.Sleep(time.Second)
	}
	return b.compactEtcd(ctx)
}

// emptyAppsNamespace deletes what a convergence run made, so that each run starts on the same
// cluster: no garbage collector runs here, and each Service left holds a cluster IP, which
// makes the API server's next allocations slower (it counts the allocated addresses).
func (b *Bench) emptyAppsNamespace(ctx context.Context, namespace string) error {
	services, err := b.clientset.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	// Services have no delete-collection.
	if err := parallel(b.cfg.Creators, len(services.Items), func(i int) error {
		return b.clientset.CoreV1().Services(namespace).Delete(ctx, services.Items[i].Name, metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	if err := b.clientset.AppsV1().Deployments(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	policies := b.clientset.NetworkingV1().NetworkPolicies(namespace)
	if err := policies.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	budgets := b.clientset.PolicyV1().PodDisruptionBudgets(namespace)
	if err := budgets.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	if err := b.clientset.CoreV1().ConfigMaps(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	if err := b.clientset.CoreV1().Secrets(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	// The manager's Created Events would stay for an hour.
	if err := b.clientset.CoreV1().Events(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	return b.paas.PaasV1().DemoApplications(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
}
