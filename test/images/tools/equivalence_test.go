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

package tools

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// tools are the container tools users build with, by CONTAINER_TOOL; the first is the
// reference the others are compared with.
var tools = []string{"buildah", "podman", "docker"}

// The image each of imageVars names, in the registry's paths.
var imageNames = map[string]string{"IMG": "manager", "BUNDLE_IMG": "bundle", "CATALOG_IMG": "catalog"}

func TestToolsMakeEquivalentImages(t *testing.T) {
	requireCommands(t, "make", "podman", "docker", "dockerd", "docker-registry")
	g := NewWithT(t)
	ctx := context.Background()
	root := testenv.Root()
	registry := startRegistry(t)
	bases := ensureBaseImages(t, root)

	dockerd, err := imagebuild.StartDockerd(ctx, os.TempDir())
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { NewWithT(t).Expect(dockerd.Stop()).To(Succeed()) })
	start := time.Now()
	g.Expect(dockerd.Load(ctx, &imagebuild.Builder{}, bases...)).To(Succeed())
	t.Logf("docker: base images loaded in %s", time.Since(start).Round(time.Second))

	// refs[tool][variable] is the image make built with tool.
	refs := map[string]map[string]string{}
	for _, tool := range tools {
		refs[tool] = map[string]string{}
		vars := map[string]string{"CONTAINER_TOOL": tool, "INSECURE_REGISTRY": "true", "BUILD_FLAGS": buildFlags(t, tool)}
		for _, v := range imageVars {
			refs[tool][v] = fmt.Sprintf("%s/%s/%s:test", registry.Host, tool, imageNames[v])
			vars[v] = refs[tool][v]
		}
		env := os.Environ()
		if tool == "docker" {
			env = dockerd.Env()
		} else {
			t.Cleanup(func() { removeLocal(t, slices.Collect(maps.Values(refs[tool]))...) })
		}
		targets := []string{"docker-build", "docker-push", "bundle-build", "bundle-push", "catalog-build", "catalog-push"}
		first := makeImages(t, env, targets, vars)
		// Again, as a developer rebuilds after a change: the tools' layer caches.
		again := makeImages(t, env, targets, vars)
		t.Logf("%s: make %s in %s, again in %s", tool, strings.Join(targets, " "), first.Round(time.Second), again.Round(time.Second))
	}

	for _, v := range imageVars {
		t.Run(imageNames[v], func(t *testing.T) {
			g := NewWithT(t)
			want, err := image(refs[tools[0]][v])
			g.Expect(err).NotTo(HaveOccurred())
			wantFiles, _, err := want.files()
			g.Expect(err).NotTo(HaveOccurred())
			for _, tool := range tools {
				got, err := image(refs[tool][v])
				g.Expect(err).NotTo(HaveOccurred())
				files, _, err := got.files()
				g.Expect(err).NotTo(HaveOccurred())
				t.Logf("%s: %s compressed, %s unpacked, %d paths", tool, imagebuild.HumanSize(got.compressedSize()), imagebuild.HumanSize(unpackedSize(files)), len(files))
				if tool == tools[0] {
					continue
				}

				g.Expect(got.config.Platform).To(Equal(want.config.Platform), tool)
				g.Expect(got.config.Config.Entrypoint).To(Equal(want.config.Config.Entrypoint), tool)
				g.Expect(got.config.Config.Cmd).To(Equal(want.config.Config.Cmd), tool)
				g.Expect(got.config.Config.User).To(Equal(want.config.Config.User), tool)
				g.Expect(got.config.Config.WorkingDir).To(Equal(want.config.Config.WorkingDir), tool)
				g.Expect(got.config.Config.Env).To(Equal(want.config.Config.Env), tool)
				g.Expect(withoutIdentity(got.config.Config.Labels)).To(Equal(withoutIdentity(want.config.Config.Labels)), tool)

				g.Expect(slices.Sorted(maps.Keys(files))).To(Equal(slices.Sorted(maps.Keys(wantFiles))), "%s: the same paths", tool)
				var contents, times []string
				for p, w := range wantFiles {
					f := files[p]
					g.Expect([]any{f.Type, fmt.Sprintf("%o", f.Mode), f.UID, f.GID, f.Link}).
						To(Equal([]any{w.Type, fmt.Sprintf("%o", w.Mode), w.UID, w.GID, w.Link}), "%s: %s's type, mode, owner and link", tool, p)
					if f.Digest != w.Digest {
						contents = append(contents, p)
					}
					if !f.ModTime.Equal(w.ModTime) {
						times = append(times, p)
					}
				}
				// What may differ, and does: when files were written, and what the build
				// stamps into them.
				slices.Sort(contents)
				t.Logf("%s differs from %s in: the identity label %q (%q, %q); the modification time of %d of %d paths; the contents of %d files %v",
					tool, tools[0], buildahIdentityLabel, got.config.Config.Labels[buildahIdentityLabel], want.config.Config.Labels[buildahIdentityLabel],
					len(times), len(files), len(contents), contents)
			}
		})
	}
}

// withoutIdentity is labels without the label naming the tool's version.
func withoutIdentity(labels map[string]string) map[string]string {
	labels = maps.Clone(labels)
	delete(labels, buildahIdentityLabel)
	return labels
}

// compressedSize is what a node downloads: the image's layers, compressed.
func (img *registryImage) compressedSize() int64 {
	var n int64
	for _, l := range img.manifest.Layers {
		n += l.Size
	}
	return n
}

// unpackedSize is the bytes of an image's regular files, as it occupies a node unpacked.
func unpackedSize(files map[string]fileEntry) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}
