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
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// The base images the project's Dockerfiles name, as containers-storage names them.
const (
	GolangImage           = "docker.io/library/golang:1.26"
	DistrolessStaticImage = "gcr.io/distroless/static:nonroot"
	OPMImage              = "quay.io/operator-framework/opm:v1.60.0"
)

// StandInLabel marks an image EnsureBaseImages made; its value identifies the recipe and its
// inputs, so that a changed recipe or toolchain remakes the image. An image of the same name
// without it came from a registry and is never replaced.
const StandInLabel = "io.github.cmft.demo-operator.stand-in"

// Platforms are the platforms the shipped images are built for (make docker-buildx), and so the
// platforms of the distroless stand-in the manager's final stage starts from: a manifest list of
// one image per platform, as the public image is.
var Platforms = []string{"linux/amd64", "linux/arm64", "linux/s390x", "linux/ppc64le"}

// OPMPlatforms are the platforms of the opm stand-in, and so those a catalog built here can have:
// the build machine's and arm64, which the tests run under emulation. The catalog's Dockerfile
// adds files of every platform to opm's image, so its platforms are opm's; each more platform
// here would cross-compile opm and grpc_health_probe once more, testing only this recipe.
var OPMPlatforms = []string{"linux/amd64", "linux/arm64"}

// standIn is the recipe of one stand-in: its inputs' identity and how to assemble it.
type standIn struct {
	// needs are stand-ins this one starts from.
	needs []string
	// platforms, when set, make the stand-in a manifest list with an image for each; without
	// them (the builder stage's golang) it exists for the build machine's platform only.
	platforms []string
	// make returns the stand-in's spec for an architecture (GOARCH's names) and the identity of
	// its inputs.
	make func(ctx context.Context, root, arch string) (ImageSpec, string, func(), error)
}

// standIns are the recipes, by image name. Each is a faithful local copy of the public image,
// from parts this machine has: the same paths, user, environment and entrypoint.
var standIns = map[string]standIn{
	GolangImage:           {make: golangStandIn},
	DistrolessStaticImage: {platforms: Platforms, make: distrolessStaticStandIn},
	OPMImage:              {needs: []string{DistrolessStaticImage}, platforms: OPMPlatforms, make: opmStandIn},
}

// PlatformImage names the image of one architecture in a multi-arch stand-in, as distroless
// and opm publish theirs: the list's tag, a dash and the architecture
// ("gcr.io/distroless/static:nonroot-arm64").
func PlatformImage(image, arch string) string {
	return Normalize(image) + "-" + arch
}

// BaseImages returns the images the FROM lines of Dockerfiles name, normalized as
// containers-storage names them ("golang:1.26" is "docker.io/library/golang:1.26"), without
// scratch or the Dockerfiles' own stages.
func BaseImages(dockerfiles ...string) ([]string, error) {
	var images []string
	for _, dockerfile := range dockerfiles {
		f, err := os.Open(dockerfile)
		if err != nil {
			return nil, err
		}
		stages := map[string]bool{"scratch": true}
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			fields := strings.Fields(scanner.Text())
			if len(fields) < 2 || !strings.EqualFold(fields[0], "FROM") {
				continue
			}
			fields = slices.DeleteFunc(fields[1:], func(s string) bool { return strings.HasPrefix(s, "--") })
			if len(fields) == 0 {
				continue
			}
			if image := fields[0]; !stages[strings.ToLower(image)] && !slices.Contains(images, Normalize(image)) {
				images = append(images, Normalize(image))
			}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				stages[strings.ToLower(fields[2])] = true
			}
		}
		err = errors.Join(scanner.Err(), f.Close())
		if err != nil {
			return nil, err
		}
	}
	return images, nil
}

// Normalize names an image as containers-storage and Docker resolve a short name: the Docker
// Hub registry and its library/ namespace when none is given, and the tag latest when neither
// tag nor digest is.
func Normalize(image string) string {
	first, _, hasSlash := strings.Cut(image, "/")
	switch {
	case !hasSlash:
		image = "docker.io/library/" + image
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		image = "docker.io/" + image
	}
	last := image[strings.LastIndex(image, "/")+1:]
	if !strings.ContainsAny(last, ":@") {
		image += ":latest"
	}
	return image
}

