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

// Package images builds the three images users install from (manager, bundle, catalog) from the
// shipped Dockerfiles, unchanged, with the repository as build context, and checks what each
// image does for its users: the manager runs as nonroot on a read-only root, the bundle is the
// bundle/ directory OLM validates, the catalog serves the package over gRPC.
package images

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The images the tests build, under names of their own so that they replace nothing a user
// built.
const (
	managerImage = "localhost/demo-operator-test/manager:test"
	bundleImage  = "localhost/demo-operator-test/bundle:test"
	catalogImage = "localhost/demo-operator-test/catalog:test"
)

// dockerfiles are the shipped Dockerfiles, by the image they build.
var dockerfiles = map[string]string{
	managerImage: "Dockerfile",
	bundleImage:  "bundle.Dockerfile",
	catalogImage: "catalog.Dockerfile",
}

var (
	builder = &imagebuild.Builder{}
	built   sync.Map // image name → *buildResult
)

type buildResult struct {
	once sync.Once
	err  error
}

// image builds name from its shipped Dockerfile once per test binary, with the base images its
// FROM lines name made first when storage lacks them, and returns name.
func image(t *testing.T, name string) string {
	t.Helper()
	testenv.Require(t, imagebuild.Available())
	r, _ := built.LoadOrStore(name, &buildResult{})
	res := r.(*buildResult)
	res.once.Do(func() { res.err = build(t, name) })
	if res.err != nil {
		t.Fatal(res.err)
	}
	return name
}

func build(t *testing.T, name string) error {
	ctx := context.Background()
	root := testenv.Root()
	if err := statContext(root); err != nil {
		return err
	}
	dockerfile := filepath.Join(root, dockerfiles[name])
	bases, err := imagebuild.BaseImages(dockerfile)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := builder.EnsureBaseImages(ctx, root, bases...); err != nil {
		return err
	}
	if len(bases) > 0 {
		t.Logf("base images %s ready in %s", strings.Join(bases, ", "), time.Since(start).Round(100*time.Millisecond))
	}

	// The builder stage reaches the Go module proxy through the host's network, and reuses the
	// host's module and build caches, which only makes a warm build fast: the Dockerfile's own
	// steps still download and compile what the image needs.
	caches, err := imagebuild.GoCacheVolumes(ctx)
	if err != nil {
		return err
	}
	start = time.Now()
	var log strings.Builder
	b := &imagebuild.Builder{Log: &log}
	_, err = b.Build(ctx, imagebuild.BuildOptions{
		ContextDir: root,
		Dockerfile: dockerfile,
		Tag:        name,
		Network:    "host",
		Volumes:    caches,
		// buildah's layer cache would reuse the bundle and catalog as another build of the same
		// Dockerfile committed them, labels included (make bundle-build adds io.buildah.version).
		NoCache: name != managerImage,
	})
	if err != nil {
		return fmt.Errorf("building %s from %s: %w", name, dockerfiles[name], err)
	}
	took := time.Since(start)

	// The sizes users meet: on a node, unpacked; in transfer, as an OCI archive's
	// gzip-compressed layers.
	size, err := builder.Size(ctx, name)
	if err != nil {
		return err
	}
	archive := filepath.Join(t.TempDir(), "image.tar")
	if err := builder.Push(ctx, name, "oci-archive:"+archive, imagebuild.PushOptions{}); err != nil {
		return err
	}
	info, err := os.Stat(archive)
	if err != nil {
		return err
	}
	t.Logf("built %s from %s in %s: %s unpacked (%d bytes), %s compressed", name, dockerfiles[name],
		took.Round(100*time.Millisecond), imagebuild.HumanSize(size), size, imagebuild.HumanSize(info.Size()))
	return nil
}

// statContext lists and stats every file of the build context. go test caches a passing
// result until a file the test opened or stat'ed changes, and cannot see what buildah reads: so
// that a new package or an edited .dockerignore rebuilds the images rather than replaying an
// old pass, the test looks at all of it. Only .git and bin/ are passed over; .dockerignore
// keeps them out of the context too.
func statContext(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == filepath.Join(root, ".git") || path == filepath.Join(root, "bin")) {
			return filepath.SkipDir
		}
		_, err = os.Stat(path)
		return err
	})
}
