//go:build olmnode

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

// Package walkthrough runs the OLM walk-through of docs/install/olm.md on the real node as written: the
// commands of the fenced block after the marker walkthroughMarker, in order, from the
// repository, as a user would type them. It asserts what the walk-through promises: the CSV
// Succeeded after operator-sdk run bundle, every scorecard test passed.
package walkthrough

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/test/docblock"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// walkthroughMarker precedes docs/install/olm.md's fenced block of the walk-through.
const walkthroughMarker = "<!-- walkthrough: test/olm/walkthrough"

func TestMain(m *testing.M) {
	nodeAssets := os.Getenv("NODE_ASSETS")
	if nodeAssets == "" || os.Getenv("OLM_ASSETS") == "" {
		fmt.Println("NODE_ASSETS or OLM_ASSETS is not set: skipping the OLM walk-through of docs/install/olm.md (run make test-olm-node)")
		os.Exit(0)
	}
	testenv.RequireInMain("the OLM walk-through of docs/install/olm.md", localcluster.NodePrerequisites(nodeAssets))
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// TestREADMEWalkthrough runs the walk-through's commands on the make cluster-up-node cluster
// they start, in bin/cluster, and always ends with make cluster-down.
func TestREADMEWalkthrough(t *testing.T) {
	g := NewWithT(t)
	root := testenv.Root()
	commands, err := docblock.Commands(filepath.Join(root, "docs", "install", "olm.md"), walkthroughMarker)
	g.Expect(err).NotTo(HaveOccurred())
	state := filepath.Join(root, "bin", "cluster")
	if _, err := os.Stat(state); err == nil {
		t.Fatalf("%s exists: a local cluster may run there; make cluster-down first", state)
	}
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(30 * time.Minute)
	}
	// Time to stop the cluster before go test's own timeout ends the process.
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-2*time.Minute))
	defer cancel()
	t.Cleanup(func() {
		if _, err := os.Stat(state); err == nil {
			down := exec.Command("go", "run", "./hack/cluster", "down")
			down.Dir = root
			out, err := down.CombinedOutput()
			if err != nil {
				t.Errorf("stopping the walk-through's cluster: %v: %s", err, out)
			}
		}
	})
	// What the walk-through asks of the reader: the Dockerfile's base images in buildah's
	// storage, here the local stand-ins (which the tier before has made already).
	g.Expect((&imagebuild.Builder{}).EnsureBaseImages(ctx, root, imagebuild.GolangImage, imagebuild.DistrolessStaticImage)).To(Succeed())
	config, err := localolm.ScorecardConfig(root)
	g.Expect(err).NotTo(HaveOccurred())
	scorecardTests := 0
	for _, stage := range config.Stages {
		scorecardTests += len(stage.Tests)
	}

	start := time.Now()
	shell := &docblock.Shell{Dir: root}
	for _, command := range commands {
		out := shell.Step(ctx, t, "the walk-through of docs/install/olm.md", command)
		switch {
		case strings.Contains(command, "operator-sdk run bundle "):
			expectCSVSucceeded(t, filepath.Join(state, "kubeconfig"))
		case command == "make olm-down":
			expectOLMRemoved(t, filepath.Join(state, "kubeconfig"))
		case strings.Contains(command, "operator-sdk scorecard "):
			g.Expect(strings.Count(string(out), "State: pass")).To(Equal(scorecardTests), "every scorecard test passes:\n%s", out)
		}
	}
	t.Logf("the walk-through of docs/install/olm.md: %d commands in %s", len(commands), time.Since(start).Round(time.Second))
}

// expectCSVSucceeded asserts that operator-sdk run bundle left the operator's CSV Succeeded.
func expectCSVSucceeded(t *testing.T, kubeconfig string) {
	g := NewWithT(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	scheme := runtime.NewScheme()
	g.Expect(operatorsv1alpha1.AddToScheme(scheme)).To(Succeed())
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	csvs := &operatorsv1alpha1.ClusterServiceVersionList{}
	g.Expect(k8s.List(context.Background(), csvs)).To(Succeed())
	var phases []string
	for _, csv := range csvs.Items {
		// Not the copies OLM makes in every namespace an all-namespaces operator watches,
		// which follow the original.
		if _, copied := csv.Labels[operatorsv1alpha1.CopiedLabelKey]; !copied && strings.HasPrefix(csv.Name, "demo-operator.") {
			phases = append(phases, fmt.Sprintf("%s/%s: %s", csv.Namespace, csv.Name, csv.Status.Phase))
		}
	}
	g.Expect(phases).NotTo(BeEmpty())
	for _, p := range phases {
		g.Expect(p).To(HaveSuffix(": "+string(operatorsv1alpha1.CSVPhaseSucceeded)), "CSVs: %v", phases)
	}
}

// expectOLMRemoved asserts that make olm-down left no trace of OLM: its namespace, its CRDs
// and packageserver's APIService, which would otherwise break discovery for every client.
func expectOLMRemoved(t *testing.T, kubeconfig string) {
	g := NewWithT(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	_, err = cs.CoreV1().Namespaces().Get(ctx, localolm.Namespace, metav1.GetOptions{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace %s after make olm-down: %v", localolm.Namespace, err)
	groups, err := cs.Discovery().ServerGroups()
	g.Expect(err).NotTo(HaveOccurred())
	for _, group := range groups.Groups {
		g.Expect(group.Name).NotTo(HaveSuffix("operators.coreos.com"), "API group served after make olm-down")
	}
}
