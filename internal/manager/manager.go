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

// Package manager builds demo-operator's manager from its settings: the one place that
// wires the caches, the metrics and probe servers, leader election and both controllers,
// shared by the binary and by the tests that run it in-process.
package manager

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/operator-framework/operator-lib/proxy"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	crleaderelection "sigs.k8s.io/controller-runtime/pkg/leaderelection"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	paasv1beta1 "github.com/cmft/demo-operator/api/v1beta1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/podlabel"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/leasefence"
)

// DefaultLeaderElectionID names the Lease that elects the one active manager, unless
// --leader-election-id names another: the bundle keeps this one (OLM installs an operator
// once per namespace), the chart derives one from its release name.
const DefaultLeaderElectionID = "demo-operator.paas.cmft.com"

// Scheme holds every type the manager reads or writes.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(paasv1.AddToScheme(Scheme))
	utilruntime.Must(paasv1beta1.AddToScheme(Scheme))
	utilruntime.Must(gatewayv1.Install(Scheme))
}

// Options are the manager's settings, one per command-line flag.
type Options struct {
	MetricsAddr          string
	MetricsCertPath      string
	ProbeAddr            string
	LeaderElect          bool
	LeaderElectionNS     string
	LeaderElectionID     string
	LeaseDuration        time.Duration
	RenewDeadline        time.Duration
	RetryPeriod          time.Duration
	EnableHTTP2          bool
	WatchNamespaces      string
	PodLabelAnnotation   string
	PodNameLabel         string
	EnablePodLabeler     bool
	EnableDemoApp        bool
	ConfigRolloutSecrets bool
	MaxConcurrent        int
	ConflictRetry        time.Duration
	MaxRetryBackoff      time.Duration
	QPS                  float64
	Burst                int
}

// DefaultOptions returns the settings the flags default to.
func DefaultOptions() Options {
	var o Options
	o.BindFlags(flag.NewFlagSet("defaults", flag.ContinueOnError))
	return o
}

// BindFlags registers the settings as flags of fs, with their defaults.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8443",
		"Address of the HTTPS metrics endpoint, served to authenticated and authorized clients only. 0 turns it off.")
	fs.StringVar(&o.MetricsCertPath, "metrics-cert-path", "",
		"Directory holding tls.crt and tls.key for the metrics endpoint (a cert-manager or user Secret), reloaded when they change; "+
			"empty serves a self-signed certificate, which scrapers cannot verify.")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "Address of the /healthz and /readyz endpoints.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false,
		"Elect one active manager through a Lease, so that several replicas can run; the Lease is released on a graceful stop.")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", DefaultLeaderElectionID,
		"Name of the leader-election Lease; two installs in one namespace each need their own, or only one of them runs.")
	// kube-controller-manager's names and defaults (controller-runtime's too).
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", 15*time.Second,
		"How long a follower waits after the leader's last renewal before it takes the Lease.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second,
		"How long the leader keeps trying to renew the Lease before it stops (and exits); "+
			"longer than the API server's or etcd's restarts, the leader rides through them.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", 2*time.Second,
		"How often the leader renews the Lease, and a follower tries to take it.")
	fs.StringVar(&o.LeaderElectionNS, "leader-election-namespace", "",
		"Namespace of the leader-election Lease; defaults to the pod's own namespace, which a manager running outside a pod must be told.")
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", false,
		"Serve metrics over HTTP/2 as well; off by default against HTTP/2 stream-reset attacks.")
	fs.StringVar(&o.WatchNamespaces, "watch-namespaces", "",
		"Comma-separated namespaces to watch; empty means all, or those in the WATCH_NAMESPACE environment variable that OLM sets.")
	fs.StringVar(&o.PodLabelAnnotation, "pod-label-annotation", wellknown.DefaultPodLabelAnnotation,
		`Annotation whose value "true" opts a pod in to the pod-name label.`)
	fs.StringVar(&o.PodNameLabel, "pod-name-label", wellknown.DefaultPodNameLabel, "Label that carries the pod's own name.")
	fs.BoolVar(&o.EnablePodLabeler, "enable-pod-labeler", true, "Run the pod labeler.")
	fs.BoolVar(&o.EnableDemoApp, "enable-demoapplication-controller", true, "Run the DemoApplication controller.")
	fs.BoolVar(&o.ConfigRolloutSecrets, "config-rollout-secrets", false,
		"Roll a DemoApplication's pods when a Secret they read changes (rolloutOnConfigChange), as for ConfigMaps; "+
			"needs the read of Secrets, which the default install does not grant (docs/operate/security.md).")
	fs.IntVar(&o.MaxConcurrent, "max-concurrent-reconciles", 16,
		"Reconciles each controller runs at once.")
	fs.DurationVar(&o.ConflictRetry, "conflict-retry-interval", demoapplication.DefaultConflictRetryInterval,
		"How often a DemoApplication blocked by an object it does not own checks whether the name was freed.")
	fs.DurationVar(&o.MaxRetryBackoff, "max-retry-backoff", 30*time.Second,
		"Longest wait before a failed reconcile is retried (the wait doubles from 5ms at each failure); "+
			"after an API server outage every object is retried within it.")
	fs.Float64Var(&o.QPS, "kube-api-qps", -1,
		"Queries per second the manager may send to the API server, for each resource type (controller-runtime gives each its own client); "+
			"negative, the default as in controller-runtime, sets no client-side limit and leaves the API server's Priority and Fairness to protect it.")
	fs.IntVar(&o.Burst, "kube-api-burst", 100, "Queries the manager may send at once above a positive kube-api-qps.")
}

