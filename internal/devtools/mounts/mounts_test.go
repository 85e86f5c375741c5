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

package mounts

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	. "github.com/onsi/gomega"
)

// TestUnmountThroughASymlink: a directory reached through a symbolic link (a kubelet's root
// under a bin/ linked to another checkout's) has its mounts found and detached, deepest first.
func TestUnmountThroughASymlink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root: make test runs as root in CI")
	}
	g := NewWithT(t)
	tmp := t.TempDir()
	target := filepath.Join(tmp, "real")
	outer, inner := filepath.Join(target, "pods", "volume"), filepath.Join(target, "pods", "volume", "inner")
	g.Expect(os.MkdirAll(outer, 0o755)).To(Succeed())
	g.Expect(syscall.Mount("tmpfs", outer, "tmpfs", 0, "")).To(Succeed())
	t.Cleanup(func() { _ = syscall.Unmount(outer, syscall.MNT_DETACH) })
	g.Expect(os.Mkdir(inner, 0o755)).To(Succeed())
	g.Expect(syscall.Mount("tmpfs", inner, "tmpfs", 0, "")).To(Succeed())
	t.Cleanup(func() { _ = syscall.Unmount(inner, syscall.MNT_DETACH) })
	link := filepath.Join(tmp, "link")
	g.Expect(os.Symlink(target, link)).To(Succeed())

	g.Expect(Under(link)).To(Equal([]string{inner, outer}), "deepest first, by their real paths")
	g.Expect(Unmount(link)).To(Succeed())
	g.Expect(Under(target)).To(BeEmpty())
	g.Expect(os.RemoveAll(target)).To(Succeed(), "nothing left busy")
}
