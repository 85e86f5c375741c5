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

// Package imagebuild builds, inspects, runs and pushes container images with buildah, daemonless,
// on a machine that cannot pull any image: the tests build the project's images from its shipped
// Dockerfiles with it, and the local cluster's real node gets its images from it.
//
// A Builder wraps the buildah command line (buildah stores images in containers-storage, shared
// by every process on the machine):
//
//   - Build runs `buildah bud` on a Dockerfile, as `docker build` would.
//   - Assemble makes a small image from a few host files (scratch or a base, entrypoint, user,
//     labels), for images no Dockerfile describes: a pause image, a test app.
//   - EnsureBaseImages makes local stand-ins for the base images a Dockerfile names (golang,
//     distroless static, opm) when storage lacks them, once per machine; BaseImages lists the
//     images a Dockerfile's FROM lines name. Users with a registry never need them.
//   - Push copies an image to an oci-archive or to a registry, plain HTTP if asked.
//   - Inspect returns an image's OCI config (entrypoint, user, labels); Mount its filesystem;
//     Size the bytes of that filesystem.
//   - Run and Start run an image's entrypoint under runc, with the image's user and
//     environment, the root filesystem read-only if asked, in the host's network namespace;
//     Container.Pid finds the process to observe from the host.
//   - StaticELF tells whether a binary runs without libc.
//
// Everything needs root and buildah (Debian: apt-get install buildah); Run and Start need runc.
// Tests call testenv.Require(t, imagebuild.Available()) first: it skips them where buildah is
// missing, and fails them under CI.
package imagebuild

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Builder runs buildah. The zero value is ready to use and discards buildah's progress output.
type Builder struct {
	// Log receives buildah's and the build steps' output (a test's log, os.Stderr); nil
	// discards it. Errors always carry the failing command's own output.
	Log io.Writer
}

// Available reports why images cannot be built here: nil when buildah is on PATH and the process
// is root (buildah's storage and runc's containers are root's on this project's machines).
func Available() error {
	if _, err := exec.LookPath("buildah"); err != nil {
		return errors.New("buildah is not installed (Debian: apt-get install buildah)")
	}
	if os.Geteuid() != 0 {
		return errors.New("building images needs root")
	}
	return nil
}

// BuildOptions are the `buildah bud` flags Build passes.
type BuildOptions struct {
	// ContextDir is the build context; its .dockerignore applies.
	ContextDir string
	// Dockerfile is the Dockerfile's path; relative paths are relative to ContextDir. Empty
	// means ContextDir/Dockerfile.
	Dockerfile string
	// Tag names the image; it may be empty.
	Tag string
	// BuildArgs are --build-arg values.
	BuildArgs map[string]string
	// Network is the RUN steps' network: "host" lets them reach what the host reaches (the Go
	// module proxy); empty is buildah's default, a private network namespace.
	Network string
	// Volumes are bind mounts for the RUN steps, "host-dir:container-dir[:options]", such as a
	// Go module cache.
	Volumes []string
	// NoCache rebuilds every step; otherwise buildah reuses the layers of earlier builds of the
	// same steps and inputs (--layers).
	NoCache bool
}

