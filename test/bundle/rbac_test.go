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

package bundle

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestOwnNamespaceInstallIsScoped grants the CSV's rules on a real kube-apiserver the way OLM
// does for an OwnNamespace OperatorGroup (each permissions entry as a Role and RoleBinding in
// the operator's namespace, each clusterPermissions entry as a ClusterRole and
// ClusterRoleBinding) and asks the RBAC authorizer what the operator's ServiceAccount may do:
// everything the controllers need at home, nothing on another namespace's objects.
func TestOwnNamespaceInstallIsScoped(t *testing.T) {
	const home, elsewhere = "operators", "elsewhere"
	can := installAsOLM(t, home, false, elsewhere)
	for _, tc := range []struct {
		verb, group, resource, namespace string
		allowed                          bool
	}{
		{"patch", "", "pods", home, true},
		{"create", "", "services", home, true},
		{"create", "apps", "deployments", home, true},
		{"patch", "paas.cmft.com", "demoapplications/status", home, true},
		{"create", "coordination.k8s.io", "leases", home, true},
		{"create", "authentication.k8s.io", "tokenreviews", "", true},

		{"patch", "", "pods", elsewhere, false},
		{"delete", "", "services", elsewhere, false},
		{"create", "apps", "deployments", elsewhere, false},
		{"patch", "paas.cmft.com", "demoapplications/status", elsewhere, false},
		{"list", "", "pods", "", false},
		// Secret-driven rollouts are the chart's and kustomize's opt-in alone: OLM installs
		// what the CSV lists, and it lists no Secret.
		{"get", "", "secrets", home, false},
		{"list", "", "secrets", "", false},
	} {
		where := tc.namespace
		if where == "" {
			where = "cluster-wide"
		}
		t.Run(fmt.Sprintf("%s %s in %s", tc.verb, tc.resource, where), func(t *testing.T) {
			NewWithT(t).Expect(can(tc.verb, tc.group, tc.resource, tc.namespace, "")).To(Equal(tc.allowed))
		})
	}
}

// TestAllNamespacesInstallCannotTakeControlPlaneLeases grants the CSV's rules as OLM does
// for an AllNamespaces OperatorGroup, which lifts the permissions entries to a ClusterRole:
// the leader-election rule then reaches every namespace, so it must name the manager's own
// Lease. The manager may still get and update it; no other Lease, the control plane's
// included, and no list, watch or delete of any. Create cannot be restricted by name.
func TestAllNamespacesInstallCannotTakeControlPlaneLeases(t *testing.T) {
	const home = "operators"
	can := installAsOLM(t, home, true)
	const lease, own = "leases", "demo-operator.paas.cmft.com"
	for _, tc := range []struct {
		verb, namespace, name string
		allowed               bool
	}{
		{"get", home, own, true},
		{"update", home, own, true},
		{"create", home, "", true},

		{"get", "kube-system", "kube-controller-manager", false},
		{"update", "kube-system", "kube-controller-manager", false},
		{"patch", "kube-system", "kube-scheduler", false},
		{"delete", "kube-system", "kube-scheduler", false},
		{"get", home, "another-operator.example.com", false},
		{"update", home, "another-operator.example.com", false},
		{"list", "", "", false},
		{"watch", "", "", false},
		{"list", home, "", false},
		{"delete", home, own, false},
	} {
		t.Run(fmt.Sprintf("%s %s/%s", tc.verb, tc.namespace, tc.name), func(t *testing.T) {
			NewWithT(t).Expect(can(tc.verb, "coordination.k8s.io", lease, tc.namespace, tc.name)).To(Equal(tc.allowed))
		})
	}
}

// installAsOLM grants the CSV's rules to its ServiceAccount in home on a new kube-apiserver
// as OLM does, with namespaces created: the permissions entries as Roles in home, or, for
// AllNamespaces, as ClusterRoles; the clusterPermissions entries as ClusterRoles. It returns
// what the RBAC authorizer says the ServiceAccount may do (name empty: any object).
func installAsOLM(t *testing.T, home string, allNamespaces bool, namespaces ...string) func(verb, group, resource, namespace, name string) bool {
	env, cfg, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ns := range append([]string{home}, namespaces...) {
		NewWithT(t).Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}

	strategy := readCSV(t).Spec.InstallStrategy.StrategySpec
	sa := strategy.DeploymentSpecs[0].Spec.Template.Spec.ServiceAccountName
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: home}}
	clusterRole := func(name string, rules []rbacv1.PolicyRule) {
		meta := metav1.ObjectMeta{Name: name}
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: rules})).To(Succeed())
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: meta.Name}})).To(Succeed())
	}
	for i, p := range strategy.Permissions {
		name := fmt.Sprintf("permissions-%d", i)
		if allNamespaces {
			clusterRole(name, p.Rules)
			continue
		}
		meta := metav1.ObjectMeta{Name: name, Namespace: home}
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: p.Rules})).To(Succeed())
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})).To(Succeed())
	}
	for i, p := range strategy.ClusterPermissions {
		clusterRole(fmt.Sprintf("cluster-permissions-%d", i), p.Rules)
	}

	return func(verb, group, resource, namespace, name string) bool {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + home + ":" + sa,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + home, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace, Verb: verb, Group: group, Resource: resource, Name: name,
			},
		}}
		NewWithT(t).Expect(k8s.Create(ctx, review)).To(Succeed())
		return review.Status.Allowed
	}
}