// namespaces returns the namespaces to watch: the flag's, else WATCH_NAMESPACE's, none for all.
func (o *Options) namespaces() []string {
	value := o.WatchNamespaces
	if value == "" {
		value = os.Getenv("WATCH_NAMESPACE")
	}
	var out []string
	for _, ns := range strings.Split(value, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}

// podLabelKeys returns the pod labeler's keys, which both controllers and the pod cache use.
func (o *Options) podLabelKeys() wellknown.PodLabelKeys {
	return wellknown.PodLabelKeys{Annotation: o.PodLabelAnnotation, Label: o.PodNameLabel}
}

// Validate reports every bad setting at once, before anything starts.
func (o *Options) Validate() error {
	var errs []error
	for _, ns := range o.namespaces() {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--watch-namespaces: %q is not a namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}
	if msgs := validation.IsDNS1123Subdomain(o.LeaderElectionID); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--leader-election-id: %q is not a Lease name: %s", o.LeaderElectionID, strings.Join(msgs, "; ")))
	}
	if ns := o.LeaderElectionNS; ns != "" {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--leader-election-namespace: %q is not a namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}
	for flagName, key := range map[string]string{"--pod-label-annotation": o.PodLabelAnnotation, "--pod-name-label": o.PodNameLabel} {
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %q is not a valid key: %s", flagName, key, strings.Join(msgs, "; ")))
		}
	}
	if o.MaxConcurrent < 1 {
		errs = append(errs, fmt.Errorf("--max-concurrent-reconciles must be at least 1, not %d", o.MaxConcurrent))
	}
	if o.ConflictRetry <= 0 {
		errs = append(errs, fmt.Errorf("--conflict-retry-interval must be positive, not %v", o.ConflictRetry))
	}
	// client-go's leader elector refuses these too, but only once the manager starts.
	if o.LeaseDuration <= o.RenewDeadline {
		errs = append(errs, fmt.Errorf("--leader-elect-lease-duration (%v) must be longer than --leader-elect-renew-deadline (%v)", o.LeaseDuration, o.RenewDeadline))
	}
	if o.RetryPeriod <= 0 || float64(o.RenewDeadline) <= leaderelection.JitterFactor*float64(o.RetryPeriod) {
		errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline (%v) must be longer than %v times a positive --leader-elect-retry-period (%v)",
			o.RenewDeadline, leaderelection.JitterFactor, o.RetryPeriod))
	}
	if o.MaxRetryBackoff <= 0 {
		errs = append(errs, fmt.Errorf("--max-retry-backoff must be positive, not %v", o.MaxRetryBackoff))
	}
	if o.QPS == 0 {
		// client-go would read 0 as its own default of 5 queries per second.
		errs = append(errs, errors.New("--kube-api-qps must be positive, or negative for no client-side limit, not 0"))
	}
	if o.Burst < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-burst must be at least 1, not %d", o.Burst))
	}
	if !o.EnablePodLabeler && !o.EnableDemoApp {
		errs = append(errs, errors.New("both controllers are turned off: nothing to run"))
	}
	return errors.Join(errs...)
}

