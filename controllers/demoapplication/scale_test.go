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
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestScale: a team member whom the editor role lets edit apps scales one as a Deployment,
// through its scale subresource (kubectl scale); the Deployment follows, and the scale's
// selector, which the operator reports, selects exactly the Deployment's pods, as an
// autoscaler reading their metrics needs.
func TestScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := NewWithT(t)
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	tenant := editor(g, ns)

	app := builder.DemoApplication(ns, "web", builder.Replicas(2))
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	scale := &autoscalingv1.Scale{}
	g.Eventually(func(g Gomega) {
		g.Expect(tenant.SubResource("scale").Get(ctx, app, scale)).To(Succeed())
		g.Expect(scale.Status.Selector).NotTo(BeEmpty())
	}, waitFor, pollEvery).Should(Succeed())
	g.Expect(scale.Spec.Replicas).To(Equal(int32(2)))

	scale.Spec.Replicas = 4
	g.Expect(tenant.SubResource("scale").Update(ctx, app, client.WithSubResourceBody(scale))).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := get(g, ns, "web", &appsv1.Deployment{})
		g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](4)))
		g.Expect(get(g, ns, "web", &paasv1.DemoApplication{}).Status.DesiredReplicas).To(Equal(int32(4)))

		selector, err := labels.Parse(scale.Status.Selector)
		g.Expect(err).NotTo(HaveOccurred())
		deployments, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(selector.String()).To(Equal(deployments.String()), "the scale selects the Deployment's pods")
	}, waitFor, pollEvery).Should(Succeed())
}

// editor returns a client acting as a team member's ServiceAccount whom config/rbac's editor
// role, bound in namespace, lets edit DemoApplications there: as the cluster's edit role does
// once it aggregates it.
func editor(g Gomega, namespace string) client.Client {
	ctx := context.Background()
	objs, err := testenv.Objects(filepath.Join(testenv.Root(), "config", "rbac", "demoapplication_editor_role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(objs).To(HaveLen(1))
	if err := k8sClient.Create(ctx, objs[0]); !apierrors.IsAlreadyExists(err) {
		g.Expect(err).NotTo(HaveOccurred())
	}
	const member = "jane"
	g.Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "editors"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: objs[0].GetName()},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: member}},
	})).To(Succeed())
	c, err := client.New(testenv.ServiceAccountConfig(cfg, namespace, member), client.Options{Scheme: k8sClient.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	return c
}
