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

// Package bundle checks the OLM bundle and the file-based catalog: both regenerate to what is
// committed, pass the validators OperatorHub runs, and install what config/ installs.
package bundle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	scorecardv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const (
	root      = "../.."
	bundleDir = root + "/bundle"
	csvPath   = bundleDir + "/manifests/demo-operator.clusterserviceversion.yaml"
)

// TestBundleIsCurrent runs make bundle, operator-sdk's generator, on a copy of the repository and
// compares what it writes with what is committed: a stale bundle, a run that is not reproducible
// (operator-sdk's timestamps) or a bundle of another release than the Makefile's all fail here.
func TestBundleIsCurrent(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	g.Expect(sdkbundle.Generate(context.Background(), dir, sdkbundle.Options{})).To(Succeed())
	for _, path := range []string{"bundle", "bundle.Dockerfile", "config"} {
		fresh, committed := treeOf(t, filepath.Join(dir, path)), treeOf(t, filepath.Join(root, path))
		var stale []string
		for file := range mergeKeys(fresh, committed) {
			if fresh[file] != committed[file] {
				stale = append(stale, filepath.Join(path, file))
			}
		}
		g.Expect(stale).To(BeEmpty(), "stale: run make bundle")
	}
}

// TestBundleValidates runs `operator-sdk bundle validate` with the optional validators
// OperatorHub runs, from the CSV's minKubeVersion to the Kubernetes the tests run against:
// neither an error nor a warning.
func TestBundleValidates(t *testing.T) {
	sdk, err := testenv.Tool("operator-sdk")
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	for _, selector := range []string{"suite=operatorframework", "name=good-practices"} {
		for _, k8sVersion := range []string{readCSV(t).Spec.MinKubeVersion, "1.37.0"} {
			t.Run(selector+"/k8s-"+k8sVersion, func(t *testing.T) {
				g := NewWithT(t)
				out, err := exec.Command(sdk, "bundle", "validate", bundleDir, "--select-optional", selector,
					"--optional-values", "k8s-version="+k8sVersion, "--output", "json-alpha1").Output()
				var result struct {
					Passed  bool `json:"passed"`
					Outputs []struct {
						Type    string `json:"type"`
						Message string `json:"message"`
					} `json:"outputs"`
				}
				g.Expect(json.Unmarshal(out, &result)).To(Succeed(), "%v: %s", err, out)
				var problems []string
				for _, o := range result.Outputs {
					if o.Type != "info" {
						problems = append(problems, o.Type+": "+o.Message)
					}
				}
				g.Expect(problems).To(BeEmpty())
				g.Expect(result.Passed).To(BeTrue())
				g.Expect(err).NotTo(HaveOccurred())
			})
		}
	}
}

// TestScorecardRunsTheCLIsImage checks that the scorecard configuration names the scorecard-test
// image of the operator-sdk that runs it, which is built from the same module version.
func TestScorecardRunsTheCLIsImage(t *testing.T) {
	g := NewWithT(t)
	sdk, err := testenv.Tool("operator-sdk")
	g.Expect(err).NotTo(HaveOccurred())
	out, err := exec.Command(sdk, "version").Output()
	g.Expect(err).NotTo(HaveOccurred())
	version := regexp.MustCompile(`operator-sdk version: "(v[^"]+)"`).FindSubmatch(out)
	g.Expect(version).To(HaveLen(2), "operator-sdk version: %s", out)
	var config scorecardv1alpha3.Configuration
	readYAML(t, bundleDir+"/tests/scorecard/config.yaml", &config)
	g.Expect(config.Stages).NotTo(BeEmpty())
	for _, stage := range config.Stages {
		for _, test := range stage.Tests {
			g.Expect(test.Image).To(Equal("quay.io/operator-framework/scorecard-test:"+string(version[1])),
				"%s: set the CLI's version in config/scorecard/patches and run make bundle", test.Labels["test"])
		}
	}
}

// TestBundleInstallsWhatConfigInstalls compares the bundle with its sources: the CRD and the
// RBAC that `make deploy` and the chart install.
func TestBundleInstallsWhatConfigInstalls(t *testing.T) {
	csv := readCSV(t)
	strategy := csv.Spec.InstallStrategy.StrategySpec
	var managerRole, leaderRole, metricsRole rbacv1.ClusterRole
	readYAML(t, root+"/config/rbac/role.yaml", &managerRole)
	readYAML(t, root+"/config/rbac/leader_election_role.yaml", &leaderRole)
	readYAML(t, root+"/config/rbac/metrics_auth_role.yaml", &metricsRole)

	t.Run("crd", func(t *testing.T) {
		var inConfig, inBundle map[string]any
		readYAML(t, root+"/config/crd/bases/paas.cmft.com_demoapplications.yaml", &inConfig)
		readYAML(t, bundleDir+"/manifests/paas.cmft.com_demoapplications.yaml", &inBundle)
		// operator-sdk writes the CRD with an empty status and creationTimestamp, as the API
		// types serialise it; what OLM installs is its spec.
		NewWithT(t).Expect(inBundle["spec"]).To(Equal(inConfig["spec"]))
	})
	// The controllers' rules are permissions, which OLM grants in the OperatorGroup's target
	// namespaces only; the metrics endpoint's reviews are cluster-scoped, and so are the watches
	// of Namespaces (their Pod Security level) and IngressClasses, which a Role cannot grant.
	t.Run("cluster permissions", func(t *testing.T) {
		g := NewWithT(t)
		var namespaceReader rbacv1.ClusterRole
		readYAML(t, root+"/config/manifests/namespace_reader_role.yaml", &namespaceReader)
		g.Expect(strategy.ClusterPermissions).To(HaveLen(1))
		g.Expect(strategy.ClusterPermissions[0].Rules).To(ConsistOf(append(metricsRole.Rules, namespaceReader.Rules...)))
	})
	t.Run("namespace permissions", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(strategy.Permissions).To(HaveLen(1))
		g.Expect(strategy.Permissions[0].Rules).To(ConsistOf(append(managerRole.Rules, leaderRole.Rules...)))
	})
	t.Run("service account", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(strategy.DeploymentSpecs).To(HaveLen(1))
		sa := strategy.DeploymentSpecs[0].Spec.Template.Spec.ServiceAccountName
		g.Expect(strategy.ClusterPermissions[0].ServiceAccountName).To(Equal(sa))
		g.Expect(strategy.Permissions[0].ServiceAccountName).To(Equal(sa))
	})
}

