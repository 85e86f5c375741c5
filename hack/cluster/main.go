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
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/cmft/demo-operator/internal/test/localcluster"
)

func main() {
	c := &localcluster.Cluster{Progress: os.Stdout}
	c.BindFlags(flag.CommandLine)
	managerBin := flag.String("manager", "bin/manager", "The manager binary the demo runs.")
	chart := flag.String("chart", "charts/demo-operator", "The Helm chart the demo installs the operator with.")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: cluster [flags] up|down|status|demo")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	// Absolute, because the processes' command lines must name it for Down to recognise them.
	var err error
	if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		fail(err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	switch flag.Arg(0) {
	case "up":
		err = c.Up(ctx)
	case "down":
		err = c.Down()
	case "status":
		for _, name := range slices.Concat(localcluster.Components, localcluster.NodeComponents, []string{managerName}) {
			state := "stopped"
			if pid := c.PID(name); pid > 0 {
				state = fmt.Sprintf("running (pid %d)", pid)
			}
			fmt.Printf("%-24s %s\n", name, state)
		}
	case "demo":
		err = demo(ctx, c, *managerBin, *chart)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}