// EnsureBaseImages makes a local stand-in for each of images that storage lacks, or holds as
// an outdated stand-in. root is the repository, whose hack/olm.sh builds opm into bin/. An image
// without a recipe is an error that names it; so is a Dockerfile moving to a base this package
// cannot make (a new Go minor needs that Go installed). Concurrent callers on one machine make
// each image once.
func (b *Builder) EnsureBaseImages(ctx context.Context, root string, images ...string) error {
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "imagebuild-stand-ins.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	done := map[string]bool{}
	var ensure func(image string) error
	ensure = func(image string) error {
		image = Normalize(image)
		if done[image] {
			return nil
		}
		done[image] = true
		recipe, ok := standIns[image]
		if !ok {
			if b.Exists(ctx, image) {
				return nil
			}
			return fmt.Errorf("base image %s is not in local storage and there is no local stand-in for it (internal/devtools/imagebuild knows %s)",
				image, strings.Join(slices.Sorted(maps.Keys(standIns)), ", "))
		}
		for _, need := range recipe.needs {
			if err := ensure(need); err != nil {
				return err
			}
		}
		if recipe.platforms == nil {
			return b.ensureStandIn(ctx, root, image, recipe, runtime.GOARCH)
		}
		if fromRegistry, err := b.pulled(ctx, image); fromRegistry || err != nil {
			return err
		}
		var images []string
		for _, platform := range recipe.platforms {
			arch := path.Base(platform)
			name := PlatformImage(image, arch)
			if err := b.ensureStandIn(ctx, root, name, recipe, arch); err != nil {
				return err
			}
			images = append(images, name)
		}
		return b.ensureManifestList(ctx, image, images)
	}
	for _, image := range images {
		if err := ensure(image); err != nil {
			return err
		}
	}
	return nil
}

// ensureStandIn makes name from recipe for arch, unless storage holds it already: as a stand-in
// of the same identity and architecture, or as an image from a registry.
func (b *Builder) ensureStandIn(ctx context.Context, root, name string, recipe standIn, arch string) error {
	spec, identity, cleanup, err := recipe.make(ctx, root, arch)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return fmt.Errorf("stand-in for %s: %w", name, err)
	}
	if b.Exists(ctx, name) {
		img, err := b.Inspect(ctx, name)
		if err != nil {
			return err
		}
		label, isStandIn := img.OCI.Config.Labels[StandInLabel]
		if !isStandIn || (label == identity && img.OCI.Architecture == arch) {
			return nil
		}
	}
	spec.Name, spec.Arch = name, arch
	spec.Labels = map[string]string{StandInLabel: identity}
	if _, err := b.Assemble(ctx, spec); err != nil {
		return fmt.Errorf("stand-in for %s: %w", name, err)
	}
	return nil
}

// pulled reports whether storage holds image as a single image that is no stand-in: one a user
// pulled from a registry, which is never replaced.
func (b *Builder) pulled(ctx context.Context, image string) (bool, error) {
	if !b.Exists(ctx, image) || b.IsManifestList(ctx, image) {
		return false, nil
	}
	img, err := b.Inspect(ctx, image)
	if err != nil {
		return false, err
	}
	_, isStandIn := img.OCI.Config.Labels[StandInLabel]
	return !isStandIn, nil
}

// ensureManifestList makes list the manifest list of images, unless it is already; a single
// stand-in image of that name (made before the stand-ins were multi-arch) is replaced.
func (b *Builder) ensureManifestList(ctx context.Context, list string, images []string) error {
	var want []string
	for _, image := range images {
		img, err := b.Inspect(ctx, image)
		if err != nil {
			return err
		}
		want = append(want, img.Digest)
	}
	if b.IsManifestList(ctx, list) {
		index, err := b.ManifestList(ctx, list)
		if err != nil {
			return err
		}
		var have []string
		for _, m := range index.Manifests {
			have = append(have, m.Digest.String())
		}
		if slices.Equal(slices.Sorted(slices.Values(have)), slices.Sorted(slices.Values(want))) {
			return nil
		}
		if _, err := b.buildah(ctx, "manifest", "rm", list); err != nil {
			return err
		}
	} else if err := b.Remove(ctx, list); err != nil {
		return err
	}
	if _, err := b.buildah(ctx, "manifest", "create", list); err != nil {
		return err
	}
	for _, image := range images {
		if _, err := b.buildah(ctx, "manifest", "add", list, image); err != nil {
			return err
		}
	}
	return nil
}

// golangStandIn is the Go toolchain image: the installed Go (its minor must be the tag's), a
// shell and the usual commands from Debian's static busybox, CA certificates for the module
// proxy, and the official image's GOPATH, PATH and GOTOOLCHAIN.
func golangStandIn(ctx context.Context, _, _ string) (ImageSpec, string, func(), error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return ImageSpec{}, "", nil, fmt.Errorf("go env: %w", err)
	}
	goroot, version, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	tag := GolangImage[strings.LastIndex(GolangImage, ":")+1:]
	if !strings.HasPrefix(version, "go"+tag+".") && version != "go"+tag {
		return ImageSpec{}, "", nil, fmt.Errorf("the installed Go is %s, the image is Go %s", version, tag)
	}
	bin, cleanup, err := busyboxDir()
	if err != nil {
		return ImageSpec{}, "", cleanup, err
	}
	spec := ImageSpec{
		Files: append([]File{
			{Path: "/usr/local/go", Source: goroot},
			{Path: "/bin", Source: bin},
			{Path: "/etc/passwd", Content: []byte("root:x:0:0:root:/root:/bin/sh\n")},
			{Path: "/etc/group", Content: []byte("root:x:0:\n")},
			{Path: "/root", Dir: true, Mode: 0o700},
			{Path: "/go", Dir: true, Mode: 0o777 | os.ModeSticky},
			{Path: "/go/bin", Dir: true, Mode: 0o777},
			{Path: "/go/src", Dir: true, Mode: 0o777},
		}, systemFiles()...),
		Env: []string{
			"PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"GOLANG_VERSION=" + strings.TrimPrefix(version, "go"),
			"GOTOOLCHAIN=local",
			"GOPATH=/go",
		},
		WorkingDir: "/go",
		Cmd:        []string{"sh"},
	}
	return spec, "golang " + version + " recipe 2", cleanup, nil
}