// Build builds an image from a Dockerfile with `buildah bud` and returns its ID.
func (b *Builder) Build(ctx context.Context, o BuildOptions) (string, error) {
	dockerfile := o.dockerfilePath()
	iidFile, err := os.CreateTemp("", "imagebuild-iid-")
	if err != nil {
		return "", err
	}
	_ = iidFile.Close()
	defer os.Remove(iidFile.Name())

	// No io.buildah.version label: the image carries the labels its Dockerfile gives, as
	// docker build makes it; but a layer reused from the cache (--layers) keeps the labels of
	// the build that committed it, so a caller that checks labels builds with NoCache.
	args := []string{"bud", "--identity-label=false", "--layers=" + fmt.Sprint(!o.NoCache), "--iidfile", iidFile.Name(), "-f", dockerfile}
	if o.NoCache {
		args = append(args, "--no-cache")
	}
	if o.Tag != "" {
		args = append(args, "-t", o.Tag)
	}
	for _, k := range slices.Sorted(maps.Keys(o.BuildArgs)) {
		args = append(args, "--build-arg", k+"="+o.BuildArgs[k])
	}
	if o.Network != "" {
		args = append(args, "--network", o.Network)
	}
	for _, v := range o.Volumes {
		args = append(args, "-v", v)
	}
	args = append(args, o.ContextDir)
	if _, err := b.buildah(ctx, args...); err != nil {
		return "", err
	}
	id, err := os.ReadFile(iidFile.Name())
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(strings.TrimSpace(string(id)), "sha256:"), nil
}

func (o BuildOptions) dockerfilePath() string {
	dockerfile := o.Dockerfile
	if dockerfile == "" {
		dockerfile = "Dockerfile"
	}
	if !filepath.IsAbs(dockerfile) {
		dockerfile = filepath.Join(o.ContextDir, dockerfile)
	}
	return dockerfile
}

// PushOptions are the `buildah push` flags Push passes.
type PushOptions struct {
	// Insecure talks plain HTTP to the registry and skips TLS verification (--tls-verify=false),
	// for a local registry that serves no TLS.
	Insecure bool
	// CertDir holds the CA certificates (*.crt) the registry's certificate is verified with
	// besides the machine's (--cert-dir): a local registry's, without changing the machine's
	// trust store.
	CertDir string
	// Creds are the registry's user and password, as user:password (--creds).
	Creds string
}

// Push copies image to dest, a containers-transports reference: "oci-archive:/path.tar:name:tag"
// or "docker://host:port/repository:tag".
func (b *Builder) Push(ctx context.Context, image, dest string, o PushOptions) error {
	args := []string{"push", "--quiet"}
	if o.Insecure {
		args = append(args, "--tls-verify=false")
	}
	if o.CertDir != "" {
		args = append(args, "--cert-dir", o.CertDir)
	}
	if o.Creds != "" {
		args = append(args, "--creds", o.Creds)
	}
	_, err := b.buildah(ctx, append(args, image, dest)...)
	return err
}

// Image is what Inspect reports of an image.
type Image struct {
	// ID is the image's ID (the digest of its config, without "sha256:").
	ID string
	// Digest is the digest of its manifest, by which a manifest list names it.
	Digest string
	// Names are the names storage knows it by.
	Names []string
	// OCI is the image's configuration: entrypoint, user, environment, labels, layers.
	OCI ocispec.Image
}

// Exists reports whether storage holds an image of that name or ID.
func (b *Builder) Exists(ctx context.Context, image string) bool {
	_, err := b.buildah(ctx, "inspect", "--type", "image", "--format", "{{.FromImageID}}", image)
	return err == nil
}

// Inspect returns the configuration of an image in storage.
func (b *Builder) Inspect(ctx context.Context, image string) (*Image, error) {
	out, err := b.buildah(ctx, "inspect", "--type", "image", image)
	if err != nil {
		return nil, err
	}
	var info struct {
		FromImageID     string
		FromImageDigest string
		OCIv1           ocispec.Image
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return nil, fmt.Errorf("buildah inspect %s: %w", image, err)
	}
	img := &Image{ID: info.FromImageID, Digest: info.FromImageDigest, OCI: info.OCIv1}
	// The names are listed for this image alone: a listing of every image (as --filter
	// makes) fails on buildah 1.28 once storage holds a dangling image beside a manifest list
	// made by buildah manifest (it looks for the list's instances in the list itself). It can
	// still fail while another process removes this image's names (the tiers share the
	// machine's storage): try again rather than report no names.
	for attempt := 1; ; attempt++ {
		names, err := b.buildah(ctx, "images", "--format", "{{.Name}}:{{.Tag}}", info.FromImageID)
		if err == nil {
			img.Names = strings.Fields(string(names))
			return img, nil
		}
		if attempt == 3 {
			return nil, fmt.Errorf("listing the names of %s: %w", image, err)
		}
		time.Sleep(time.Second)
	}
}

