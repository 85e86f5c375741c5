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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	scorecardv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/imagebuild"
	"github.com/cmft/demo-operator/internal/test/olmdeploy"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// scorecardToolsImage runs scorecard's untar init container (tar) and storage sidecar (sh,
// sleep): busybox, in opm's image without its entrypoint.
var scorecardToolsImage string

// buildScorecardImages builds the scorecard-test image of bin/operator-sdk's module version, as
// operator-sdk's images/scorecard-test/Dockerfile does but on a local stand-in base (its base,
// ubi-minimal, cannot be pulled here), under the name config.yaml gives it, and the image of
// scorecard's untar and storage containers. It adds their references to local.
func buildScorecardImages(ctx context.Context, b *imagebuild.Builder, registry string, local map[string]string) error {
	config, err := scorecardConfig()
	if err != nil {
		return err
	}
	image := config.Stages[0].Tests[0].Image
	path, ok := strings.CutPrefix(image, olmdeploy.ScorecardRegistry+"/")
	if !ok {
		return fmt.Errorf("the scorecard config names %s, not an image of %s", image, olmdeploy.ScorecardRegistry)
	}
	out, err := exec.CommandContext(ctx, filepath.Join(testenv.Root(), "hack", "operator-sdk.sh"), "--scorecard-test").Output()
	if err != nil {
		return fmt.Errorf("hack/operator-sdk.sh --scorecard-test: %w", err)
	}
	local[registry+"/"+path] = "localhost/demo-operator-olm-node/scorecard-test:" + path[strings.LastIndex(path, ":")+1:]
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local[registry+"/"+path], Base: imagebuild.DistrolessStaticImage,
		Files:      []imagebuild.File{{Path: "/usr/local/bin/scorecard-test", Source: strings.TrimSpace(string(out))}},
		Env:        []string{"HOME=/opt/scorecard-test", "USER_NAME=scorecard-test", "USER_UID=1001"},
		WorkingDir: "/opt/scorecard-test", User: "1001", Entrypoint: []string{"/usr/local/bin/scorecard-test"},
		Labels: map[string]string{"description": "stand-in for " + image + ": its base image cannot be pulled here"}}); err != nil {
		return fmt.Errorf("building the scorecard-test image: %w", err)
	}
	scorecardToolsImage = registry + "/scorecard-tools:busybox"
	local[scorecardToolsImage] = "localhost/demo-operator-olm-node/scorecard-tools:busybox"
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local[scorecardToolsImage], Base: imagebuild.OPMImage,
		Files: []imagebuild.File{{Path: "/bin/sh", Link: "/busybox/sh"}}, Entrypoint: []string{}}); err != nil {
		return fmt.Errorf("building scorecard's untar and storage image: %w", err)
	}
	return nil
}

// scorecardConfig is the bundle's scorecard configuration.
func scorecardConfig() (*scorecardv1alpha3.Configuration, error) {
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "bundle", "tests", "scorecard", "config.yaml"))
	if err != nil {
		return nil, err
	}
	config := &scorecardv1alpha3.Configuration{}
	return config, yaml.Unmarshal(data, config)
}

// TestScorecard runs `operator-sdk scorecard bundle/` as users do, in a namespace enforcing the
// restricted Pod Security Standard: every test of bundle/tests/scorecard/config.yaml passes.
func TestScorecard(t *testing.T) {
	g := NewWithT(t)
	ns := steps.NewNamespace(t, "scorecard-")
	sdk := exec.Command(operatorSDKPath(t), "scorecard", filepath.Join(testenv.Root(), "bundle"), "--namespace", ns,
		"--kubeconfig", cluster.Kubeconfig(), "--pod-security", "restricted", "--untar-image", scorecardToolsImage,
		"--storage-image", scorecardToolsImage, "--wait-time", "3m", "--output", "json")
	sdk.Dir = t.TempDir() // its test-output directory
	out, err := sdk.Output()
	var results scorecardv1alpha3.TestList
	g.Expect(json.Unmarshal(out, &results)).To(Succeed(), "%v: %s", err, out)
	var table strings.Builder
	failed := map[string][]string{}
	for _, test := range results.Items {
		for _, r := range test.Status.Results {
			fmt.Fprintf(&table, "| %s | %s |\n", r.Name, r.State)
			if r.State != scorecardv1alpha3.PassState {
				failed[r.Name] = append(r.Errors, r.Suggestions...)
			}
		}
	}
	t.Logf("operator-sdk scorecard:\n| test | state |\n|---|---|\n%s", table.String())
	g.Expect(failed).To(BeEmpty())
	config, err2 := scorecardConfig()
	g.Expect(err2).NotTo(HaveOccurred())
	tests := 0
	for _, stage := range config.Stages {
		tests += len(stage.Tests)
	}
	g.Expect(results.Items).To(HaveLen(tests))
	g.Expect(err).NotTo(HaveOccurred())
}
