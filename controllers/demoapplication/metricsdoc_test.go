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

package demoapplication

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestMetricsReference checks that the metrics reference documents every series of an app,
// under its name and with its help text.
func TestMetricsReference(t *testing.T) {
	g := NewWithT(t)
	doc, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "reference", "metrics.md"))
	g.Expect(err).NotTo(HaveOccurred())
	registry := prometheus.NewRegistry()
	for _, m := range appMetrics {
		g.Expect(registry.Register(m)).To(Succeed())
	}
	app := testApp()
	recordMetrics(app)
	defer forgetMetrics(client.ObjectKeyFromObject(app))
	families, err := registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(families).To(HaveLen(len(appMetrics)))
	for _, f := range families {
		g.Expect(string(doc)).To(ContainSubstring("| `%s` |", f.GetName()), "docs/reference/metrics.md names %s", f.GetName())
		g.Expect(string(doc)).To(ContainSubstring(f.GetHelp()), "docs/reference/metrics.md says what %s is", f.GetName())
	}
}
