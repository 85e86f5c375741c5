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
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/pkg/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthv1 "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestCatalogImage runs the catalog image as a CatalogSource pod would (its entrypoint and
// command: opm serve of /configs) and asks it over gRPC, from the host, what OLM asks it.
func TestCatalogImage(t *testing.T) {
	name := image(t, catalogImage)
	g := NewWithT(t)
	ctx := context.Background()

	img, err := builder.Inspect(ctx, name)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(img.OCI.Config.Labels).To(HaveKeyWithValue("operators.operatorframework.io.index.configs.v1", "/configs"))

	// The containers share the host's network: serve on free ports rather than opm's 50051 and
	// 6060, which another process may hold.
	port, pprofPort := freePort(t), freePort(t)
	var out bytes.Buffer
	container, err := builder.Start(ctx, name, imagebuild.RunOptions{
		Args:   append(img.OCI.Config.Cmd, "--port="+port, "--pprof-addr=127.0.0.1:"+pprofPort),
		Stdout: &out, Stderr: &out,
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { g.Expect(container.Stop()).To(Succeed()) }()

	conn, err := grpc.NewClient("127.0.0.1:"+port, grpc.WithTransportCredentials(insecure.NewCredentials()))
	g.Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	// What OLM's catalog operator and grpc_health_probe check before they use a catalog.
	g.Eventually(func(g Gomega) {
		select {
		case <-container.Done():
			StopTrying("opm serve exited:\n" + out.String()).Now()
		default:
		}
		res, err := healthv1.NewHealthClient(conn).Check(ctx, &healthv1.HealthCheckRequest{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res.Status).To(Equal(healthv1.HealthCheckResponse_SERVING))
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())

	// The package and channels catalog/ declares, as the image serves them.
	cfg, err := declcfg.LoadFS(ctx, os.DirFS(filepath.Join(testenv.Root(), "catalog")))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Packages).To(HaveLen(1))
	pkg := cfg.Packages[0]
	channels := make([]string, 0, len(cfg.Channels))
	for _, ch := range cfg.Channels {
		channels = append(channels, ch.Name)
	}
	g.Expect(channels).To(ConsistOf("candidate", "stable"))

	registry := api.NewRegistryClient(conn)
	stream, err := registry.ListPackages(ctx, &api.ListPackageRequest{})
	g.Expect(err).NotTo(HaveOccurred())
	var served []string
	for {
		p, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		g.Expect(err).NotTo(HaveOccurred())
		served = append(served, p.Name)
	}
	g.Expect(served).To(ConsistOf(pkg.Name))

	got, err := registry.GetPackage(ctx, &api.GetPackageRequest{Name: pkg.Name})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.DefaultChannelName).To(Equal(pkg.DefaultChannel))
	servedChannels := make([]string, 0, len(got.Channels))
	for _, ch := range got.Channels {
		servedChannels = append(servedChannels, ch.Name)
		g.Expect(ch.CsvName).NotTo(BeEmpty(), "channel %s has a head bundle", ch.Name)
	}
	g.Expect(servedChannels).To(ConsistOf(channels))
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	addr, err := localcluster.FreeAddr()
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	_, port, err := net.SplitHostPort(addr)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return port
}
