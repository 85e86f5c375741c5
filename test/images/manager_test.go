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
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/testenv"
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

	t.Run("runs as 65532 on a read-only root and gets ready against an API server", func(t *testing.T) {
		g := NewWithT(t)
		env, err := testenv.New()
		g.Expect(err).NotTo(HaveOccurred())
		_, err = env.Start()
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { g.Expect(env.Stop()).To(Succeed()) }()
		admin, err := env.ControlPlane.AddUser(envtest.User{Name: "image-test", Groups: []string{"system:masters"}}, nil)
		g.Expect(err).NotTo(HaveOccurred())
		kubeconfig, err := admin.KubeConfig()
		g.Expect(err).NotTo(HaveOccurred())
		kubeconfigPath := filepath.Join(t.TempDir(), "kubeconfig")
		g.Expect(os.WriteFile(kubeconfigPath, kubeconfig, 0o644)).To(Succeed())

		// The host's network is the container's: probes and metrics on free ports.
		probes, metrics := freePort(t), freePort(t)
		var out bytes.Buffer
		container, err := builder.Start(ctx, name, imagebuild.RunOptions{
			Args: []string{"--health-probe-bind-address=127.0.0.1:" + probes, "--metrics-bind-address=127.0.0.1:" + metrics},
			Env:  []string{"KUBECONFIG=/etc/demo-operator/kubeconfig"},
			Mounts: []imagebuild.Mount{
				{Source: kubeconfigPath, Destination: "/etc/demo-operator/kubeconfig", ReadOnly: true},
			},
			ReadOnlyRoot: true,
			Stdout:       &out, Stderr: &out,
		})
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { g.Expect(container.Stop()).To(Succeed()) }()

		g.Eventually(func(g Gomega) {
			select {
			case <-container.Done():
				StopTrying("the manager exited:\n" + out.String()).Now()
			default:
			}
			res, err := http.Get("http://127.0.0.1:" + probes + "/readyz")
			g.Expect(err).NotTo(HaveOccurred())
			_ = res.Body.Close()
			g.Expect(res.StatusCode).To(Equal(http.StatusOK))
		}).WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Succeed(), func() string { return out.String() })

		pid, err := container.Pid()
		g.Expect(err).NotTo(HaveOccurred())
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(status)).To(MatchRegexp(`(?m)^Uid:\s+65532\s+65532\s+65532\s+65532$`))
		g.Expect(string(status)).To(MatchRegexp(`(?m)^Gid:\s+65532\s+65532\s+65532\s+65532$`))
		mounts, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(mounts)).To(MatchRegexp(`(?m)^\S+ \S+ \S+ \S+ / ro[, ]`), "the root is mounted read-only")
	})
}
