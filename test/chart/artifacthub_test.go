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

package chart_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestArtifactHubMetadata checks Chart.yaml's artifacthub.io annotations against the chart: the
// manager's image at appVersion, the CRD's kind and storage version, examples the CRD admits.
func TestArtifactHubMetadata(t *testing.T) {
	g := NewWithT(t)
	ch := loadChart(t)
	annotations := ch.Metadata.Annotations
	for _, key := range []string{"artifacthub.io/operator", "artifacthub.io/operatorCapabilities", "artifacthub.io/license",
		"artifacthub.io/links", "artifacthub.io/images", "artifacthub.io/crds", "artifacthub.io/crdsExamples"} {
		g.Expect(annotations).To(HaveKeyWithValue(key, Not(BeEmpty())))
	}
	g.Expect(annotations).NotTo(HaveKey("artifacthub.io/signKey"), "no public key is published for it to name")
	g.Expect(annotations["artifacthub.io/operator"]).To(Equal("true"))
	g.Expect(ch.Metadata.Icon).To(HavePrefix("https://"))

	var images []struct{ Name, Image string }
	g.Expect(yaml.UnmarshalStrict([]byte(annotations["artifacthub.io/images"]), &images)).To(Succeed())
	repository, _, _ := unstructured.NestedString(ch.Values, "image", "repository")
	g.Expect(images).To(ConsistOf(HaveField("Image", repository+":"+ch.Metadata.AppVersion)))

	var crds []struct{ Kind, Version, Name, DisplayName, Description string }
	g.Expect(yaml.UnmarshalStrict([]byte(annotations["artifacthub.io/crds"]), &crds)).To(Succeed())
	crd := &apiextensionsv1.CustomResourceDefinition{}
	data, err := os.ReadFile(filepath.Join(chartDir, "files", "crds", "paas.cmft.com_demoapplications.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, crd)).To(Succeed())
	storage := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	g.Expect(crds).To(ConsistOf(And(HaveField("Kind", crd.Spec.Names.Kind), HaveField("Version", storage),
		HaveField("Name", crd.Name))))

	var examples []*unstructured.Unstructured
	g.Expect(yaml.Unmarshal([]byte(annotations["artifacthub.io/crdsExamples"]), &examples)).To(Succeed())
	g.Expect(examples).NotTo(BeEmpty())
	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	for _, example := range examples {
		g.Expect(example.GetAPIVersion()).To(Equal(crd.Spec.Group + "/" + storage))
		example.SetNamespace(corev1.NamespaceDefault)
		g.Expect(k8s.Create(context.Background(), example, client.DryRunAll)).To(Succeed(), "crdsExamples: %s", example.GetName())
	}
}
