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

// Package cli is the skeleton the dev commands under hack/ share: the local cluster's flags,
// one verb per run, a context that an interrupt cancels, and an error printed once.
package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// Verb is one thing a command does to the local cluster: up, down, …
type Verb struct {
	Name string
	Run  func(ctx context.Context, c *localcluster.Cluster) error
}

// Run binds c to the command line's flags, with any the command defined before, parses it,
// and runs the verb it names on c until done or interrupted. It exits 2 on a wrong command
// line and 1 when the verb fails.
func Run(command string, c *localcluster.Cluster, verbs ...Verb) {
	// The commands say what they do themselves; the clients they use log nothing of interest.
	ctrllog.SetLogger(logr.Discard())
	c.BindFlags(flag.CommandLine)
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.Name
	}
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [flags] %s\n", command, strings.Join(names, "|"))
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
		Fail(err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	for _, v := range verbs {
		if v.Name == flag.Arg(0) {
			if err := v.Run(ctx, c); err != nil {
				cancel()
				Fail(err)
			}
			return
		}
	}
	flag.Usage()
	os.Exit(2)
}

// Fail prints err and exits 1.
func Fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}
