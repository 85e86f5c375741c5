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

package manager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestMetricsCertPath serves metrics with the certificate a Secret mounts (as the chart's
// metrics.tls does), so that a scraper holding its CA verifies the endpoint by name.
func TestMetricsCertPath(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	dir := t.TempDir()
	const serverName = "demo-operator-metrics.demo-operator-system.svc"
	crt, key, err := certutil.GenerateSelfSignedCertKey(serverName, nil, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(dir, "tls.crt"), crt, 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(dir, "tls.key"), key, 0o600)).To(Succeed())

	opts := DefaultOptions()
	opts.MetricsCertPath = filepath.Join(dir, "missing")
	_, err = New(nil, opts)
	g.Expect(err).To(MatchError(ContainSubstring("--metrics-cert-path")), "a path without a certificate is refused at start")

	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	addr, err := localcluster.FreeAddr()
	g.Expect(err).NotTo(HaveOccurred())
	opts.MetricsAddr, opts.ProbeAddr, opts.MetricsCertPath = addr, "0", dir
	mgr, err := New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Logf("manager stopped: %v", err)
		}
	})

	roots := x509.NewCertPool()
	g.Expect(roots.AppendCertsFromPEM(crt)).To(BeTrue())
	g.Eventually(func() error {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: serverName})
		if err == nil {
			conn.Close()
		}
		return err
	}, 30*time.Second, 200*time.Millisecond).Should(Succeed(), "the scraper verifies the served certificate against the Secret's CA")
}
