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

// Command olm runs Operator Lifecycle Manager on the local cluster of make cluster-up:
// `make olm-up` and `make olm-down` call it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cmft/demo-operator/internal/test/localcluster"
	"github.com/cmft/demo-operator/internal/test/localolm"
)

func main() {
	c := &localcluster.Cluster{Progress: os.Stdout}
	c.BindFlags(flag.CommandLine)
	assets := flag.String("olm", "", "Directory with OLM's binaries and CRDs (hack/olm.sh).")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: olm [flags] up|down")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		fail(err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	switch flag.Arg(0) {
	case "up":
		err = up(ctx, c, *assets)
	case "down":
		err = localolm.Stop(c)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fail(err)
	}
}

// up starts the cluster if needed, installs OLM's CRDs and namespaces, and runs its operators.
func up(ctx context.Context, c *localcluster.Cluster, assets string) error {
	if assets == "" {
		return fmt.Errorf("-olm is required (hack/olm.sh prints the directory)")
	}
	start := time.Now()
	if err := c.Up(ctx); err != nil {
		return err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	if err := localolm.Install(ctx, cfg, assets); err != nil {
		return fmt.Errorf("installing OLM's CRDs: %w", err)
	}
	if err := localolm.Start(c, assets); err != nil {
		return err
	}
	if err := localolm.WaitReady(ctx, cfg); err != nil {
		return fmt.Errorf("OLM not ready (see %s): %w", c.LogFile(localolm.OLMOperator), err)
	}
	fmt.Printf("OLM ready in %s; logs in %s and %s\n", time.Since(start).Round(100*time.Millisecond),
		c.LogFile(localolm.OLMOperator), c.LogFile(localolm.CatalogOperator))
	fmt.Printf("export KUBECONFIG=%s\n", c.Kubeconfig())
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}
