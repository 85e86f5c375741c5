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

// Command cluster runs the local cluster (up, down, status) and the newcomer's demo on it.
//
//	go run ./hack/cluster -bin "$(hack/control-plane.sh --cluster)" up|down|status|demo
//	go run ./hack/cluster -bin "$(hack/control-plane.sh --node)" -real-node up
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/cmft/demo-operator/internal/devtools/cli"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
)

// releaseRegistry holds the operator's released images, which bundle/ names.
const releaseRegistry = "ghcr.io"

func main() {
	managerBin := flag.String("manager", "bin/manager", "The manager binary the demo runs.")
	chart := flag.String("chart", "charts/demo-operator", "The Helm chart the demo installs the operator with.")
	// The real node mirrors the registries of the images operator-sdk names without a flag to
	// change them, as the OLM tests' cluster does, so that run bundle-upgrade and scorecard
	// work by hand too once those images are pushed (make olm-up pushes them); and the
	// operator's release registry (IMAGE_TAG_BASE's), so that the committed bundle installs
	// with a manager image built here (docs/install/olm.md's walk-through).
	cli.Run("cluster", &localcluster.Cluster{Progress: os.Stdout, Mirrors: append(slices.Clone(localolm.Mirrors), releaseRegistry)},
		cli.Verb{Name: "up", Run: func(ctx context.Context, c *localcluster.Cluster) error { return c.Up(ctx) }},
		cli.Verb{Name: "down", Run: func(_ context.Context, c *localcluster.Cluster) error { return c.Down() }},
		cli.Verb{Name: "status", Run: status},
		cli.Verb{Name: "demo", Run: func(ctx context.Context, c *localcluster.Cluster) error {
			return demo(ctx, c, *managerBin, *chart)
		}})
}

// status prints whether each process of the cluster runs.
func status(_ context.Context, c *localcluster.Cluster) error {
	for _, name := range slices.Concat(localcluster.Components, localcluster.NodeComponents, []string{managerName}) {
		state := "stopped"
		if pid := c.PID(name); pid > 0 {
			state = fmt.Sprintf("running (pid %d)", pid)
		}
		fmt.Printf("%-24s %s\n", name, state)
	}
	return nil
}
