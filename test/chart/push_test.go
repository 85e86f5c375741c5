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

package chart_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestPushToOCIRegistry runs make helm-push on a copy of the repository against a Distribution
// registry over plain HTTP, and pulls the chart back from oci://<registry>/charts/demo-operator
// with the helm CLI, as Flux and Argo CD fetch it.
func TestPushToOCIRegistry(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	registry, err := imagebuild.StartRegistry(ctx, t.TempDir())
	testenv.Require(t, err)
	t.Cleanup(func() { _ = registry.Stop() })

	dir := t.TempDir()
	g.Expect(sdkbundle.Make(ctx, dir, "helm-push", map[string]string{"CHART_REGISTRY": registry.Host,
		"INSECURE_REGISTRY": "true", "CHART_PACKAGES": filepath.Join(dir, "packages")}, "helm")).To(Succeed())

	ch := loadChart(t)
	ref := "oci://" + registry.Host + "/charts/" + ch.Name()
	var pulled struct{ Name, Version, AppVersion string }
	g.Expect(yaml.Unmarshal([]byte(helmCLI(t, "show", "chart", ref, "--version", ch.Metadata.Version, "--plain-http")), &pulled)).To(Succeed())
	g.Expect(pulled.Name).To(Equal(ch.Name()))
	g.Expect(pulled.Version).To(Equal(ch.Metadata.Version))
	g.Expect(pulled.AppVersion).To(Equal(ch.Metadata.AppVersion))

	rendered := parseManifest(t, helmCLI(t, "template", releaseName, ref, "--version", ch.Metadata.Version, "--plain-http",
		"--namespace", releaseNamespace, "--no-hooks"))
	g.Expect(rendered.keys()).To(Equal(mustRender(t, nil).keys()))
}
