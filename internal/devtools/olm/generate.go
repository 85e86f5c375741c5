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

// GenerateCatalog adds a bundle to the file-based catalog, the way `opm render` and an edit of
// the package's channels do: make catalog runs it (hack/bundle), and tests render bundles with
// it. The bundle itself comes from operator-sdk (make bundle).

package olm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	"github.com/operator-framework/operator-registry/pkg/image"
	"github.com/operator-framework/operator-registry/pkg/registry"
)

// CatalogOptions say where the bundle is and where its package's catalog lives.
type CatalogOptions struct {
	// BundleDir is the bundle to add (bundle).
	BundleDir string
	// BundleImage is the image the bundle is pushed as, which OLM's catalog operator pulls
	// and unpacks at install time. Required: operator-framework's file-based catalog docs ask
	// every olm.bundle for its image, and OLM v1 installs nothing else.
	BundleImage string
	// CatalogDir is the package's directory in the catalog (catalog/demo-operator).
	CatalogDir string
}

// catalogFile holds the package, its channels and its bundles, as `opm render` writes them; it
// is also the key of the ConfigMap a registry pod serves, and the file opm serves there.
const catalogFile = "catalog.yaml"

// GenerateCatalog adds the bundle to the package's catalog, or replaces the same release,
// and makes it the head of each of its channels: it replaces the previous head and skips
// every earlier version, so a later release upgrades any earlier one.
func GenerateCatalog(o CatalogOptions) error {
	if o.BundleImage == "" {
		return errors.New("the bundle's image is required: OLM pulls and unpacks it (make catalog CATALOG_BUNDLE_IMG=...)")
	}
	b, annotations, err := RenderBundleDir(o.BundleDir, o.BundleImage)
	if err != nil {
		return err
	}
	cfg := &declcfg.DeclarativeConfig{}
	if _, err := os.Stat(o.CatalogDir); err == nil {
		if cfg, err = declcfg.LoadFS(context.Background(), os.DirFS(o.CatalogDir)); err != nil {
			return fmt.Errorf("loading %s: %w", o.CatalogDir, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}

	cfg.Bundles = slices.DeleteFunc(cfg.Bundles, func(old declcfg.Bundle) bool { return old.Name == b.Name })
	cfg.Bundles = append(cfg.Bundles, *b)
	icon, description, err := packageDisplay(b)
	if err != nil {
		return err
	}
	cfg.Packages = []declcfg.Package{{
		Schema: declcfg.SchemaPackage, Name: b.Package, Icon: icon, Description: description,
		DefaultChannel: annotations.DefaultChannelName,
	}}
	version, err := bundleVersion(b)
	if err != nil {
		return err
	}
	for _, name := range annotations.channels() {
		i := slices.IndexFunc(cfg.Channels, func(c declcfg.Channel) bool { return c.Name == name })
		if i < 0 {
			cfg.Channels = append(cfg.Channels, declcfg.Channel{Schema: declcfg.SchemaChannel, Package: b.Package, Name: name})
			i = len(cfg.Channels) - 1
		}
		cfg.Channels[i].Entries = withHead(cfg.Channels[i].Entries, b.Name, version)
	}

	data, err := marshalCatalog(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.CatalogDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.CatalogDir, catalogFile), []byte(data), 0o644)
}

// withHead makes name the channel's head unless it is already in the channel.
func withHead(entries []declcfg.ChannelEntry, name, version string) []declcfg.ChannelEntry {
	if slices.ContainsFunc(entries, func(e declcfg.ChannelEntry) bool { return e.Name == name }) {
		return entries
	}
	entry := declcfg.ChannelEntry{Name: name, SkipRange: "<" + version}
	if h := heads(entries); len(h) > 0 {
		entry.Replaces = h[0]
	}
	return append(entries, entry)
}

// heads are the entries of a channel that no other entry replaces or skips: a well-formed
// channel has one, what a Subscription to it installs.
func heads(entries []declcfg.ChannelEntry) []string {
	superseded := map[string]bool{}
	for _, e := range entries {
		superseded[e.Replaces] = true
		for _, s := range e.Skips {
			superseded[s] = true
		}
	}
	var out []string
	for _, e := range entries {
		if !superseded[e.Name] {
			out = append(out, e.Name)
		}
	}
	return out
}

// bundleAnnotations are the channel settings the bundle's metadata declares.
type bundleAnnotations struct{ registry.Annotations }

func (a bundleAnnotations) channels() []string {
	return (&registry.AnnotationsFile{Annotations: a.Annotations}).GetChannels()
}

// RenderBundleDir renders the bundle directory the way `opm render <dir>` does: one olm.bundle
// whose properties embed every manifest as an olm.bundle.object.
func RenderBundleDir(dir, bundleImage string) (*declcfg.Bundle, bundleAnnotations, error) {
	in, err := registry.NewImageInput(image.SimpleReference(bundleImage), dir)
	if err != nil {
		return nil, bundleAnnotations{}, fmt.Errorf("reading bundle %s: %w", dir, err)
	}
	rb := in.Bundle
	objs, props, err := registry.ObjectsAndPropertiesFromBundle(rb)
	if err != nil {
		return nil, bundleAnnotations{}, fmt.Errorf("properties of bundle %s: %w", rb.Name, err)
	}
	// opm puts the embedded manifests after the other properties.
	slices.SortStableFunc(props, func(a, b property.Property) int {
		return boolToInt(isObject(a)) - boolToInt(isObject(b))
	})
	related, err := relatedImages(rb, bundleImage)
	if err != nil {
		return nil, bundleAnnotations{}, err
	}
	var csvJSON []byte
	for _, obj := range rb.Objects {
		if obj.GetKind() == operatorsv1alpha1.ClusterServiceVersionKind {
			if csvJSON, err = json.Marshal(obj); err != nil {
				return nil, bundleAnnotations{}, err
			}
		}
	}
	return &declcfg.Bundle{
		Schema:        declcfg.SchemaBundle,
		Name:          rb.Name,
		Package:       rb.Package,
		Image:         bundleImage,
		Properties:    props,
		RelatedImages: related,
		Objects:       objs,
		CsvJSON:       string(csvJSON),
	}, bundleAnnotations{*rb.Annotations}, nil
}

func isObject(p property.Property) bool {
	return p.Type == property.TypeBundleObject || p.Type == property.TypeCSVMetadata
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// relatedImages lists the CSV's relatedImages, then the bundle image and the images the
// install strategy runs that it misses, as opm does.
func relatedImages(b *registry.Bundle, bundleImage string) ([]declcfg.RelatedImage, error) {
	csv, err := b.ClusterServiceVersion()
	if err != nil {
		return nil, err
	}
	var spec struct {
		RelatedImages []declcfg.RelatedImage `json:"relatedImages"`
	}
	if err := json.Unmarshal(csv.Spec, &spec); err != nil {
		return nil, err
	}
	out := spec.RelatedImages
	seen := map[string]bool{}
	for _, ri := range out {
		seen[ri.Image] = true
	}
	if bundleImage != "" && !seen[bundleImage] {
		out = append(out, declcfg.RelatedImage{Image: bundleImage})
		seen[bundleImage] = true
	}
	images, err := csv.GetOperatorImages()
	if err != nil {
		return nil, err
	}
	for _, img := range slices.Sorted(maps.Keys(images)) {
		if !seen[img] {
			out = append(out, declcfg.RelatedImage{Image: img})
		}
	}
	slices.SortFunc(out, func(a, b declcfg.RelatedImage) int { return bytes.Compare([]byte(a.Image), []byte(b.Image)) })
	return out, nil
}

func bundleVersion(b *declcfg.Bundle) (string, error) {
	props, err := property.Parse(b.Properties)
	if err != nil {
		return "", err
	}
	if len(props.Packages) != 1 {
		return "", fmt.Errorf("bundle %s has %d olm.package properties, not one", b.Name, len(props.Packages))
	}
	return props.Packages[0].Version, nil
}

// packageDisplay takes the package's icon and description from the newest CSV, as
// OperatorHub shows them.
func packageDisplay(b *declcfg.Bundle) (*declcfg.Icon, string, error) {
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := json.Unmarshal([]byte(b.CsvJSON), &csv); err != nil {
		return nil, "", fmt.Errorf("CSV of bundle %s: %w", b.Name, err)
	}
	var icon *declcfg.Icon
	if len(csv.Spec.Icon) > 0 {
		data, err := base64.StdEncoding.DecodeString(csv.Spec.Icon[0].Data)
		if err != nil {
			return nil, "", fmt.Errorf("icon of bundle %s: %w", b.Name, err)
		}
		icon = &declcfg.Icon{Data: data, MediaType: csv.Spec.Icon[0].MediaType}
	}
	return icon, csv.Spec.Description, nil
}
