//go:build imagetools

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

// Package tools builds the images users build, the way they build them: the manager, bundle and
// catalog images from the shipped Dockerfiles, unchanged, through the Makefile's own targets
// (make docker-build docker-push bundle-build bundle-push catalog-build catalog-push), with each
// container tool CONTAINER_TOOL names: docker (Debian's docker.io, a daemon of the test's own,
// the classic builder), podman and buildah. They push to a registry the test starts, and the
// test reads them back from it: the three tools make the same images. make docker-buildx and
// catalog-buildx make one manifest list per image for every platform of PLATFORMS, without
// emulation, whose binaries are built for their architecture.
package tools

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The images a make run builds, by the Makefile variable that names them.
var imageVars = []string{"IMG", "BUNDLE_IMG", "CATALOG_IMG"}

// buildahIdentityLabel is the label buildah and podman add to every image they build
// (--identity-label=false leaves it out); docker adds none.
const buildahIdentityLabel = "io.buildah.version"

// requireCommands stops the test when a command it needs is missing: a skip on a developer's
// machine, a failure under CI (CI set), where .ci/run installs them all.
func requireCommands(t *testing.T, commands ...string) {
	t.Helper()
	testenv.Require(t, imagebuild.Available())
	for _, c := range commands {
		if _, err := exec.LookPath(c); err != nil {
			testenv.Require(t, fmt.Errorf("not building images with every tool: %w", err))
		}
	}
}

// startRegistry starts a registry of the test's own, stopped when the test ends.
func startRegistry(t *testing.T) *imagebuild.Registry {
	t.Helper()
	registry, err := imagebuild.StartRegistry(context.Background(), t.TempDir())
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { NewWithT(t).Expect(registry.Stop()).To(Succeed()) })
	return registry
}

// ensureBaseImages makes the stand-ins of the base images the three Dockerfiles name, for
// buildah and podman, which share containers-storage.
func ensureBaseImages(t *testing.T, root string) []string {
	t.Helper()
	g := NewWithT(t)
	bases, err := imagebuild.BaseImages(root+"/Dockerfile", root+"/bundle.Dockerfile", root+"/catalog.Dockerfile")
	g.Expect(err).NotTo(HaveOccurred())
	start := time.Now()
	g.Expect((&imagebuild.Builder{}).EnsureBaseImages(context.Background(), root, bases...)).To(Succeed())
	t.Logf("base images %s ready in %s", strings.Join(bases, ", "), time.Since(start).Round(time.Second))
	return bases
}

// buildFlags are BUILD_FLAGS for tool: the builder stages reach the Go module proxy through the
// host's network; podman and buildah also borrow the host's Go caches, which only makes a warm
// build fast (docker's classic builder has no -v).
func buildFlags(t *testing.T, tool string) string {
	if tool == "docker" {
		return "--network host"
	}
	caches, err := imagebuild.GoCacheVolumes(context.Background())
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return "--network host -v " + strings.Join(caches, " -v ")
}

// makeImages runs make in the repository with targets and variables, in env, and returns how
// long it took.
func makeImages(t *testing.T, env []string, targets []string, vars map[string]string) time.Duration {
	t.Helper()
	args := append([]string{"-C", testenv.Root()}, targets...)
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		args = append(args, k+"="+vars[k])
	}
	cmd := exec.Command("make", args...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	NewWithT(t).Expect(err).NotTo(HaveOccurred(), "make %s:\n%s", strings.Join(args, " "), imagebuild.Tail(string(out), 100))
	return took
}

// removeLocal deletes what podman and buildah left in containers-storage under the registry's
// names: the images live on in the registry.
func removeLocal(t *testing.T, images ...string) {
	b := &imagebuild.Builder{}
	for _, image := range images {
		if b.IsManifestList(context.Background(), image) {
			_ = exec.Command("buildah", "manifest", "rm", image).Run()
		}
	}
	NewWithT(t).Expect(b.Remove(context.Background(), images...)).To(Succeed())
}
