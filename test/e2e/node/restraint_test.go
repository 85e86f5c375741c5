//go:build node

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

package node

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRestraintForOLM runs docs/operate/security.md's block as written, with kubectl: the
// restraint applied for an operator that OLM installed in the namespace operators, which OLM
// itself cannot install. That ServiceAccount, whatever its RBAC grants, is then refused a write
// the operator would never make.
func TestRestraintForOLM(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	const namespace, account = "operators", "demo-operator-controller-manager"
	t.Cleanup(func() {
		for _, name := range []string{"restraint-pods", "restraint-objects", "restraint-leases"} {
			_ = k8s.Delete(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}})
			_ = k8s.Delete(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	shell := docShell(t)
	for _, command := range docCommands(t, "operate/security.md") {
		shell.Step(ctx, t, "docs/operate/security.md", command)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := k8s.Create(ctx, ns); err == nil {
		t.Cleanup(func() { _ = k8s.Delete(ctx, ns) })
	} else {
		g.Expect(apierrors.IsAlreadyExists(err)).To(BeTrue(), "creating namespace %s: %v", namespace, err)
	}
	// A platform's mistake: the operator's ServiceAccount may do anything, RBAC-wise.
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-olm-operator-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: account}},
	}
	g.Expect(k8s.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(ctx, binding) })
	cfg, err := cluster.RESTConfig()
	g.Expect(err).NotTo(HaveOccurred())
	operator, err := kubernetes.NewForConfig(testenv.ServiceAccountConfig(cfg, namespace, account))
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() error {
		_, err := operator.CoreV1().Services(namespace).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "not-the-operators"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}, 30*time.Second, 200*time.Millisecond).Should(And(
		Satisfy(apierrors.IsForbidden),
		MatchError(And(ContainSubstring("ValidatingAdmissionPolicy 'restraint-objects'"), ContainSubstring("demo-operator may")))))
}
