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
	const home, elsewhere = "operators", "elsewhere"
	for _, ns := range []string{home, elsewhere} {
		NewWithT(t).Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}

	strategy := readCSV(t).Spec.InstallStrategy.StrategySpec
	sa := strategy.DeploymentSpecs[0].Spec.Template.Spec.ServiceAccountName
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: home}}
	for i, p := range strategy.Permissions {
		name := fmt.Sprintf("permissions-%d", i)
		meta := metav1.ObjectMeta{Name: name, Namespace: home}
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: p.Rules})).To(Succeed())
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})).To(Succeed())
	}
	for i, p := range strategy.ClusterPermissions {
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("cluster-permissions-%d", i)}
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: p.Rules})).To(Succeed())
		NewWithT(t).Expect(k8s.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: meta.Name}})).To(Succeed())
	}

	can := func(verb, group, resource, namespace string) bool {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + home + ":" + sa,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + home, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace, Verb: verb, Group: group, Resource: resource,
			},
		}}
		NewWithT(t).Expect(k8s.Create(ctx, review)).To(Succeed())
		return review.Status.Allowed
	}
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
	} {
		where := tc.namespace
		if where == "" {
			where = "cluster-wide"
		}
		t.Run(fmt.Sprintf("%s %s in %s", tc.verb, tc.resource, where), func(t *testing.T) {
			NewWithT(t).Expect(can(tc.verb, tc.group, tc.resource, tc.namespace)).To(Equal(tc.allowed))
		})
	}
}