// managedSelector selects the objects the operator manages.
func managedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{wellknown.LabelManagedBy: wellknown.ManagedByValue})
}

// cacheOptions keeps the caches small: pods and ReplicaSets as metadata trimmed to what the
// controllers read, and only the ReplicaSets (and, newCache, the objects of the kinds the
// DemoApplication controller owns) that the operator manages.
// Both controllers share the pod informer; without the labeler, which must see every pod, it
// holds the DemoApplications' pods alone.
func (o *Options) cacheOptions() cache.Options {
	managed := managedSelector()
	pods := cache.ByObject{Transform: podlabel.PodCacheTransform(o.podLabelKeys())}
	if !o.EnablePodLabeler {
		selector, err := labels.Parse(wellknown.LabelApplication)
		utilruntime.Must(err)
		pods.Label = selector
	}
	opts := cache.Options{
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}:        pods,
			&appsv1.ReplicaSet{}: {Label: managed, Transform: demoapplication.ReplicaSetCacheTransform},
			// Watched as metadata, trimmed to their identity: no ConfigMap's or Secret's data is
			// cached.
			&corev1.ConfigMap{}: {Transform: demoapplication.ConfigCacheTransform},
		},
	}
	if o.ConfigRolloutSecrets {
		opts.ByObject[&corev1.Secret{}] = cache.ByObject{Transform: demoapplication.ConfigCacheTransform}
	}
	if namespaces := o.namespaces(); len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

// newCache builds the manager's cache, with the objects the operator manages of the kinds the
// DemoApplication controller owns: the Gateway API's only on a cluster that serves them, as a
// cache setting for a kind the cluster lacks fails its start.
func newCache(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
	served, err := demoapplication.GatewayAPIServed(opts.Mapper)
	if err != nil {
		return nil, err
	}
	maps.Copy(opts.ByObject, demoapplication.CacheByObject(served))
	return cache.New(cfg, opts)
}

