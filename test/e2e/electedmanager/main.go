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

// Command electedmanager is main.go plus --leader-election-namespace, for the leader-election
// tests: outside a pod controller-runtime cannot guess the Lease's namespace, and the manager
// has no flag for it yet. Remove it once internal/manager gains that flag.
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cmft/demo-operator/internal/manager"
)

func main() {
	var opts manager.Options
	opts.BindFlags(flag.CommandLine)
	namespace := flag.String("leader-election-namespace", "", "Namespace of the leader-election Lease.")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	if err := opts.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	mgr, err := manager.New(ctrl.GetConfigOrDie(), opts, func(o *ctrl.Options) { o.LeaderElectionNamespace = *namespace })
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		ctrl.Log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
