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

package bundle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	. "github.com/onsi/gomega"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/model"
	"github.com/operator-framework/operator-registry/alpha/property"

	"github.com/cmft/demo-operator/internal/devtools/olm"
	"github.com/cmft/demo-operator/internal/test/sdkbundle"
)

const catalogDir = root + "/catalog/demo-operator"

func TestCatalogIsCurrent(t *testing.T) {
	g := NewWithT(t)
	tmp := copyCatalog(t)
	o := olm.CatalogOptions{BundleDir: bundleDir, CatalogDir: tmp, BundleImage: defaultBundleImage(t)}
	g.Expect(olm.GenerateCatalog(o)).To(Succeed())
	g.Expect(treeOf(t, tmp)).To(Equal(treeOf(t, catalogDir)), "catalog/ is stale: run make catalog")
}

// defaultBundleImage is the bundle image make catalog names by default: BUNDLE_IMG, the
// manager's IMAGE_TAG_BASE with -bundle and the version as a v-prefixed tag.
func defaultBundleImage(t *testing.T) string {
	t.Helper()
	csv := readCSV(t)
	base, _, found := strings.Cut(csv.Annotations["containerImage"], ":"+csv.Spec.Version.String())
	NewWithT(t).Expect(found).To(BeTrue(), "the CSV's containerImage %q is not tagged with its version", csv.Annotations["containerImage"])
	return base + "-bundle:v" + csv.Spec.Version.String()
}

// TestCatalogBundlesNameTheirImages fails when an olm.bundle of catalog/ names no image:
// operator-framework's file-based catalog docs require it, OLM v0's catalog operator pulls and
// unpacks it, and OLM v1's ClusterExtension installs nothing else.
func TestCatalogBundlesNameTheirImages(t *testing.T) {
	g := NewWithT(t)
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(catalogDir))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Bundles).NotTo(BeEmpty())
	for _, b := range cfg.Bundles {
		g.Expect(b.Image).NotTo(BeEmpty(), "olm.bundle %s names no image: run make catalog CATALOG_BUNDLE_IMG=<its bundle image>", b.Name)
		g.Expect(b.RelatedImages).To(ContainElement(HaveField("Image", b.Image)), "olm.bundle %s: relatedImages lack its image", b.Name)
	}
	t.Run("make catalog refuses a bundle without an image", func(t *testing.T) {
		err := olm.GenerateCatalog(olm.CatalogOptions{BundleDir: bundleDir, CatalogDir: copyCatalog(t)})
		NewWithT(t).Expect(err).To(MatchError(ContainSubstring("image is required")))
	})
}

func TestCatalogServesTheBundle(t *testing.T) {
	g := NewWithT(t)
	m := loadModel(t, catalogDir)
	csv := readCSV(t)
	g.Expect(m).To(HaveKey("demo-operator"))
	pkg := m["demo-operator"]

	t.Run("every channel leads to the current version", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(pkg.DefaultChannel.Name).To(Equal("stable"))
		g.Expect(pkg.Channels).To(HaveKey("candidate"))
		for name, ch := range pkg.Channels {
			head, err := ch.Head()
			g.Expect(err).NotTo(HaveOccurred(), name)
			g.Expect(head.Name).To(Equal(csv.Name), name)
		}
	})
	t.Run("the bundle names its image and embeds its manifests", func(t *testing.T) {
		g := NewWithT(t)
		b := pkg.Channels["stable"].Bundles[csv.Name]
		g.Expect(b).NotTo(BeNil())
		// OLM unpacks the image; the embedded manifests are what opm and packageserver show.
		g.Expect(b.Image).To(Equal(defaultBundleImage(t)))
		props, err := property.Parse(b.Properties)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(props.BundleObjects).To(HaveLen(len(treeOf(t, bundleDir+"/manifests"))))
		g.Expect(props.Packages).To(ConsistOf(property.Package{PackageName: "demo-operator", Version: csv.Spec.Version.String()}))
		g.Expect(props.GVKs).To(ConsistOf(
			property.GVK{Group: "paas.cmft.com", Kind: "DemoApplication", Version: "v1"},
			property.GVK{Group: "paas.cmft.com", Kind: "DemoApplication", Version: "v1beta1"},
		))
		g.Expect(b.CsvJSON).NotTo(BeEmpty())
	})
}

// TestCatalogUpgradesToALaterRelease releases the next minor version from today's config/ and
// checks that it upgrades the current one in every channel.
func TestCatalogUpgradesToALaterRelease(t *testing.T) {
	g := NewWithT(t)
	current := readCSV(t)
	next := semver.Version{Major: current.Spec.Version.Major, Minor: current.Spec.Version.Minor + 1}
	// make bundle on a copy of the repository, for the next release of the same image repository.
	tmp := t.TempDir()
	image := strings.TrimSuffix(current.Annotations["containerImage"], current.Spec.Version.String()) + next.String()
	g.Expect(sdkbundle.Generate(context.Background(), tmp, sdkbundle.Options{Version: next.String(), Image: image})).To(Succeed())
	catalog := copyCatalog(t)
	g.Expect(olm.GenerateCatalog(olm.CatalogOptions{BundleDir: filepath.Join(tmp, "bundle"), CatalogDir: catalog,
		BundleImage: "ghcr.io/cmft/demo-operator-bundle:v" + next.String()})).To(Succeed())

	pkg := loadModel(t, catalog)["demo-operator"]
	for name, ch := range pkg.Channels {
		head, err := ch.Head()
		g.Expect(err).NotTo(HaveOccurred(), name)
		g.Expect(head.Name).To(Equal("demo-operator.v"+next.String()), name)
		g.Expect(head.Replaces).To(Equal(current.Name), name)
		g.Expect(head.SkipRange).To(Equal("<"+next.String()), name)
		g.Expect(ch.Bundles).To(HaveKey(current.Name), name)
	}
}

// loadModel loads a catalog directory and validates it as `opm validate` does.
func loadModel(t *testing.T, dir string) model.Model {
	t.Helper()
	g := NewWithT(t)
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	g.Expect(err).NotTo(HaveOccurred())
	m, err := declcfg.ConvertToModel(*cfg)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Validate()).To(Succeed())
	return m
}

func copyCatalog(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo-operator")
	NewWithT(t).Expect(os.CopyFS(dir, os.DirFS(catalogDir))).To(Succeed())
	return dir
}
