package main

import (
	"context"

	"github.com/cmft/demo-operator/hack/cluster/localcluster"
)

func demo(ctx context.Context, c *localcluster.Cluster, managerBin, chart string) error { return nil }
