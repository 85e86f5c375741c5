//go:build e2e

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

// Package quickstart runs docs/quickstart.md's tour as written, from the repository, as a
// newcomer would: make demo on the local cluster it starts, kubectl against it, make
// cluster-down. It asserts what the page promises: the samples converge, a scaled
// DemoApplication reports its new pods ready, and nothing is left behind.
package quickstart

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/test/docblock"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// marker precedes docs/quickstart.md's fenced block of the tour.
const marker = "<!-- commands: test/e2e/quickstart"

// assets is the local cluster's binaries, kubectl among them.
var assets string

func TestMain(m *testing.M) {
	assets = framework.Assets("make test-e2e", "E2E_ASSETS")[0]
	os.Exit(m.Run())
}

func TestQuickstart(t *testing.T) {
	g := NewWithT(t)
	root := testenv.Root()
	commands, err := docblock.Commands(filepath.Join(root, "docs", "quickstart.md"), marker)
	g.Expect(err).NotTo(HaveOccurred())
	state := filepath.Join(root, "bin", "cluster")
	if _, err := os.Stat(state); err == nil {
		t.Fatalf("%s exists: a local cluster may run there; make cluster-down first", state)
	}
	t.Cleanup(func() {
		if _, err := os.Stat(state); err == nil {
			out, err := (&docblock.Shell{Dir: root}).Run(context.Background(), "make cluster-down")
			if err != nil {
				t.Errorf("stopping the quickstart's cluster: %v: %s", err, out)
			}
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()

	// A newcomer's shell: no cluster of their own, kubectl on the PATH.
	shell := &docblock.Shell{Dir: root, Env: []string{"KUBECONFIG=", "PATH=" + assets + string(os.PathListSeparator) + os.Getenv("PATH")}}
	start := time.Now()
	for _, command := range commands {
		out := shell.Step(ctx, t, "docs/quickstart.md", command)
		switch {
		case command == "make demo":
			g.Expect(string(out)).To(ContainSubstring("nginx-demo: 2/2 replicas ready, Available=true"))
			g.Expect(string(out)).To(ContainSubstring(`labeled-pod: padok.fr/pod-name="labeled-pod"`))
		case strings.HasPrefix(command, "kubectl describe demoapplication"):
			g.Expect(string(out)).To(MatchRegexp(`Status:\s+True\s+Type:\s+Ready`), "the conditions are described")
		case strings.HasPrefix(command, "kubectl get pods -L padok.fr/pod-name"):
			g.Expect(string(out)).To(MatchRegexp(`(?m)^labeled-pod\s.*\slabeled-pod$`), "the labeled pod's name label is a column")
		case command == "make cluster-down":
			_, err := os.Stat(state)
			g.Expect(os.IsNotExist(err)).To(BeTrue(), "%s after make cluster-down: %v", state, err)
		}
	}
	t.Logf("docs/quickstart.md: %d commands in %s", len(commands), time.Since(start).Round(time.Second))
}