// fenceWrites builds the leader-election lock, which the manager would otherwise build, and
// wraps it and cfg in a lease fence: past the renew deadline after the last renewal, none of
// the manager's clients writes. The lock's own clients are made from cfg before the fence
// wraps it, so that a renewal reopens it.
func fenceWrites(cfg *rest.Config, mgrOpts *ctrl.Options) (*lockEvents, error) {
	fence := leasefence.New(*mgrOpts.RenewDeadline)
	events := &lockEvents{}
	lock, err := crleaderelection.NewResourceLock(cfg, events, crleaderelection.Options{
		LeaderElection:             true,
		LeaderElectionResourceLock: mgrOpts.LeaderElectionResourceLock,
		LeaderElectionID:           mgrOpts.LeaderElectionID,
		LeaderElectionNamespace:    mgrOpts.LeaderElectionNamespace,
		RenewDeadline:              *mgrOpts.RenewDeadline,
		LeaderLabels:               mgrOpts.LeaderElectionLabels,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the leader-election lock: %w", err)
	}
	mgrOpts.LeaderElectionResourceLockInterface = fence.Lock(lock)
	cfg.Wrap(fence.Wrap)
	return events, nil
}

// lockEvents lets the leader-election lock, built before the manager, record its Events
// ("became leader") through the manager's recorder, set once the manager exists.
type lockEvents struct{ record.EventRecorder }

func (e *lockEvents) GetEventRecorderFor(string) record.EventRecorder { return e }

// GetEventRecorder is not asked for by the lock, which records through the old events API.
func (e *lockEvents) GetEventRecorder(string) recorder.EventRecorder { return nil }

// New builds the manager for cfg; Start runs it. Each customize function may adjust the
// controller-runtime options before the manager is built (tests running several managers
// in one process use it to skip the unique controller-name check).
func New(cfg *rest.Config, opts Options, customize ...func(*ctrl.Options)) (ctrl.Manager, error) {
	if err := opts.checkMetricsCert(); err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = float32(opts.QPS), opts.Burst

	var tlsOpts []func(*tls.Config)
	if !opts.EnableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	mgrOpts := ctrl.Options{
		Scheme:   Scheme,
		Cache:    opts.cacheOptions(),
		NewCache: newCache,
		// A ConfigMap or Secret read through the client goes to the API server: a typed read
		// from the cache would start an informer of every one, data and all.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}}}},
		Metrics: metricsserver.Options{
			BindAddress:    opts.MetricsAddr,
			SecureServing:  true,
			FilterProvider: filters.WithAuthenticationAndAuthorization,
			TLSOpts:        tlsOpts,
			CertDir:        opts.MetricsCertPath,
		},
		HealthProbeBindAddress:        opts.ProbeAddr,
		LeaderElection:                opts.LeaderElect,
		LeaderElectionID:              opts.LeaderElectionID,
		LeaderElectionNamespace:       opts.LeaderElectionNS,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &opts.LeaseDuration,
		RenewDeadline:                 &opts.RenewDeadline,
		RetryPeriod:                   &opts.RetryPeriod,
	}
	for _, f := range customize {
		f(&mgrOpts)
	}
	var leaderEvents *lockEvents
	if mgrOpts.LeaderElection {
		var err error
		if leaderEvents, err = fenceWrites(cfg, &mgrOpts); err != nil {
			return nil, err
		}
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	if leaderEvents != nil {
		leaderEvents.EventRecorder = mgr.GetEventRecorderFor(mgrOpts.LeaderElectionResourceLockInterface.Identity()) //nolint:staticcheck // the lock records through the old events API
	}

	if opts.EnablePodLabeler {
		err := (&podlabel.Reconciler{
			Client:       mgr.GetClient(),
			Recorder:     mgr.GetEventRecorder("pod-labeler"),
			PodLabelKeys: opts.podLabelKeys(),
		}).SetupWithManager(mgr, opts.controllerOptions())
		if err != nil {
			return nil, fmt.Errorf("setting up the pod labeler: %w", err)
		}
	}
	if opts.EnableDemoApp {
		err := (&demoapplication.Reconciler{
			Client:    mgr.GetClient(),
			APIReader: mgr.GetAPIReader(),
			Recorder:  mgr.GetEventRecorder("demoapplication-controller"),
			ExtraEnv:  proxy.ReadProxyVarsFromEnv(),

			ConflictRetryInterval: opts.ConflictRetry,
			PodLabels:             opts.podLabelKeys(),
			ConfigRolloutSecrets:  opts.ConfigRolloutSecrets,
		}).SetupWithManager(mgr, opts.controllerOptions())
		if err != nil {
			return nil, fmt.Errorf("setting up the DemoApplication controller: %w", err)
		}
	}

	check := &restraintCheck{
		client:   mgr.GetClient(),
		recorder: mgr.GetEventRecorder("demo-operator"),
		log:      mgr.GetLogger().WithName("restraint"),
		objects:  opts.EnableDemoApp,
		pods:     opts.EnablePodLabeler,
	}
	if namespaces := opts.namespaces(); len(namespaces) > 0 {
		check.namespace = namespaces[0]
	}
	if err := mgr.Add(check); err != nil {
		return nil, err
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, err
	}
	// Ready once the caches have synced: before that a reconcile would act on a partial view.
	err = mgr.AddReadyzCheck("caches", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("caches not synced")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return mgr, nil
}

// controllerOptions returns one controller's options, with a rate limiter of its own (it
// counts each object's failures, which another controller must not share).
//
// controller-runtime's default limiter doubles an object's wait up to 1000s, so an object
// that failed all through an API server outage next waits about as long again, with no
// event to bring it forward (TestRecoversAfterAPIServerOutage; test/reliability/README.md).
// --max-retry-backoff bounds that wait: at its default an object that keeps failing is
// retried as often as one blocked by a name conflict (--conflict-retry-interval). No overall token bucket
// (controller-runtime's priority queue has none either): the client's QPS limit and the API
// server's Priority and Fairness protect the API server.
func (o *Options) controllerOptions() controller.Options {
	return controller.Options{
		MaxConcurrentReconciles: o.MaxConcurrent,
		RateLimiter:             workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, o.MaxRetryBackoff),
	}
}

// checkMetricsCert refuses a --metrics-cert-path without a readable certificate and key:
// controller-runtime would otherwise serve a self-signed certificate instead, and scrapers
// that verify it would fail with no word of why.
func (o *Options) checkMetricsCert() error {
	if o.MetricsCertPath == "" || o.MetricsAddr == "0" {
		return nil
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		if _, err := os.Stat(filepath.Join(o.MetricsCertPath, name)); err != nil {
			return fmt.Errorf("--metrics-cert-path: %w", err)
		}
	}
	return nil
}
