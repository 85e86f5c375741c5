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

package demoapplication

import (
	"testing"

	. "github.com/onsi/gomega"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
)

func TestNewDisruptionBudget(t *testing.T) {
	one, half := intstr.FromInt32(1), intstr.FromString("50%")
	for _, tc := range []struct {
		name                string
		change              func(*paasv1.DemoApplicationSpec)
		min, maxUnavailable *intstr.IntOrString
	}{
		{"several replicas: at most one pod down", func(*paasv1.DemoApplicationSpec) {}, nil, &one},
		{"a single replica: none, which would refuse every drain", func(s *paasv1.DemoApplicationSpec) { s.Replica = ptr.To[int32](1) }, nil, nil},
		{"no replica: none", func(s *paasv1.DemoApplicationSpec) { s.Replica = ptr.To[int32](0) }, nil, nil},
		{"a single replica that asks for one", func(s *paasv1.DemoApplicationSpec) {
			s.Replica = ptr.To[int32](1)
			s.DisruptionBudget = &paasv1.DisruptionBudget{MaxUnavailable: &one}
		}, nil, &one},
		{"the budget declared", func(s *paasv1.DemoApplicationSpec) {
			s.DisruptionBudget = &paasv1.DisruptionBudget{MaxUnavailable: &half}
		}, nil, &half},
		{"autoscaling from one: none, whatever replica says", func(s *paasv1.DemoApplicationSpec) {
			s.Replica = ptr.To[int32](5)
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 5}
		}, nil, nil},
		{"autoscaling from two", func(s *paasv1.DemoApplicationSpec) {
			s.Replica = ptr.To[int32](1)
			s.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 5}
		}, nil, &one},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			app := builder.DemoApplication("shop", "web", builder.UID("uid-1"))
			tc.change(&app.Spec)
			desired := newDisruptionBudget(app)
			if tc.min == nil && tc.maxUnavailable == nil {
				g.Expect(desired).To(BeNil())
				return
			}
			pdb := converted[*policyv1.PodDisruptionBudget](desired)
			g.Expect(pdb.Name).To(Equal("web"))
			g.Expect(pdb.OwnerReferences).To(ConsistOf(HaveField("UID", BeEquivalentTo("uid-1"))))
			g.Expect(pdb.Labels).To(Equal(labelsFor(app)))
			g.Expect(pdb.Spec.Selector.MatchLabels).To(Equal(selectorFor(app)))
			g.Expect(pdb.Spec.MinAvailable).To(Equal(tc.min))
			g.Expect(pdb.Spec.MaxUnavailable).To(Equal(tc.maxUnavailable))
			g.Expect(pdb.Spec.UnhealthyPodEvictionPolicy).To(Equal(ptr.To(policyv1.AlwaysAllow)))
		})
	}
}
