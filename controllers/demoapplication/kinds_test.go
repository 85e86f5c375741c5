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

package demoapplication_test

import (
	"path/filepath"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRoleGrantsOwnedKinds holds the manager's role, which controller-gen makes from the RBAC
// markers, to the table of owned kinds: each kind is granted exactly the verbs the controller
// uses on it, no fewer (a step would be refused) and no more (the operator would hold a right
// it never uses). A kind added to the table without its marker, or a marker left behind by a
// kind removed from it, fails here.
func TestRoleGrantsOwnedKinds(t *testing.T) {
	g := NewWithT(t)
	objs, err := testenv.Objects(filepath.Join(testenv.Root(), "config", "rbac", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(objs).To(HaveLen(1))
	role := &rbacv1.ClusterRole{}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(objs[0])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u, role)).To(Succeed())

	granted := func(group, resource string) []string {
		var verbs []string
		for _, rule := range role.Rules {
			if slices.Contains(rule.APIGroups, group) && slices.Contains(rule.Resources, resource) {
				verbs = append(verbs, rule.Verbs...)
			}
		}
		slices.Sort(verbs)
		return slices.Compact(verbs)
	}
	kinds := demoapplication.OwnedKinds()
	g.Expect(kinds).NotTo(BeEmpty())
	for _, k := range kinds {
		want := slices.Sorted(slices.Values(k.Verbs))
		g.Expect(granted(k.Resource.Group, k.Resource.Resource)).To(Equal(want),
			"config/rbac/role.yaml's verbs on %s, of the kinds the controller owns: its RBAC marker (controller.go) and the table (kinds.go) disagree", k.Resource.GroupResource())
	}
}
