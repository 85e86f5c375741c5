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

package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// buildManagerWithDocker builds and pushes the manager's image as a docker user does, with
// make docker-build docker-push CONTAINER_TOOL=docker, through a Docker daemon of its own (the
// classic builder of Debian's docker 20.10) that trusts the cluster's plain-HTTP registry, so
// that the tests install an image docker built, as image and under the names of also.
// E2E_CONTAINER_TOOL=docker asks for it: the classic builder caches no Go build, which makes it
// minutes slower than the default.
func buildManagerWithDocker(ctx context.Context, image string, also ...string) (err error) {
	root := testenv.Root()
	b := &imagebuild.Builder{}
	bases, err := imagebuild.BaseImages(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return err
	}
	if err := b.EnsureBaseImages(ctx, root, bases...); err != nil {
		return err
	}
	dockerd, err := imagebuild.StartDockerd(ctx, os.TempDir(), cluster.RegistryHost())
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dockerd.Stop()) }()
	if err := dockerd.Load(ctx, b, bases...); err != nil {
		return err
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "make", "-C", root, "docker-build", "docker-push",
		"CONTAINER_TOOL=docker", "IMG="+image, "BUILD_FLAGS=--network host")
	cmd.Env = dockerd.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make docker-build docker-push CONTAINER_TOOL=docker: %w: %s", err, out)
	}
	for _, ref := range also {
		for _, args := range [][]string{{"tag", image, ref}, {"push", ref}} {
			cmd := exec.CommandContext(ctx, "docker", args...)
			cmd.Env = dockerd.Env()
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, out)
			}
		}
	}
	fmt.Printf("manager image built and pushed with docker in %s\n", time.Since(start).Round(time.Second))
	return nil
}
