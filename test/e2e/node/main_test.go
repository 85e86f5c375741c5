//go:build node

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

// Package node runs the operator as users do, on the local cluster's real node: from the image
// the Dockerfile builds, installed by the Helm chart or config/default, its pods probed by a
// real kubelet in real cgroups, and the per-pod Services carrying traffic through kube-proxy.
// It needs root, Linux and the packages README lists; it skips without them, except on CI.
package node

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blang/semver/v4"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/helmcli"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

var (
	cluster *localcluster.Cluster
	k8s     client.Client
	cs      kubernetes.Interface
	// The images the tests built, as the node pulls them from the local registry.
	managerImage, appImage, kubectlImage string
	// neverReadyImage is appImage whose /ready never passes: a release that fails its readiness
	// probe, for a bad rollout.
	neverReadyImage string
	// The chart as users install it: an OCI artifact pushed by make helm-push to the registry's
	// TLS endpoint, in its version and the next (helm upgrade's).
	chartRef, chartVersion, nextChartVersion string
	// The images the chart names by default, the manager's (the release's, appVersion) and
	// helm test's, which the node pulls from the local registry through its mirrors, so that the
	// docs' commands run as written.
	releaseImage, releaseTestImage string
)

// appLocalImage is podname's image in the builder's storage, which tests push elsewhere too.
const appLocalImage = "localhost/demo-operator-node/podname:e2e"

func TestMain(m *testing.M) {
	assets := framework.Assets("make test-node", "NODE_ASSETS")[0]
	testenv.RequireInMain("real-node tests", localcluster.NodePrerequisites(assets))
	var err error
	if releaseImage, releaseTestImage, err = chartImages(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// One kwok node, tainted, for pods that only load the API server.
	cluster = &localcluster.Cluster{BinDir: assets, Nodes: 1, RealNode: true, Progress: os.Stdout, DieWithParent: true,
		Mirrors: []string{registryOf(releaseImage), registryOf(releaseTestImage)}}
	// The memory test creates thousands of pods.
	os.Exit(framework.Run(m, cluster, framework.Options{Scheme: manager.Scheme, QPS: 500, Burst: 1000,
		Timeout: 15 * time.Minute, SetUp: setUp}))
}

// setUp pushes the images the tests install to the cluster's registry.
func setUp(ctx context.Context, s *framework.Suite) error {
	k8s, cs = s.Client, s.Clientset
	start := time.Now()
	if err := buildImages(ctx); err != nil {
		return err
	}
	fmt.Printf("images built and pushed in %s\n", time.Since(start).Round(100*time.Millisecond))
	start = time.Now()
	if err := pushCharts(ctx); err != nil {
		return err
	}
	fmt.Printf("chart %s %s and %s pushed in %s\n", chartRef, chartVersion, nextChartVersion, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// chartImages reads the images the chart names by default: values.yaml's image.repository at
// Chart.yaml's appVersion, and test.image.
func chartImages() (managerRef, testRef string, err error) {
	dir := filepath.Join(testenv.Root(), "charts", "demo-operator")
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	var values struct {
		Image struct{ Repository string }
		Test  struct{ Image string }
	}
	for file, into := range map[string]any{"Chart.yaml": &chart, "values.yaml": &values} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return "", "", err
		}
		if err := yaml.Unmarshal(data, into); err != nil {
			return "", "", fmt.Errorf("%s: %w", file, err)
		}
	}
	return values.Image.Repository + ":" + chart.AppVersion, values.Test.Image, nil
}

// registryOf is the registry host of an image reference that names one.
func registryOf(ref string) string {
	host, _, _ := strings.Cut(ref, "/")
	return host
}

// inLocalRegistry is where the node's mirror of ref's registry finds ref: the same path in
// the local registry.
func inLocalRegistry(ref string) string {
	_, path, _ := strings.Cut(ref, "/")
	return cluster.RegistryHost() + "/" + path
}

// pushCharts pushes the chart, as Chart.yaml's version and the next patch, with make helm-push.
func pushCharts(ctx context.Context) error {
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "charts", "demo-operator", "Chart.yaml"))
	if err != nil {
		return err
	}
	var chart struct{ Version string }
	if err := yaml.Unmarshal(data, &chart); err != nil {
		return err
	}
	next, err := semver.Parse(chart.Version)
	if err != nil {
		return err
	}
	next.Patch++
	chartVersion, nextChartVersion = chart.Version, next.String()
	chartRef = "oci://" + cluster.SecureRegistryHost() + "/charts/demo-operator"

	packages, err := os.MkdirTemp("", "demo-operator-node-charts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(packages)
	for _, version := range []string{chartVersion, nextChartVersion} {
		if out, err := runMake(ctx, "helm-push", "CHART_REGISTRY="+cluster.SecureRegistryHost(), "CHART_REGISTRY_CA_FILE="+cluster.RegistryCAFile(),
			"CHART_PACKAGES="+packages, "CHART_VERSION="+version); err != nil {
			return fmt.Errorf("make helm-push CHART_VERSION=%s: %w\n%s", version, err, out)
		}
	}
	return nil
}

