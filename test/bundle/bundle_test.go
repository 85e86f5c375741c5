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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	registrybundle "github.com/operator-framework/operator-registry/pkg/lib/bundle"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/olmbundle"
)

const (
	root      = "../.."
	bundleDir = root + "/bundle"
	csvPath   = bundleDir + "/manifests/demo-operator.clusterserviceversion.yaml"
)

// committedOptions reads the release the committed bundle was generated for, so that the
// staleness check regenerates exactly that release.
func committedOptions(t *testing.T) olmbundle.Options {
	t.Helper()
	g := NewWithT(t)
	csv := readCSV(t)
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	readYAML(t, bundleDir+"/metadata/annotations.yaml", &meta)
	g.Expect(meta.Annotations).NotTo(BeEmpty())
	return olmbundle.Options{
		ManifestsDir:   root + "/config/manifests",
		Package:        meta.Annotations["operators.operatorframework.io.bundle.package.v1"],
		Version:        csv.Spec.Version.String(),
		Image:          csv.Annotations["containerImage"],
		Channels:       strings.Split(meta.Annotations["operators.operatorframework.io.bundle.channels.v1"], ","),
		DefaultChannel: meta.Annotations["operators.operatorframework.io.bundle.channel.default.v1"],
	}
}

func TestBundleIsCurrent(t *testing.T) {
	g := NewWithT(t)
	o := committedOptions(t)
	tmp := t.TempDir()
	o.OutputDir = filepath.Join(tmp, "bundle")
	o.DockerfilePath = filepath.Join(tmp, "bundle.Dockerfile")
	g.Expect(olmbundle.GenerateBundle(o)).To(Succeed())

	// The Dockerfile names the bundle directory it copies from.
	want := bytes.ReplaceAll(readFile(t, filepath.Join(root, "bundle.Dockerfile")), []byte("COPY bundle/"), []byte("COPY "+filepath.ToSlash(o.OutputDir)+"/"))
	g.Expect(string(readFile(t, o.DockerfilePath))).To(Equal(string(want)), "bundle.Dockerfile is stale: run make bundle")
	g.Expect(treeOf(t, o.OutputDir)).To(Equal(treeOf(t, bundleDir)), "bundle/ is stale: run make bundle")

	// ...and for the release the Makefile describes.
	makefile := string(readFile(t, root+"/Makefile"))
	for variable, want := range map[string]string{
		"VERSION": o.Version, "IMAGE_TAG_BASE": strings.TrimSuffix(o.Image, ":"+o.Version), "PACKAGE": o.Package,
		"CHANNELS": strings.Join(o.Channels, ","), "DEFAULT_CHANNEL": o.DefaultChannel,
	} {
		m := regexp.MustCompile(`(?m)^` + variable + ` \?= (.*)$`).FindStringSubmatch(makefile)
		g.Expect(m).To(HaveLen(2), variable)
		g.Expect(m[1]).To(Equal(want), "bundle/ is for another %s than the Makefile's: run make bundle", variable)
	}
}

func TestBundleValidates(t *testing.T) {
	b, err := manifests.GetBundleFromDir(bundleDir)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	t.Run("operator-sdk's object checks", func(t *testing.T) {
		NewWithT(t).Expect(sdkObjectProblems(b)).To(BeEmpty())
	})
	// The validators `operator-sdk bundle validate --select-optional suite=operatorframework`
	// runs: the default ones, then OperatorHub's.
	validators := []struct {
		name      string
		validator interfaces.Validator
	}{
		{"csv", validation.ClusterServiceVersionValidator},
		{"crd", validation.CustomResourceDefinitionValidator},
		{"bundle", validation.BundleValidator},
		{"objects", validation.ObjectValidator},
		{"operatorhubv2", validation.OperatorHubV2Validator},
		{"standardcapabilities", validation.StandardCapabilitiesValidator},
		{"standardcategories", validation.StandardCategoriesValidator},
		{"alpha-deprecated-apis", validation.AlphaDeprecatedAPIsValidator},
		{"good-practices", validation.GoodPracticesValidator},
	}
	// From the CSV's minKubeVersion to the Kubernetes the tests run against.
	for _, k8sVersion := range []string{b.CSV.Spec.MinKubeVersion, "1.37.0"} {
		objs := b.ObjectsToValidate()
		for _, obj := range b.Objects {
			objs = append(objs, obj)
		}
		objs = append(objs, map[string]string{"k8s-version": k8sVersion})
		for _, v := range validators {
			t.Run(v.name+"/k8s-"+k8sVersion, func(t *testing.T) {
				g := NewWithT(t)
				var problems []string
				for _, r := range v.validator.Validate(objs...) {
					for _, e := range append(r.Errors, r.Warnings...) {
						problems = append(problems, fmt.Sprintf("%s %s: %s", e.Level, r.Name, e.Error()))
					}
				}
				g.Expect(problems).To(BeEmpty())
			})
		}
	}
}

// sdkObjectProblems runs the checks `operator-sdk bundle validate` applies to every bundle
// object but the CSV and the CRDs before it calls the operator-framework validators
// (ValidateBundleContent in operator-sdk's internal/registry): the kind must be one a
// registry+v1 bundle may carry, and the metadata must be valid for an object without a
// namespace, since OLM creates it in the namespace the operator is installed in.
func sdkObjectProblems(b *manifests.Bundle) []string {
	var problems []string
	for _, u := range b.Objects {
		kind := u.GetKind()
		if kind == operatorsv1alpha1.ClusterServiceVersionKind || kind == "CustomResourceDefinition" {
			continue
		}
		if supported, _ := registrybundle.IsSupported(kind); !supported {
			problems = append(problems, fmt.Sprintf("%s %s: unsupported media type registry+v1 for bundle object", kind, u.GetName()))
			continue
		}
		noName := func(string, bool) []string { return nil }
		if errs := apivalidation.ValidateObjectMetaAccessor(u, false, noName, field.NewPath("metadata")); len(errs) > 0 {
			problems = append(problems, fmt.Sprintf("%s %s: error validating object: %s", kind, u.GetName(), errs.ToAggregate()))
		}
	}
	return problems
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
		NewWithT(t).Expect(inBundle).To(Equal(inConfig))
	})
	// The controllers' rules are permissions, which OLM grants in the OperatorGroup's target
	// namespaces only; the metrics endpoint's reviews are cluster-scoped.
	t.Run("cluster permissions", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(strategy.ClusterPermissions).To(HaveLen(1))
		g.Expect(strategy.ClusterPermissions[0].Rules).To(Equal(metricsRole.Rules))
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