// TestBundleWatchesTheOperatorGroupsNamespaces checks that every install mode is offered and
// that the manager learns the OperatorGroup's namespaces the way OLM passes them.
func TestBundleWatchesTheOperatorGroupsNamespaces(t *testing.T) {
	g := NewWithT(t)
	csv := readCSV(t)
	var modes []operatorsv1alpha1.InstallModeType
	for _, m := range csv.Spec.InstallModes {
		if m.Supported {
			modes = append(modes, m.Type)
		}
	}
	g.Expect(modes).To(ConsistOf(operatorsv1alpha1.InstallModeTypeOwnNamespace, operatorsv1alpha1.InstallModeTypeSingleNamespace,
		operatorsv1alpha1.InstallModeTypeMultiNamespace, operatorsv1alpha1.InstallModeTypeAllNamespaces))
	containers := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers
	g.Expect(containers).To(HaveLen(1))
	g.Expect(containers[0].Env).To(ContainElement(corev1.EnvVar{
		Name: "WATCH_NAMESPACE",
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['olm.targetNamespaces']",
		}},
	}))
	g.Expect(containers[0].Image).To(Equal(csv.Annotations["containerImage"]))
	g.Expect(csv.Spec.RelatedImages).To(ContainElement(operatorsv1alpha1.RelatedImage{Name: "manager", Image: containers[0].Image}))
}

func TestBundleDockerfileLabelsAreTheAnnotations(t *testing.T) {
	g := NewWithT(t)
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	readYAML(t, bundleDir+"/metadata/annotations.yaml", &meta)
	labels := map[string]string{}
	for _, line := range strings.Split(string(readFile(t, root+"/bundle.Dockerfile")), "\n") {
		if label, ok := strings.CutPrefix(line, "LABEL "); ok {
			k, v, _ := strings.Cut(label, "=")
			labels[k] = v
		}
	}
	g.Expect(labels).To(Equal(meta.Annotations))
}

func readCSV(t *testing.T) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	var csv operatorsv1alpha1.ClusterServiceVersion
	readYAML(t, csvPath, &csv)
	return &csv
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	NewWithT(t).Expect(yaml.UnmarshalStrict(readFile(t, path), into)).To(Succeed(), path)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return data
}

// treeOf maps every file under dir to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(readFile(t, path))
		return nil
	})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return files
}

// mergeKeys is the set of the keys of a and b.
func mergeKeys(a, b map[string]string) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// TestCSVDeclaresWhatTheOperatorDoes checks the CSV's OperatorHub metadata: every OpenShift
// feature annotation, disconnected only when relatedImages name images by digest, the capability
// level the chart declares to Artifact Hub, and the icon the chart links to.
func TestCSVDeclaresWhatTheOperatorDoes(t *testing.T) {
	g := NewWithT(t)
	csv := readCSV(t)
	for _, feature := range []string{"disconnected", "fips-compliant", "proxy-aware", "tls-profiles", "token-auth-aws",
		"token-auth-azure", "token-auth-gcp", "cnf", "cni", "csi"} {
		g.Expect(csv.Annotations).To(HaveKeyWithValue("features.operators.openshift.io/"+feature, BeElementOf("true", "false")))
	}
	byDigest := len(csv.Spec.RelatedImages) > 0
	for _, image := range csv.Spec.RelatedImages {
		byDigest = byDigest && strings.Contains(image.Image, "@sha256:")
	}
	g.Expect(csv.Annotations["features.operators.openshift.io/disconnected"]).To(Equal(strconv.FormatBool(byDigest)))
	// The manager passes OLM's proxy settings on to every application (internal/manager).
	g.Expect(csv.Annotations["features.operators.openshift.io/proxy-aware"]).To(Equal("true"))

	var chart struct {
		Icon        string
		Annotations map[string]string
	}
	g.Expect(yaml.Unmarshal(readFile(t, root+"/charts/demo-operator/Chart.yaml"), &chart)).To(Succeed())
	g.Expect(csv.Annotations["capabilities"]).To(Equal(chart.Annotations["artifacthub.io/operatorCapabilities"]))
	g.Expect(csv.Spec.Icon).To(HaveLen(1))
	icon, err := base64.StdEncoding.DecodeString(csv.Spec.Icon[0].Data)
	g.Expect(err).NotTo(HaveOccurred())
	const iconPath = "docs/images/demo-operator.svg"
	g.Expect(chart.Icon).To(HaveSuffix("/" + iconPath))
	g.Expect(strings.TrimSpace(string(readFile(t, root+"/"+iconPath)))).To(Equal(string(icon)), "the CSV's icon and %s differ", iconPath)
}