// IsManifestList reports whether storage holds a manifest list of that name. Inspect, Mount
// and Push take a list's name for its image of this machine's platform.
func (b *Builder) IsManifestList(ctx context.Context, name string) bool {
	_, err := b.buildah(ctx, "manifest", "exists", name)
	return err == nil
}

// ManifestList returns the manifest list of that name in storage: its images' digests and
// platforms.
func (b *Builder) ManifestList(ctx context.Context, name string) (*ocispec.Index, error) {
	out, err := b.buildah(ctx, "manifest", "inspect", name)
	if err != nil {
		return nil, err
	}
	var index ocispec.Index
	if err := json.Unmarshal(out, &index); err != nil {
		return nil, fmt.Errorf("buildah manifest inspect %s: %w", name, err)
	}
	return &index, nil
}

// Remove deletes images from storage; names that are absent are ignored.
func (b *Builder) Remove(ctx context.Context, images ...string) error {
	for _, image := range images {
		if !b.Exists(ctx, image) {
			continue
		}
		if _, err := b.buildah(ctx, "rmi", "--force", image); err != nil {
			return err
		}
	}
	return nil
}

// Mount makes a working container of image and mounts its root filesystem. It returns the
// mount point and a release function that unmounts and deletes the container; writes under the
// mount point go to that container, never to the image.
func (b *Builder) Mount(ctx context.Context, image string) (string, func() error, error) {
	out, err := b.buildah(ctx, "from", "--pull=false", "--quiet", image)
	if err != nil {
		return "", nil, err
	}
	container := strings.TrimSpace(string(out))
	release := func() error {
		// The context may be done by now; cleanup must still happen.
		_, err := b.buildah(context.Background(), "rm", container)
		return err
	}
	out, err = b.buildah(ctx, "mount", container)
	if err != nil {
		return "", nil, errors.Join(err, release())
	}
	return strings.TrimSpace(string(out)), release, nil
}

// Size is the number of bytes in the regular files of image's filesystem: what the image
// occupies unpacked on a node, before compression for transfer.
func (b *Builder) Size(ctx context.Context, image string) (int64, error) {
	root, release, err := b.Mount(ctx, image)
	if err != nil {
		return 0, err
	}
	defer func() { _ = release() }()
	var size int64
	err = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		size += info.Size()
		return nil
	})
	return size, err
}

// buildah runs buildah with args and returns its standard output. Its standard error goes to
// b.Log and, when it fails, into the error.
func (b *Builder) buildah(ctx context.Context, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "buildah", args...)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if b.Log != nil && args[0] == "bud" {
		// A build's steps print their progress on standard output.
		cmd.Stdout = io.MultiWriter(&stdout, b.Log)
		cmd.Stderr = io.MultiWriter(&stderr, b.Log)
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("buildah %s: %w: %s", strings.Join(args, " "), err, Tail(stderr.String(), 40))
	}
	return stdout.Bytes(), nil
}

// Tail is the last lines of s, a command's output or a process's log: where a failure says
// what went wrong.
func Tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(parts[max(0, len(parts)-lines):], "\n")
}

// StaticELF returns nil when path is an ELF executable that needs no dynamic loader and no
// shared library, so that it runs in an image without libc; otherwise it says what it needs.
func StaticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked: it needs a program interpreter")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return err
	}
	if len(libs) > 0 {
		return fmt.Errorf("dynamically linked: it needs %s", strings.Join(libs, ", "))
	}
	return nil
}

// HumanSize writes n bytes in kB or MB (SI), as registries and container tools report sizes.
func HumanSize(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
