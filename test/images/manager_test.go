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

package images

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"regexp"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cmft/demo-operator/internal/imagebuild"
	"github.com/cmft/demo-operator/internal/manager"
)

func TestManagerImage(t *testing.T) {
	name := image(t, managerImage)
	ctx := context.Background()

	t.Run("runs /manager as nonroot 65532", func(t *testing.T) {
		g := NewWithT(t)
		img, err := builder.Inspect(ctx, name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(img.OCI.Config.Entrypoint).To(Equal([]string{"/manager"}))
		g.Expect(img.OCI.Config.User).To(Equal("65532:65532"))
	})

	t.Run("the binary is static, in an image without libc", func(t *testing.T) {
		g := NewWithT(t)
		root, release, err := builder.Mount(ctx, name)
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { g.Expect(release()).To(Succeed()) }()
		g.Expect(imagebuild.StaticELF(filepath.Join(root, "manager"))).To(Succeed())
		libc, err := filepath.Glob(filepath.Join(root, "*", "*", "libc.so*"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(libc).To(BeEmpty())
	})

	t.Run("--help exits 0 on a read-only root and lists the flags", func(t *testing.T) {
		g := NewWithT(t)
		var out bytes.Buffer
		err := builder.Run(ctx, name, imagebuild.RunOptions{
			Args: []string{"--help"}, ReadOnlyRoot: true, Stdout: &out, Stderr: &out,
		})
		g.Expect(err).NotTo(HaveOccurred(), out.String())
		// The flags main.go registers: the manager's and zap's.
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		new(manager.Options).BindFlags(fs)
		new(zap.Options).BindFlags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			g.Expect(out.String()).To(MatchRegexp(`(?m)^\s+-`+regexp.QuoteMeta(f.Name)+`(\s|$)`), "the help lists -%s", f.Name)
		})
	})
}
