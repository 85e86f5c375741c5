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

// Command manager runs demo-operator: the pod labeler and the DemoApplication controller.
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/operator-framework/operator-lib/proxy"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	paasv1beta1 "github.com/cmft/demo-operator/api/v1beta1"
	"github.com/cmft/demo-operator/controllers"
)

// LeaderElectionID names the Lease that elects the one active manager.
const LeaderElectionID = "demo-operator.paas.cmft.com"

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(paasv1.AddToScheme(scheme))
	utilruntime.Must(paasv1beta1.AddToScheme(scheme))
}

// options are the manager's command-line settings.
type options struct {
	metricsAddr        string
	probeAddr          string
	leaderElect        bool
	enableHTTP2        bool
	watchNamespaces    string
	podLabelAnnotation string
	podNameLabel       string
	enablePodLabeler   bool
	enableDemoApp      bool
	maxConcurrent      int
	qps                float64
	burst              int
}

func (o *options) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443",
		"Address of the HTTPS metrics endpoint, served to authenticated and authorized clients only. 0 turns it off.")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address of the /healthz and /readyz endpoints.")
	fs.BoolVar(&o.leaderElect, "leader-elect", false,
		"Elect one active manager through a Lease, so that several replicas can run; the Lease is released on a graceful stop.")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Serve metrics over HTTP/2 as well; off by default against HTTP/2 stream-reset attacks.")
	fs.StringVar(&o.watchNamespaces, "watch-namespaces", "",
		"Comma-separated namespaces to watch; empty means all, or those in the WATCH_NAMESPACE environment variable that OLM sets.")
	fs.StringVar(&o.podLabelAnnotation, "pod-label-annotation", controllers.DefaultPodLabelAnnotation,
		`Annotation whose value "true" opts a pod in to the pod-name label.`)
	fs.StringVar(&o.podNameLabel, "pod-name-label", controllers.DefaultPodNameLabel, "Label that carries the pod's own name.")
	fs.BoolVar(&o.enablePodLabeler, "enable-pod-labeler", true, "Run the pod labeler.")
	fs.BoolVar(&o.enableDemoApp, "enable-demoapplication-controller", true, "Run the DemoApplication controller.")
	fs.IntVar(&o.maxConcurrent, "max-concurrent-reconciles", 4, "Reconciles each controller runs at once.")
	fs.Float64Var(&o.qps, "kube-api-qps", 50, "Queries per second the manager may send to the API server.")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "Queries the manager may send at once above kube-api-qps.")
}

// namespaces returns the namespaces to watch: the flag's, else WATCH_NAMESPACE's, none for all.
func (o *options) namespaces() []string {
	value := o.watchNamespaces
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

// validate reports every bad setting at once, before anything starts.
func (o *options) validate() error {
	var errs []error
	for _, ns := range o.namespaces() {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--watch-namespaces: %q is not a namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}
	for flagName, key := range map[string]string{"--pod-label-annotation": o.podLabelAnnotation, "--pod-name-label": o.podNameLabel} {
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %q is not a valid key: %s", flagName, key, strings.Join(msgs, "; ")))
		}
	}
	if o.maxConcurrent < 1 {
		errs = append(errs, fmt.Errorf("--max-concurrent-reconciles must be at least 1, not %d", o.maxConcurrent))
	}
	if o.qps <= 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps must be positive, not %v", o.qps))
	}
	if o.burst < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-burst must be at least 1, not %d", o.burst))
	}
	if !o.enablePodLabeler && !o.enableDemoApp {
		errs = append(errs, errors.New("both controllers are turned off: nothing to run"))
	}
	return errors.Join(errs...)
}

// cacheOptions keeps the caches small: pods as metadata without managedFields, and only
// the Deployments and Services the operator manages.
func (o *options) cacheOptions() cache.Options {
	managed := labels.SelectorFromSet(labels.Set{controllers.LabelManagedBy: controllers.ManagedByValue})
	opts := cache.Options{
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}:        {Transform: cache.TransformStripManagedFields()},
			&appsv1.Deployment{}: {Label: managed},
			&corev1.Service{}:    {Label: managed},
		},
	}
	if namespaces := o.namespaces(); len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

func main() {
	var opts options
	opts.bind(flag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	setupLog := ctrl.Log.WithName("setup")

	if err := opts.validate(); err != nil {
		fmt.Fprintf(os.Stderr, "invalid settings:\n%v\n", err)
		os.Exit(2)
	}
	if err := run(opts); err != nil {
		setupLog.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func run(opts options) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(opts.qps), opts.burst

	var tlsOpts []func(*tls.Config)
	if !opts.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Cache:  opts.cacheOptions(),
		Metrics: metricsserver.Options{
			BindAddress:    opts.metricsAddr,
			SecureServing:  true,
			FilterProvider: filters.WithAuthenticationAndAuthorization,
			TLSOpts:        tlsOpts,
		},
		HealthProbeBindAddress:        opts.probeAddr,
		LeaderElection:                opts.leaderElect,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}

	ctrlOpts := controller.Options{MaxConcurrentReconciles: opts.maxConcurrent}
	if opts.enablePodLabeler {
		err := (&controllers.PodReconciler{
			Client:     mgr.GetClient(),
			Recorder:   mgr.GetEventRecorder("pod-labeler"),
			Annotation: opts.podLabelAnnotation,
			Label:      opts.podNameLabel,
		}).SetupWithManager(mgr, ctrlOpts)
		if err != nil {
			return fmt.Errorf("setting up the pod labeler: %w", err)
		}
	}
	if opts.enableDemoApp {
		err := (&controllers.DemoApplicationReconciler{
			Client:    mgr.GetClient(),
			APIReader: mgr.GetAPIReader(),
			Recorder:  mgr.GetEventRecorder("demoapplication-controller"),
			ExtraEnv:  proxy.ReadProxyVarsFromEnv(),
		}).SetupWithManager(mgr, ctrlOpts)
		if err != nil {
			return fmt.Errorf("setting up the DemoApplication controller: %w", err)
		}
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	// Ready once the caches have synced: before that a reconcile would act on a partial view.
	err = mgr.AddReadyzCheck("caches", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("caches not synced")
		}
		return nil
	})
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
