//go:build olmnode

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

package node

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestSignedReleaseVerifies signs a release as make sign does, against the cluster's TLS
// registry: the manager image, the bundle, the catalog and the chart make helm-push publishes,
// with the manager's SBOM attested; make verify-signatures passes with the public key, and fails
// once the manager's tag is re-pushed with other content. The manager is signed under a tag of its
// own, so that the re-push leaves the image the other tests install alone.
func TestSignedReleaseVerifies(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	keys := t.TempDir()
	t.Setenv("COSIGN_PASSWORD", "demo-operator-test")
	// Built now rather than before the tier: CI's image tier builds them meanwhile, at idle priority.
	build := exec.CommandContext(ctx, "make", "-C", testenv.Root(), "sign-tools")
	out, err := build.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	cosign, err := testenv.Tool("cosign")
	g.Expect(err).NotTo(HaveOccurred())
	generate := exec.CommandContext(ctx, cosign, "generate-key-pair")
	generate.Dir = keys
	out, err = generate.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))

	r := releases[0]
	b := &imagebuild.Builder{}
	manager := cluster.RegistryHost() + "/demo-operator-signed:" + r.version
	g.Expect(cluster.PushImage(ctx, b, localImages[r.managerImage], manager)).To(Succeed())

	dir := t.TempDir()
	ca := cluster.RegistryCAFile()
	g.Expect(sdkbundle.Make(ctx, dir, "helm-push", map[string]string{"VERSION": r.version,
		"CHART_REGISTRY": cluster.SecureRegistryHost(), "CHART_REGISTRY_CA_FILE": ca,
		"CHART_PACKAGES": filepath.Join(dir, "packages")}, "helm")).To(Succeed())
	vars := map[string]string{"IMG": cluster.SecureImage(manager), "BUNDLE_IMG": cluster.SecureImage(r.bundle),
		"CATALOG_IMG": cluster.SecureImage(catalogImage), "CHART_REGISTRY": cluster.SecureRegistryHost(),
		"REGISTRY_CA_FILE": ca, "COSIGN_KEY": filepath.Join(keys, "cosign.key"),
		"COSIGN_PUBLIC_KEY": filepath.Join(keys, "cosign.pub")}
	g.Expect(sdkbundle.Make(ctx, dir, "sign", vars, "cosign", "syft")).To(Succeed())
	g.Expect(sdkbundle.Make(ctx, dir, "verify-signatures", vars, "cosign")).To(Succeed())

	// The bundle's image under the manager's tag: a digest the signatures do not name.
	g.Expect(cluster.PushImage(ctx, b, localImages[r.bundle], manager)).To(Succeed())
	err = sdkbundle.Make(ctx, dir, "verify-signatures", vars, "cosign")
	g.Expect(err).To(MatchError(ContainSubstring("no signatures found")))
}
