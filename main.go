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
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/KimMachineGun/automemlimit/memlimit"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cmft/demo-operator/internal/manager"
)

// setupLog reports on the manager's start and stop; ctrl.Log delegates to the logger
// main sets from the flags.
var setupLog = ctrl.Log.WithName("setup")

func main() {
	var opts manager.Options
	opts.BindFlags(flag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	if err := opts.Validate(); err != nil {
		fmt.Fprintf(os.Stderr, "invalid settings:\n%v\n", err)
		os.Exit(2)
	}
	if err := run(opts); err != nil {
		setupLog.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func run(opts manager.Options) error {
	// Go does not see the container's memory limit: without GOMEMLIMIT under it, a cache
	// growing toward the limit is OOM-killed before the GC works to stay below it.
	// GOMEMLIMIT, when set, wins; AUTOMEMLIMIT=off turns this off, a number sets the ratio.
	if limit, err := memlimit.Set(memlimit.WithProvider(manager.GoMemoryLimit(memlimit.FromCgroup)),
		memlimit.WithRatio(manager.MemoryLimitRatio)); err != nil {
		setupLog.Info("GOMEMLIMIT left unset", "reason", err.Error())
	} else if limit != math.MaxInt64 {
		setupLog.Info("GOMEMLIMIT set", "bytes", limit)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	mgr, err := manager.New(cfg, opts)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
