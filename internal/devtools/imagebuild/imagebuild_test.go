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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/devtools/mounts"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"golang:1.26":                       "docker.io/library/golang:1.26",
		"busybox":                           "docker.io/library/busybox:latest",
		"grpc/health:v1":                    "docker.io/grpc/health:v1",
		"gcr.io/distroless/static:nonroot":  "gcr.io/distroless/static:nonroot",
		"localhost/pause:3.10":              "localhost/pause:3.10",
		"127.0.0.1:5000/app":                "127.0.0.1:5000/app:latest",
		"quay.io/o/opm@sha256:0123456789ab": "quay.io/o/opm@sha256:0123456789ab",
	} {
		NewWithT(t).Expect(Normalize(in)).To(Equal(want), in)
	}
}

func TestBaseImages(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "Dockerfile")
	g.Expect(os.WriteFile(path, []byte(`FROM --platform=$BUILDPLATFORM golang:1.26 AS builder
RUN true
from builder as test
FROM scratch AS empty
FROM gcr.io/distroless/static:nonroot
COPY --from=builder /x /x
FROM golang:1.26
`), 0o644)).To(Succeed())
	g.Expect(BaseImages(path)).To(Equal([]string{GolangImage, DistrolessStaticImage}))
}

// TestAssembleRunPush makes an image from scratch out of busybox, runs it as its user on a
// read-only root, and pushes it to an OCI archive.
func TestAssembleRunPush(t *testing.T) {
	testenv.Require(t, Available())
	g := NewWithT(t)
	ctx := context.Background()
	busybox, err := exec.LookPath("busybox")
	g.Expect(err).NotTo(HaveOccurred())
	b := &Builder{}
	name := fmt.Sprintf("localhost/imagebuild-test:%d", os.Getpid())
	t.Cleanup(func() { _ = b.Remove(context.Background(), name) })

	_, err = b.Assemble(ctx, ImageSpec{
		Name: name,
		Files: []File{
			{Path: "/bin/busybox", Source: busybox},
			{Path: "/bin/sh", Link: "busybox"},
			{Path: "/etc/message", Content: []byte("hello\n"), Mode: 0o600, UID: 65532, GID: 65532},
			{Path: "/tmp", Dir: true, Mode: 0o777 | os.ModeSticky},
		},
		Entrypoint: []string{"/bin/sh", "-c"},
		Cmd:        []string{"cat /etc/message"},
		User:       "65532:65532",
		Labels:     map[string]string{"purpose": "test"},
	})
	g.Expect(err).NotTo(HaveOccurred())

	img, err := b.Inspect(ctx, name)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(img.OCI.Config.Entrypoint).To(Equal([]string{"/bin/sh", "-c"}))
	g.Expect(img.OCI.Config.User).To(Equal("65532:65532"))
	g.Expect(img.OCI.Config.Labels).To(HaveKeyWithValue("purpose", "test"))
	g.Expect(img.Names).To(ContainElement(name))

	root, release, err := b.Mount(ctx, name)
	g.Expect(err).NotTo(HaveOccurred())
	tmp, err := os.Stat(filepath.Join(root, "tmp"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(tmp.Mode()&os.ModeSticky).NotTo(BeZero(), "/tmp keeps its sticky bit")
	g.Expect(release()).To(Succeed())

	var out bytes.Buffer
	g.Expect(b.Run(ctx, name, RunOptions{Stdout: &out, Stderr: &out})).To(Succeed(), out.String())
	g.Expect(out.String()).To(Equal("hello\n"), "the image's CMD runs as its user, who owns the file")

	// Two buffers: the pipes are copied by goroutines of their own, so one buffer for both
	// would interleave them in any order.
	var stdout, stderr bytes.Buffer
	err = b.Run(ctx, name, RunOptions{
		Args:         []string{"id -u; id -g; touch /x || exit 3"},
		ReadOnlyRoot: true,
		Stdout:       &stdout, Stderr: &stderr,
	})
	var exit *exec.ExitError
	g.Expect(errors.As(err, &exit)).To(BeTrue(), "%v: %s", err, stderr.String())
	g.Expect(exit.ExitCode()).To(Equal(3), stderr.String())
	g.Expect(stdout.String()).To(Equal("65532\n65532\n"))
	g.Expect(stderr.String()).To(ContainSubstring("Read-only file system"))

	size, err := b.Size(ctx, name)
	g.Expect(err).NotTo(HaveOccurred())
	info, err := os.Stat(busybox)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(size).To(Equal(info.Size() + int64(len("hello\n"))))

	archive := filepath.Join(t.TempDir(), "image.tar")
	g.Expect(b.Push(ctx, name, "oci-archive:"+archive+":test", PushOptions{})).To(Succeed())
	g.Expect(archive).To(BeAnExistingFile())
}

// TestDockerdLeavesNothing starts a Docker daemon of the test's own, loads an image into it,
// and stops it: no process, mount (its network namespace's nsfs, overlays) or file is left.
func TestDockerdLeavesNothing(t *testing.T) {
	testenv.Require(t, Available())
	if _, err := exec.LookPath("dockerd"); err != nil {
		testenv.Require(t, fmt.Errorf("dockerd is not installed: %w", err))
	}
	g := NewWithT(t)
	ctx := context.Background()
	b := &Builder{}
	name := fmt.Sprintf("localhost/imagebuild-dockerd-test:%d", os.Getpid())
	t.Cleanup(func() { _ = b.Remove(context.Background(), name) })
	busybox, err := exec.LookPath("busybox")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = b.Assemble(ctx, ImageSpec{Name: name, Files: []File{{Path: "/bin/busybox", Source: busybox}}, Entrypoint: []string{"/bin/busybox"}})
	g.Expect(err).NotTo(HaveOccurred())

	parent := t.TempDir()
	d, err := StartDockerd(ctx, parent)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Load(ctx, b, name)).To(Succeed())
	out, err := d.Docker(ctx, "image", "inspect", "--format", "{{json .Config.Entrypoint}}", name).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	g.Expect(string(out)).To(Equal("[\"/bin/busybox\"]\n"))
	// A container in the host's network, as the RUN steps of docker build --network host: the
	// daemon then mounts the host's network namespace under its exec root, and leaves it.
	out, err = d.Docker(ctx, "run", "--rm", "--network", "host", name, "true").CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	left, err := mounts.Under(parent)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(left).To(ContainElement(HaveSuffix("/netns/default")))

	g.Expect(d.Stop()).To(Succeed())
	g.Expect(d.cmd.ProcessState.Exited()).To(BeTrue())
	left, err = mounts.Under(parent)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(left).To(BeEmpty())
	entries, err := os.ReadDir(parent)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(entries).To(BeEmpty())
}
