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

package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestSampleOutputHasTheCRDsColumns: the pages that show `kubectl get demoapplications` show
// the columns the CRD prints, in its order (those of priority 0; -o wide adds the others).
func TestSampleOutputHasTheCRDsColumns(t *testing.T) {
	g := NewWithT(t)
	want := []string{"NAME"}
	for _, v := range testenv.DemoApplicationCRD(t).Spec.Versions {
		if !v.Storage {
			continue
		}
		for _, c := range v.AdditionalPrinterColumns {
			if c.Priority == 0 {
				want = append(want, strings.ToUpper(c.Name))
			}
		}
	}
	for _, page := range []string{"README.md", "docs/quickstart.md"} {
		data, err := os.ReadFile(filepath.Join(testenv.Root(), page))
		g.Expect(err).NotTo(HaveOccurred())
		lines := strings.Split(string(data), "\n")
		shown := 0
		for i, line := range lines[:len(lines)-1] {
			if strings.Contains(line, "kubectl get demoapplications") && !strings.Contains(line, " -o ") {
				g.Expect(strings.Fields(lines[i+1])).To(Equal(want), "%s:%d: the header after %q", page, i+2, line)
				shown++
			}
		}
		g.Expect(shown).To(BeNumerically(">", 0), "%s shows kubectl get demoapplications", page)
	}
}

// TestSubscriptionWatchesTheSamplesNamespace: the OperatorGroup of docs/olm-subscription.yaml
// watches the namespace README's sample lands in (kubectl's default, default), so that a reader
// who subscribes and applies the sample sees it run.
func TestSubscriptionWatchesTheSamplesNamespace(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "olm-subscription.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	groups := 0
	for _, doc := range strings.Split(string(data), "\n---\n") {
		group := &operatorsv1.OperatorGroup{}
		g.Expect(yaml.Unmarshal([]byte(doc), group)).To(Succeed())
		if group.Kind != "OperatorGroup" {
			continue
		}
		groups++
		g.Expect(group.Spec.Selector).To(BeNil(), "a selector names no namespace the sample lands in")
		if len(group.Spec.TargetNamespaces) > 0 {
			g.Expect(group.Spec.TargetNamespaces).To(ContainElement("default"))
		}
	}
	g.Expect(groups).To(Equal(1))
}
