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
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	scorecardv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"

	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestScorecard runs `operator-sdk scorecard bundle/` as users do, in a namespace enforcing the
// restricted Pod Security Standard: every test of bundle/tests/scorecard/config.yaml passes.
func TestScorecard(t *testing.T) {
	g := NewWithT(t)
	ns := testenv.NewNamespace(t, k8s, "scorecard-", testenv.ControllersRun)
	sdk := exec.Command(operatorSDKPath(t), "scorecard", filepath.Join(testenv.Root(), "bundle"), "--namespace", ns,
		"--kubeconfig", cluster.Kubeconfig(), "--pod-security", "restricted", "--untar-image", sdkImages.ScorecardTools,
		"--storage-image", sdkImages.ScorecardTools, "--wait-time", "3m", "--output", "json")
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
	config, err2 := localolm.ScorecardConfig(testenv.Root())
	g.Expect(err2).NotTo(HaveOccurred())
	tests := 0
	for _, stage := range config.Stages {
		tests += len(stage.Tests)
	}
	g.Expect(results.Items).To(HaveLen(tests))
	g.Expect(err).NotTo(HaveOccurred())
}
