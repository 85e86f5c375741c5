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

package olm

import (
	"path/filepath"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

const bundleImage = "registry.example.com/demo-operator-bundle:v0.1.0"

// committedBundle is bundle/ rendered as RenderBundleImage renders its image.
func committedBundle(t *testing.T) *declcfg.Bundle {
	t.Helper()
	b, _, err := RenderBundleDir(filepath.Join(testenv.Root(), "bundle"), bundleImage)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// release is b as the bundle of version, named for it.
func release(b declcfg.Bundle, version string) declcfg.Bundle {
	b.Name = b.Package + ".v" + version
	b.Properties = slices.Clone(b.Properties)
	for i, p := range b.Properties {
		if p.Type == property.TypePackage {
			b.Properties[i] = property.MustBuildPackage(b.Package, version)
		}
	}
	return b
}

func TestNewCatalogServesTheBundleAlone(t *testing.T) {
	g := NewWithT(t)
	b := committedBundle(t)
	cfg, err := NewCatalog(*b)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Packages).To(ConsistOf(HaveField("DefaultChannel", Channel)))
	g.Expect(cfg.Channels).To(ConsistOf(And(HaveField("Name", Channel), HaveField("Package", "demo-operator"),
		HaveField("Entries", Equal([]declcfg.ChannelEntry{{Name: "demo-operator.v0.1.0"}})))))
	// The registry pod serves what the ConfigMap holds, and OLM pulls the image it names.
	data, err := marshalCatalog(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	served, err := unmarshalCatalog(data)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(validate(served)).To(Succeed())
	g.Expect(served.Bundles).To(ConsistOf(And(HaveField("Name", "demo-operator.v0.1.0"), HaveField("Image", bundleImage))))
	g.Expect(Head(served)).To(Equal("demo-operator.v0.1.0"))
}

func TestAddHeadReplacesTheHead(t *testing.T) {
	g := NewWithT(t)
	b := committedBundle(t)
	cfg, err := NewCatalog(release(*b, "0.1.0"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(AddHead(cfg, release(*b, "0.1.1"))).To(Succeed())
	g.Expect(AddHead(cfg, release(*b, "0.2.0"))).To(Succeed())
	g.Expect(cfg.Channels[0].Entries).To(Equal([]declcfg.ChannelEntry{
		{Name: "demo-operator.v0.1.0"},
		{Name: "demo-operator.v0.1.1", Replaces: "demo-operator.v0.1.0"},
		{Name: "demo-operator.v0.2.0", Replaces: "demo-operator.v0.1.1"},
	}))
	g.Expect(Head(cfg)).To(Equal("demo-operator.v0.2.0"))
	g.Expect(cfg.Bundles).To(HaveLen(3))

	g.Expect(AddHead(cfg, release(*b, "0.2.0"))).To(MatchError(ContainSubstring("already in the catalog")))
	other := release(*b, "1.0.0")
	other.Package = "other"
	g.Expect(AddHead(cfg, other)).To(MatchError(ContainSubstring("the catalog serves demo-operator")))
	g.Expect(cfg.Bundles).To(HaveLen(3), "a refused bundle is not added")
}

func TestParseInstallMode(t *testing.T) {
	for in, want := range map[string]InstallMode{
		"":                      {},
		"AllNamespaces":         {Type: operatorsv1alpha1.InstallModeTypeAllNamespaces},
		"OwnNamespace":          {Type: operatorsv1alpha1.InstallModeTypeOwnNamespace},
		"SingleNamespace=apps":  {Type: operatorsv1alpha1.InstallModeTypeSingleNamespace, Namespaces: []string{"apps"}},
		"MultiNamespace=a,b,c":  {Type: operatorsv1alpha1.InstallModeTypeMultiNamespace, Namespaces: []string{"a", "b", "c"}},
		"OwnNamespace=x":        {},
		"SingleNamespace":       {},
		"SingleNamespace=a,b":   {},
		"MultiNamespace=a":      {},
		"MultiNamespace=a,":     {},
		"ownnamespace":          {},
		"AllNamespaces=default": {},
	} {
		got, err := ParseInstallMode(in)
		if want.Type == "" && in != "" {
			if err == nil {
				t.Errorf("ParseInstallMode(%q) = %v, want an error", in, got)
			}
			continue
		}
		if err != nil || got.String() != want.String() {
			t.Errorf("ParseInstallMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestInstallModeAndOperatorGroup(t *testing.T) {
	g := NewWithT(t)
	csv, err := bundleCSV(committedBundle(t))
	g.Expect(err).NotTo(HaveOccurred())
	ownOnly := csv.DeepCopy()
	ownOnly.Spec.InstallModes = []operatorsv1alpha1.InstallMode{{Type: operatorsv1alpha1.InstallModeTypeOwnNamespace, Supported: true},
		{Type: operatorsv1alpha1.InstallModeTypeAllNamespaces, Supported: false}}
	for _, c := range []struct {
		csv     *operatorsv1alpha1.ClusterServiceVersion
		mode    string
		want    operatorsv1alpha1.InstallModeType
		targets []string
		err     string
	}{
		{csv: csv, mode: "", want: operatorsv1alpha1.InstallModeTypeAllNamespaces},
		{csv: csv, mode: "AllNamespaces", want: operatorsv1alpha1.InstallModeTypeAllNamespaces},
		{csv: csv, mode: "OwnNamespace", want: operatorsv1alpha1.InstallModeTypeOwnNamespace, targets: []string{"ops"}},
		{csv: csv, mode: "SingleNamespace=apps", want: operatorsv1alpha1.InstallModeTypeSingleNamespace, targets: []string{"apps"}},
		{csv: csv, mode: "MultiNamespace=a,b", want: operatorsv1alpha1.InstallModeTypeMultiNamespace, targets: []string{"a", "b"}},
		{csv: ownOnly, mode: "", want: operatorsv1alpha1.InstallModeTypeOwnNamespace, targets: []string{"ops"}},
		// A single target that is the operator's namespace is OwnNamespace to OLM.
		{csv: ownOnly, mode: "SingleNamespace=ops", want: operatorsv1alpha1.InstallModeTypeSingleNamespace, targets: []string{"ops"}},
		{csv: ownOnly, mode: "AllNamespaces", err: "does not support install mode AllNamespaces"},
		{csv: ownOnly, mode: "SingleNamespace=apps", err: "does not support install mode SingleNamespace"},
	} {
		mode, err := ParseInstallMode(c.mode)
		g.Expect(err).NotTo(HaveOccurred())
		got, err := resolveInstallMode(c.csv, mode, "ops")
		if c.err != "" {
			g.Expect(err).To(MatchError(ContainSubstring(c.err)), c.mode)
			continue
		}
		g.Expect(err).NotTo(HaveOccurred(), c.mode)
		g.Expect(got.Type).To(Equal(c.want), c.mode)
		g.Expect(operatorGroupTargets(got, "ops")).To(Equal(c.targets), c.mode)
	}
}

func TestInjectedBundlesAnnotation(t *testing.T) {
	g := NewWithT(t)
	first, err := appendInjected("", "r/b:v1")
	g.Expect(err).NotTo(HaveOccurred())
	both, err := appendInjected(first, "r/b:v2")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(both).To(MatchJSON(`[{"imageTag":"r/b:v1","mode":"replaces"},{"imageTag":"r/b:v2","mode":"replaces"}]`))
	_, err = appendInjected("not json", "r/b:v3")
	g.Expect(err).To(MatchError(ContainSubstring(AnnotationInjectedBundles)))
}