// distrolessStaticStandIn is gcr.io/distroless/static:nonroot: no shell, no libc; users root,
// nobody and nonroot (65532), CA certificates, time zones, a sticky /tmp.
func distrolessStaticStandIn(context.Context, string, string) (ImageSpec, string, func(), error) {
	spec := ImageSpec{
		Files: append([]File{
			{Path: "/etc/passwd", Content: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
				"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
				"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
			{Path: "/etc/group", Content: []byte("root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:65532:\n")},
			{Path: "/usr/share/zoneinfo", Source: "/usr/share/zoneinfo"},
			{Path: "/root", Dir: true, Mode: 0o700},
			{Path: "/home/nonroot", Dir: true, Mode: 0o700, UID: 65532, GID: 65532},
		}, systemFiles()...),
		User:       "65532",
		WorkingDir: "/home/nonroot",
		Env: []string{
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		},
	}
	return spec, "distroless static nonroot recipe 2", nil, nil
}

// opmStandIn is operator-registry's opm image (release/goreleaser.opm.Dockerfile): distroless
// static:debug with opm, grpc_health_probe for OLM's catalog pod probes, and busybox in
// /busybox; user 1001, entrypoint /bin/opm. opm and grpc_health_probe are cross-compiled for
// arch at the versions hack/tools/opm pins. Debian's static busybox is the build machine's, so
// the images of other architectures go without it: nothing but a debugging user runs it.
func opmStandIn(ctx context.Context, root, arch string) (ImageSpec, string, func(), error) {
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack", "olm.sh"), "--opm")
	cmd.Env = append(os.Environ(), "GOARCH="+arch)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return ImageSpec{}, "", nil, fmt.Errorf("GOARCH=%s hack/olm.sh --opm: %w", arch, err)
	}
	dir := strings.TrimSpace(string(out))
	version, err := os.ReadFile(filepath.Join(dir, "opm.version"))
	if err != nil {
		return ImageSpec{}, "", nil, err
	}
	tag := OPMImage[strings.LastIndex(OPMImage, ":")+1:]
	if v := strings.TrimSpace(string(version)); v != tag {
		return ImageSpec{}, "", nil, fmt.Errorf("hack/tools/opm pins opm %s, the image is %s", v, tag)
	}
	spec := ImageSpec{
		Base: PlatformImage(DistrolessStaticImage, arch),
		Files: []File{
			{Path: "/bin/opm", Source: filepath.Join(dir, "opm")},
			{Path: "/bin/grpc_health_probe", Source: filepath.Join(dir, "grpc_health_probe")},
			{Path: "/etc/nsswitch.conf", Content: []byte("hosts: files dns\n")},
		},
		User:       "1001",
		WorkingDir: "/",
		Entrypoint: []string{"/bin/opm"},
		Env: []string{
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/busybox",
			"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		},
	}
	var cleanup func()
	if arch == runtime.GOARCH {
		var bin string
		bin, cleanup, err = busyboxDir()
		if err != nil {
			return ImageSpec{}, "", cleanup, err
		}
		spec.Files = append(spec.Files, File{Path: "/busybox", Source: bin})
	}
	return spec, "opm " + tag + " recipe 2", cleanup, nil
}

// systemFiles are what every stand-in has under /etc and /tmp.
func systemFiles() []File {
	return []File{
		{Path: "/etc/ssl/certs/ca-certificates.crt", Source: "/etc/ssl/certs/ca-certificates.crt"},
		{Path: "/etc/nsswitch.conf", Content: []byte("hosts: files dns\n")},
		{Path: "/tmp", Dir: true, Mode: 0o777 | os.ModeSticky},
	}
}

// busyboxDir makes a directory holding Debian's static busybox (busybox-static) and a link to it
// for each of its commands, as busybox --install makes them.
func busyboxDir() (string, func(), error) {
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		return "", nil, errors.New("busybox is not installed (Debian: apt-get install busybox-static)")
	}
	out, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		return "", nil, fmt.Errorf("busybox --list: %w", err)
	}
	if err := StaticELF(busybox); err != nil {
		return "", nil, fmt.Errorf("%s: %w (Debian: apt-get install busybox-static)", busybox, err)
	}
	dir, err := os.MkdirTemp("", "imagebuild-busybox-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	data, err := os.ReadFile(busybox)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "busybox"), data, 0o755)
	}
	for _, name := range strings.Fields(string(out)) {
		if err == nil && name != "busybox" {
			err = os.Symlink("busybox", filepath.Join(dir, name))
		}
	}
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	return dir, cleanup, err
}
