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

// Command olm runs Operator Lifecycle Manager on the local cluster of make cluster-up, or as pods
// on the real node of make cluster-up-node: `make olm-up` and `make olm-down` call it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"

	"github.com/cmft/demo-operator/internal/cli"
	"github.com/cmft/demo-operator/internal/test/imagebuild"
	"github.com/cmft/demo-operator/internal/test/localcluster"
	"github.com/cmft/demo-operator/internal/test/localolm"
	"github.com/cmft/demo-operator/internal/test/olmdeploy"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func main() {
	assets := flag.String("olm", "", "Directory with OLM's binaries and CRDs (hack/olm.sh).")
	cli.Run("olm", &localcluster.Cluster{Progress: os.Stdout},
		cli.Verb{Name: "up", Run: func(ctx context.Context, c *localcluster.Cluster) error { return up(ctx, c, *assets) }},
		cli.Verb{Name: "down", Run: func(_ context.Context, c *localcluster.Cluster) error { return localolm.Stop(c) }})
}

// up starts the cluster if needed, installs OLM's CRDs and namespaces, and runs its operators:
// as processes, or as pods when the cluster has a real node.
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
	if c.RealNode || c.HasRealNode() {
		return upAsPods(ctx, c, cfg, assets, start)
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

// upAsPods deploys OLM on the real node as the OLM real-node tests do: its images built here and
// pushed to the cluster's registry, its upstream chart's manifests applied. make cluster-down
// removes it with the cluster.
func upAsPods(ctx context.Context, c *localcluster.Cluster, cfg *rest.Config, assets string, start time.Time) error {
	images, err := olmdeploy.BuildImages(ctx, &imagebuild.Builder{}, testenv.Root(), assets, c.RegistryHost())
	if err != nil {
		return fmt.Errorf("OLM's images: %w", err)
	}
	objs, err := olmdeploy.Render(filepath.Join(assets, "deploy"), images)
	if err != nil {
		return err
	}
	if err := olmdeploy.Deploy(ctx, cfg, objs); err != nil {
		return err
	}
	if err := olmdeploy.WaitReady(ctx, cfg); err != nil {
		return fmt.Errorf("OLM is not ready (kubectl -n %s get pods): %w", olmdeploy.Namespace, err)
	}
	fmt.Printf("OLM running as pods on the real node in %s (namespace %s); opm's image is %s\n",
		time.Since(start).Round(100*time.Millisecond), olmdeploy.Namespace, images.OPM)
	fmt.Printf("export KUBECONFIG=%s\n", c.Kubeconfig())
	return nil
}
