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

package localolm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	scorecardv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"github.com/operator-framework/operator-registry/pkg/containertools"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// SDKImages are the images operator-sdk's run bundle, run bundle-upgrade and scorecard run on a
// cluster that pulls nothing from outside, in its registry.
type SDKImages struct {
	// Index is run bundle's --index-image: opm's image with the label
	// operators.operatorframework.io.index.configs.v1=/configs and an empty /configs, without
	// which the CLI takes it for a deprecated SQLite index; the CLI renders the catalog itself.
	Index string
	// Decompression is run bundle's --decompression-image, any image with sh, cat and gzip:
	// opm's. It is also pushed under SDKInitImage's repository and tag, for run bundle-upgrade.
	Decompression string
	// ScorecardTools is scorecard's --untar-image and --storage-image (tar; sh, sleep): busybox,
	// in opm's image without its entrypoint.
	ScorecardTools string
	// Local names each reference's image in the builder's storage.
	Local map[string]string
}

// BuildSDKImages makes the images operator-sdk needs beside OLM's (images, from BuildImages)
// and pushes them to the cluster's registry: SDKImages, SDKInitImage's stand-in, and the
// scorecard-test image under the name bundle/tests/scorecard/config.yaml gives it. root is the
// repository.
func BuildSDKImages(ctx context.Context, b *imagebuild.Builder, root string, c *localcluster.Cluster, images Images) (SDKImages, error) {
	registry := c.RegistryHost()
	opmTag := imagebuild.OPMImage[strings.LastIndex(imagebuild.OPMImage, ":"):]
	sdk := SDKImages{Index: registry + "/opm-index" + opmTag, Decompression: images.OPM,
		ScorecardTools: registry + "/scorecard-tools:busybox"}
	_, initPath, _ := strings.Cut(SDKInitImage, "/")
	sdk.Local = map[string]string{
		sdk.Index:                 "localhost/demo-operator-olm/opm-index" + opmTag,
		sdk.Decompression:         imagebuild.OPMImage,
		registry + "/" + initPath: imagebuild.OPMImage,
		sdk.ScorecardTools:        "localhost/demo-operator-olm/scorecard-tools:busybox",
	}
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: sdk.Local[sdk.Index], Base: imagebuild.OPMImage,
		Files:  []imagebuild.File{{Path: "/configs", Dir: true}},
		Labels: map[string]string{containertools.ConfigsLocationLabel: "/configs"}}); err != nil {
		return SDKImages{}, fmt.Errorf("building the index image of operator-sdk run bundle: %w", err)
	}
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: sdk.Local[sdk.ScorecardTools], Base: imagebuild.OPMImage,
		Files: []imagebuild.File{{Path: "/bin/sh", Link: "/busybox/sh"}}, Entrypoint: []string{}}); err != nil {
		return SDKImages{}, fmt.Errorf("building scorecard's untar and storage image: %w", err)
	}
	if err := buildScorecardTestImage(ctx, b, root, registry, sdk.Local); err != nil {
		return SDKImages{}, err
	}
	for ref, local := range sdk.Local {
		if err := c.PushImage(ctx, b, local, ref); err != nil {
			return SDKImages{}, err
		}
	}
	return sdk, nil
}

// buildScorecardTestImage builds the scorecard-test image of bin/operator-sdk's module version,
// as operator-sdk's images/scorecard-test/Dockerfile does but on a local stand-in base (its
// base, ubi-minimal, cannot be pulled here), to be pushed under the name config.yaml gives it
// (test/bundle keeps its version the CLI's) in registry's repository of it. It adds it to local.
func buildScorecardTestImage(ctx context.Context, b *imagebuild.Builder, root, registry string, local map[string]string) error {
	config, err := ScorecardConfig(root)
	if err != nil {
		return err
	}
	image := config.Stages[0].Tests[0].Image
	path, ok := strings.CutPrefix(image, ScorecardRegistry+"/")
	if !ok {
		return fmt.Errorf("the scorecard config names %s, not an image of %s", image, ScorecardRegistry)
	}
	out, err := exec.CommandContext(ctx, filepath.Join(root, "hack", "operator-sdk.sh"), "--scorecard-test").Output()
	if err != nil {
		return fmt.Errorf("hack/operator-sdk.sh --scorecard-test: %w", err)
	}
	local[registry+"/"+path] = "localhost/demo-operator-olm/scorecard-test:" + path[strings.LastIndex(path, ":")+1:]
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local[registry+"/"+path], Base: imagebuild.DistrolessStaticImage,
		Files:      []imagebuild.File{{Path: "/usr/local/bin/scorecard-test", Source: strings.TrimSpace(string(out))}},
		Env:        []string{"HOME=/opt/scorecard-test", "USER_NAME=scorecard-test", "USER_UID=1001"},
		WorkingDir: "/opt/scorecard-test", User: "1001", Entrypoint: []string{"/usr/local/bin/scorecard-test"},
		Labels: map[string]string{"description": "stand-in for " + image + ": its base image cannot be pulled here"}}); err != nil {
		return fmt.Errorf("building the scorecard-test image: %w", err)
	}
	return nil
}

// ScorecardConfig is the scorecard configuration of the bundle in root.
func ScorecardConfig(root string) (*scorecardv1alpha3.Configuration, error) {
	data, err := os.ReadFile(filepath.Join(root, "bundle", "tests", "scorecard", "config.yaml"))
	if err != nil {
		return nil, err
	}
	config := &scorecardv1alpha3.Configuration{}
	return config, yaml.Unmarshal(data, config)
}
