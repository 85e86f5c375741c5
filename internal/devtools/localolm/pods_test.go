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
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// moduleDeployDir is deploy/ of the OLM version hack/tools/olm pins, in the module cache.
// `go mod download` fetches it first: on a fresh machine nothing has yet, and `go list -m`
// would name no directory.
func moduleDeployDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/operator-framework/operator-lifecycle-manager")
	cmd.Dir = filepath.Join(testenv.Root(), "hack", "tools", "olm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v: %s", err, out)
	}
	var module struct{ Dir string }
	if err := json.Unmarshal(out, &module); err != nil || module.Dir == "" {
		t.Fatalf("go mod download: no module directory in %s (%v)", out, err)
	}
	return filepath.Join(module.Dir, "deploy")
}

func TestRender(t *testing.T) {
	g := NewWithT(t)
	images := Images{OLM: "10.246.0.1:5000/olm:v0.38.0", OPM: "10.246.0.1:5000/opm:v1.60.0"}
	objs, err := Render(moduleDeployDir(t), images)
	g.Expect(err).NotTo(HaveOccurred())

	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = o
	}
	g.Expect(objs[0].GetKind()).To(Equal("CustomResourceDefinition"), "CRDs come first")
	g.Expect(byName).To(HaveKey("Namespace /" + Namespace))
	g.Expect(byName).To(HaveKey("OperatorGroup " + OperatorsNamespace + "/" + GlobalOperatorGroup))
	g.Expect(byName).NotTo(HaveKey("CatalogSource " + Namespace + "/" + upstreamCatalogSource))

	// Every image is one of ours: nothing is pulled from outside.
	for _, o := range objs {
		for _, line := range strings.Split(toYAML(t, o), "\n") {
			if strings.Contains(line, "quay.io") {
				t.Errorf("%s %s names %s", o.GetKind(), o.GetName(), strings.TrimSpace(line))
			}
		}
	}

	deployment := func(name string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(byName["Deployment "+Namespace+"/"+name].Object, d)).To(Succeed())
		return d
	}
	g.Expect(deployment("olm-operator").Spec.Template.Spec.Containers[0].Image).To(Equal(images.OLM))
	catalog := deployment("catalog-operator").Spec.Template.Spec.Containers[0]
	g.Expect(catalog.Image).To(Equal(images.OLM))
	// The bundle unpack Job's extract container runs the opm image, its util init container OLM's.
	g.Expect(catalog.Args).To(ContainElement("--opmImage=" + images.OPM))
	g.Expect(strings.Join(catalog.Args, " ")).To(ContainSubstring("--util-image " + images.OLM))

	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(
		byName["ClusterServiceVersion "+Namespace+"/"+PackageServerCSV].Object, csv)).To(Succeed())
	specs := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	g.Expect(specs).To(HaveLen(1))
	g.Expect(specs[0].Spec.Template.Spec.Containers[0].Image).To(Equal(images.OLM))
	g.Expect(csv.Spec.APIServiceDefinitions.Owned).To(ContainElement(HaveField("Name", "packagemanifests")))
}

func toYAML(t *testing.T, o *unstructured.Unstructured) string {
	t.Helper()
	data, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), ",", "\n")
}