// runMake runs a target of the repository's Makefile against the cluster, as a user would with
// KUBECONFIG set, and returns its output.
func runMake(ctx context.Context, target string, vars ...string) ([]byte, error) {
	args := append([]string{"-C", testenv.Root(), target, "KUBECTL=" + filepath.Join(cluster.BinDir, "kubectl")}, vars...)
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig())
	return cmd.CombinedOutput()
}

// helm runs the helm CLI against the cluster.
func helm(args ...string) (string, error) {
	return helmcli.Run(append(args, "--kubeconfig", cluster.Kubeconfig())...)
}

// buildImages builds the manager's image from the Dockerfile, the application the per-pod
// Service tests call and the image of the chart's test hook (kubectl), and pushes them.
func buildImages(ctx context.Context) error {
	b := &imagebuild.Builder{}
	root := testenv.Root()
	registry := cluster.RegistryHost()
	managerImage, appImage, kubectlImage = registry+"/demo-operator:e2e", registry+"/podname:e2e", inLocalRegistry(releaseTestImage)
	neverReadyImage = registry + "/podname:never-ready"

	if os.Getenv("E2E_CONTAINER_TOOL") == "docker" {
		if err := buildManagerWithDocker(ctx, managerImage, inLocalRegistry(releaseImage)); err != nil {
			return fmt.Errorf("building the manager image with docker: %w", err)
		}
	} else if err := buildManager(ctx, b, root); err != nil {
		return err
	}

	bin, err := os.MkdirTemp("", "demo-operator-node-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(bin, "podname"), "./podname")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building podname: %w: %s", err, out)
	}
	for ref, spec := range map[string]imagebuild.ImageSpec{
		appImage: {Name: appLocalImage, Entrypoint: []string{"/podname"}, User: "65532:65532",
			Files: []imagebuild.File{{Path: "/podname", Source: filepath.Join(bin, "podname")}}},
		neverReadyImage: {Name: "localhost/demo-operator-node/podname:never-ready", Entrypoint: []string{"/podname"}, User: "65532:65532",
			Env:   []string{"READY_AFTER=87600h"},
			Files: []imagebuild.File{{Path: "/podname", Source: filepath.Join(bin, "podname")}}},
		// kubectl as registry.k8s.io/kubectl has it: on the PATH of an image without a shell.
		kubectlImage: {Name: "localhost/demo-operator-node/kubectl:v1.37.1", Entrypoint: []string{"/bin/kubectl"},
			User: "65532:65532", Env: []string{"PATH=/bin"},
			Files: []imagebuild.File{{Path: "/bin/kubectl", Source: filepath.Join(cluster.BinDir, "kubectl")}}},
	} {
		if _, err := b.Assemble(ctx, spec); err != nil {
			return err
		}
		if err := cluster.PushImage(ctx, b, spec.Name, ref); err != nil {
			return err
		}
	}
	return nil
}

// buildManager builds the manager's image with buildah, borrowing the host's Go caches, and
// pushes it.
func buildManager(ctx context.Context, b *imagebuild.Builder, root string) error {
	const local = "localhost/demo-operator-node/manager:e2e"
	if _, err := b.BuildLocally(ctx, root, imagebuild.BuildOptions{ContextDir: root, Tag: local}); err != nil {
		return fmt.Errorf("building the manager image: %w", err)
	}
	for _, ref := range []string{managerImage, inLocalRegistry(releaseImage)} {
		if err := cluster.PushImage(ctx, b, local, ref); err != nil {
			return err
		}
	}
	return nil
}
