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

package imagebuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// GoCacheVolumes are BuildOptions.Volumes that lend the host's Go module and build caches to a
// Dockerfile's RUN steps at the paths the golang image uses, which only makes a warm build
// fast: the Dockerfile's own steps still download and compile what the image needs.
func GoCacheVolumes(ctx context.Context) ([]string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	dirs := strings.Fields(string(out))
	if len(dirs) != 2 {
		return nil, fmt.Errorf("go env GOMODCACHE GOCACHE: %q", out)
	}
	// A volume's host side must exist.
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	// Where the golang image keeps them: GOPATH=/go, HOME=/root.
	return []string{dirs[0] + ":/go/pkg/mod", dirs[1] + ":/root/.cache/go-build"}, nil
}

// BuildLocally builds one of the project's Dockerfiles on a machine that pulls no images, as
// the tests do: the base images it names are made as local stand-ins first
// (EnsureBaseImages; root is the repository), and its RUN steps reach the Go module proxy
// through the host's network with the host's Go caches lent.
func (b *Builder) BuildLocally(ctx context.Context, root string, o BuildOptions) (string, error) {
	bases, err := BaseImages(o.dockerfilePath())
	if err != nil {
		return "", err
	}
	if err := b.EnsureBaseImages(ctx, root, bases...); err != nil {
		return "", err
	}
	caches, err := GoCacheVolumes(ctx)
	if err != nil {
		return "", err
	}
	o.Volumes, o.Network = append(o.Volumes, caches...), "host"
	return b.Build(ctx, o)
}
