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
	"time"

	"github.com/cmft/demo-operator/internal/cli"
	"github.com/cmft/demo-operator/internal/test/localcluster"
	"github.com/cmft/demo-operator/internal/test/localolm"
)

func main() {
	assets := flag.String("olm", "", "Directory with OLM's binaries and CRDs (hack/olm.sh).")
	cli.Run("olm", &localcluster.Cluster{Progress: os.Stdout},
		cli.Verb{Name: "up", Run: func(ctx context.Context, c *localcluster.Cluster) error { return up(ctx, c, *assets) }},
		cli.Verb{Name: "down", Run: func(_ context.Context, c *localcluster.Cluster) error { return localolm.Stop(c) }})
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
