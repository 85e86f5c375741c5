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

// Command olm runs Operator Lifecycle Manager on the local cluster: `make olm-up` and `make
// olm-down` call it. On the cluster of make cluster-up (kwok nodes) OLM's operators run as
// processes of the cluster; on the cluster of make cluster-up-node OLM is deployed as pods on
// its real node, as the OLM real-node tests deploy it (internal/devtools/localolm).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/cli"
	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
)

func main() {
	assets := flag.String("olm", "", "Directory with OLM's binaries, CRDs and chart (hack/olm.sh).")
	cli.Run("olm", &localcluster.Cluster{Progress: os.Stdout},
		cli.Verb{Name: "up", Run: func(ctx context.Context, c *localcluster.Cluster) error { return up(ctx, c, *assets) }},
		cli.Verb{Name: "down", Run: func(ctx context.Context, c *localcluster.Cluster) error { return down(ctx, c, *assets) }})
}

// up runs OLM on the cluster as it runs, with or without a real node, or on a cluster of kwok
// nodes that it starts.
func up(ctx context.Context, c *localcluster.Cluster, assets string) error {
	if assets == "" {
		return fmt.Errorf("-olm is required (hack/olm.sh prints the directory)")
	}
	start := time.Now()
	if c.PID(localcluster.APIServer) > 0 {
		if err := c.Attach(ctx); err != nil {
			return err
		}
	} else if err := c.Up(ctx); err != nil {
		return err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	if c.RealNode {
		if err := deployPods(ctx, c, assets); err != nil {
			return err
		}
		fmt.Printf("OLM running as pods in namespace %s in %s\n", localolm.Namespace, time.Since(start).Round(100*time.Millisecond))
	} else {
		if err := localolm.Install(ctx, cfg, assets); err != nil {
			return fmt.Errorf("installing OLM's CRDs: %w", err)
		}
		if err := localolm.Start(c, assets); err != nil {
			return err
		}
		if err := localolm.WaitProcessesReady(ctx, cfg); err != nil {
			return fmt.Errorf("OLM not ready (see %s): %w", c.LogFile(localolm.OLMOperator), err)
		}
		fmt.Printf("OLM ready in %s; logs in %s and %s\n", time.Since(start).Round(100*time.Millisecond),
			c.LogFile(localolm.OLMOperator), c.LogFile(localolm.CatalogOperator))
	}
	fmt.Printf("export KUBECONFIG=%s\n", c.Kubeconfig())
	return nil
}

// deployPods builds OLM's images and those operator-sdk runs, pushes them to the cluster's
// registry, applies OLM's upstream release to the cluster and waits until packageserver
// serves.
func deployPods(ctx context.Context, c *localcluster.Cluster, assets string) error {
	b := &imagebuild.Builder{}
	images, err := localolm.BuildImages(ctx, b, ".", assets, c)
	if err != nil {
		return fmt.Errorf("OLM's images: %w", err)
	}
	sdk, err := localolm.BuildSDKImages(ctx, b, ".", c, images)
	if err != nil {
		return fmt.Errorf("operator-sdk's images: %w", err)
	}
	fmt.Printf("operator-sdk run bundle: --index-image %s --decompression-image %s\n",
		c.SecureImage(sdk.Index), c.SecureImage(sdk.Decompression))
	fmt.Printf("operator-sdk scorecard: --untar-image %[1]s --storage-image %[1]s\n", c.SecureImage(sdk.ScorecardTools))
	objs, err := localolm.Render(filepath.Join(assets, "deploy"), images)
	if err != nil {
		return err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	if err := localolm.Deploy(ctx, cfg, objs); err != nil {
		return err
	}
	return localolm.WaitPodsReady(ctx, cfg)
}

// down removes OLM: the release deployPods applied from a cluster with a real node, the
// operators' processes otherwise.
func down(ctx context.Context, c *localcluster.Cluster, assets string) error {
	if c.PID(localcluster.APIServer) > 0 {
		if err := c.Attach(ctx); err != nil {
			return err
		}
	}
	if !c.RealNode {
		return localolm.Stop(c)
	}
	if assets == "" {
		return fmt.Errorf("-olm is required (hack/olm.sh prints the directory)")
	}
	// The images a release names do not change which objects it has.
	objs, err := localolm.Render(filepath.Join(assets, "deploy"), localolm.Images{})
	if err != nil {
		return err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := localolm.Remove(ctx, cfg, objs); err != nil {
		return err
	}
	fmt.Printf("OLM removed in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}
