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

// Command olmrun does what `operator-sdk run bundle`, `run bundle-upgrade` and `cleanup` do, on
// the cluster of the user's kubeconfig, for users without the CLI (internal/devtools/olm):
// `make run-bundle`, `make run-bundle-upgrade` and `make cleanup-bundle` call it.
//
//	olmrun run [flags] <bundle-image>
//	olmrun upgrade [flags] <bundle-image>
//	olmrun cleanup [flags] <package>
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/cmft/demo-operator/internal/devtools/olm"
)

// The commands olmrun runs, its first argument.
const (
	commandRun     = "run"
	commandUpgrade = "upgrade"
	commandCleanup = "cleanup"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	command := os.Args[1]
	fs := flag.NewFlagSet("olmrun "+command, flag.ExitOnError)
	config.RegisterFlags(fs)
	opts := olm.Options{Logf: func(format string, args ...any) {
		fmt.Printf(time.Now().Format("15:04:05 ")+format+"\n", args...)
	}}
	fs.StringVar(&opts.Namespace, "namespace", "", "Namespace of the operator and its catalog (default: the kubeconfig context's, or default).")
	fs.DurationVar(&opts.Timeout, "timeout", olm.DefaultTimeout, "Time the command may take.")
	var installMode string
	switch command {
	case commandRun, commandUpgrade:
		if command == commandRun {
			fs.StringVar(&installMode, "install-mode", "", "AllNamespaces, OwnNamespace, SingleNamespace=<ns> or MultiNamespace=<ns>,<ns> "+
				"(default: AllNamespaces if the CSV supports it, else OwnNamespace).")
		}
		index := olm.DefaultIndexImage
		if command == commandUpgrade {
			index = "" // the one run used
		}
		fs.StringVar(&opts.IndexImage, "index-image", index, "Image of the registry pod serving the catalog: opm's (upgrade: default the one run used).")
		fs.BoolVar(&opts.Registry.PlainHTTP, "use-http", false, "Pull the bundle image over plain HTTP.")
		fs.BoolVar(&opts.Registry.SkipTLSVerify, "skip-tls-verify", false, "Accept any certificate of the bundle image's registry.")
	case commandCleanup:
	default:
		usage()
	}
	_ = fs.Parse(os.Args[2:])
	if fs.NArg() != 1 {
		fmt.Fprintf(os.Stderr, "olmrun %s takes one argument, got %q\n", command, fs.Args())
		fs.Usage()
		os.Exit(2)
	}
	if err := run(command, fs, opts, installMode); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(command string, fs *flag.FlagSet, opts olm.Options, installMode string) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	// operator-registry's bundle parser reports at info level the optional files a bundle lacks.
	logrus.SetLevel(logrus.WarnLevel)
	cfg, err := config.GetConfig()
	if err != nil {
		return err
	}
	if opts.Namespace == "" {
		opts.Namespace = kubeconfigNamespace(fs.Lookup(config.KubeconfigFlagName).Value.String())
	}
	r, err := olm.New(cfg, opts)
	if err != nil {
		return err
	}
	start := time.Now()
	switch command {
	case commandRun:
		mode, err := olm.ParseInstallMode(installMode)
		if err != nil {
			return err
		}
		csv, err := r.RunBundle(ctx, fs.Arg(0), mode)
		if err != nil {
			return err
		}
		fmt.Printf("%s installed in %s in %s\n", csv.Name, opts.Namespace, time.Since(start).Round(100*time.Millisecond))
	case commandUpgrade:
		csv, err := r.UpgradeBundle(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Printf("upgraded to %s in %s in %s\n", csv.Name, opts.Namespace, time.Since(start).Round(100*time.Millisecond))
	case commandCleanup:
		if err := r.Cleanup(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Printf("%s removed from %s; its CRDs and custom resources are kept\n", fs.Arg(0), opts.Namespace)
	}
	return nil
}

// kubeconfigNamespace is the namespace of the kubeconfig's current context, as kubectl and
// operator-sdk default to.
func kubeconfigNamespace(kubeconfig string) string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace()
	if err != nil || ns == "" {
		return "default"
	}
	return ns
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: olmrun run|upgrade [flags] <bundle-image>\n       olmrun cleanup [flags] <package>\n(olmrun <command> -h lists the flags)")
	os.Exit(2)
}
