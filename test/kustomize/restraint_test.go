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

package kustomize

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRestraintFollowsTheServiceAccount builds config/default with another namespace and
// name prefix, installs its restraint policies on a real API server, and acts as the
// ServiceAccount the build names: the policies bind it, so that moving the operator does not
// leave it unrestrained.
func TestRestraintFollowsTheServiceAccount(t *testing.T) {
	g := NewWithT(t)
	objs := buildEdited(t, func(k string) string {
		k = strings.Replace(k, "\nnamespace: demo-operator-system\n", "\nnamespace: team-ops\n", 1)
		return strings.Replace(k, "\nnamePrefix: demo-operator-\n", "\nnamePrefix: acme-\n", 1)
	})
	account := find(g, objs, "ServiceAccount", "acme-controller-manager")
	g.Expect(account.GetNamespace()).To(Equal("team-ops"))

	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	g.Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-ops"}})).To(Succeed())
	for _, obj := range objs {
		if kind := obj.GetKind(); kind == "ValidatingAdmissionPolicy" || kind == "ValidatingAdmissionPolicyBinding" {
			g.Expect(admin.Create(ctx, obj)).To(Succeed(), "creating %s %s", kind, obj.GetName())
		}
	}
	// RBAC lets the moved ServiceAccount write Services anywhere; only the policies stop it.
	g.Expect(admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "acme-services"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "team-ops", Name: "acme-controller-manager"}},
	})).To(Succeed())
	moved := testenv.ServiceAccountConfig(cfg, "team-ops", "acme-controller-manager")
	operator, err := client.New(moved, client.Options{Scheme: scheme.Scheme})
	g.Expect(err).NotTo(HaveOccurred())

	// A Service the operator would never make: refused by restraint-objects once the API
	// server has loaded the policies.
	g.Eventually(func() error {
		return operator.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-ops", Name: "not-an-apps"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		}, client.DryRunAll)
	}, 30*time.Second, 100*time.Millisecond).Should(And(
		Satisfy(apierrors.IsForbidden),
		MatchError(And(ContainSubstring("ValidatingAdmissionPolicy"), ContainSubstring("restraint-objects"))),
	))
}
