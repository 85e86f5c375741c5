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

package olm

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/crds"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestOnAPIServer checks, on a real API server with OLM's CRDs and no OLM, what needs no node:
// the registry pod is admitted where the restricted Pod Security Standard is enforced, and
// Cleanup and the OperatorGroup step leave alone what run bundle did not create.
func TestOnAPIServer(t *testing.T) {
	g := NewWithT(t)
	env, err := testenv.New()
	g.Expect(err).NotTo(HaveOccurred())
	env.CRDs = append(env.CRDs, crds.CatalogSource(), crds.Subscription(), crds.OperatorGroup(),
		crds.ClusterServiceVersion(), crds.InstallPlan())
	cfg, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	r, err := New(cfg, Options{})
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	namespace := func(labels map[string]string) string {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "olmrun-", Labels: labels}}
		g.Expect(r.Client.Create(ctx, ns)).To(Succeed())
		return ns.Name
	}

	t.Run("registry pod meets restricted", func(t *testing.T) {
		g := NewWithT(t)
		ns := namespace(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
		source := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo-operator-catalog"}}
		g.Expect(r.Client.Create(ctx, registryPod(source, source.Name, DefaultIndexImage))).To(Succeed())
		bare := registryPod(source, source.Name, DefaultIndexImage)
		bare.Spec.SecurityContext, bare.Spec.Containers[0].SecurityContext = nil, nil
		g.Expect(r.Client.Create(ctx, bare)).To(MatchError(ContainSubstring("violates PodSecurity")), "the namespace enforces restricted")
	})

	t.Run("cleanup refuses a catalog it did not create", func(t *testing.T) {
		g := NewWithT(t)
		r := &Runner{Client: r.Client, Options: Options{Namespace: namespace(nil)}}
		theirs := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "demo-operator-catalog"},
			Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: "example.com/catalog:v1"}}
		g.Expect(r.Client.Create(ctx, theirs)).To(Succeed())
		g.Expect(r.Cleanup(ctx, "demo-operator")).To(MatchError(ContainSubstring("was not created by run bundle")))
		g.Expect(r.Client.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())
		g.Expect(theirs.DeletionTimestamp).To(BeNil())
	})

	t.Run("an OperatorGroup for another mode is kept and refused", func(t *testing.T) {
		g := NewWithT(t)
		r := &Runner{Client: r.Client, Options: Options{Namespace: namespace(nil)}}
		theirs := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "global"}}
		g.Expect(r.Client.Create(ctx, theirs)).To(Succeed())
		own := InstallMode{Type: operatorsv1alpha1.InstallModeTypeOwnNamespace}
		g.Expect(r.ensureOperatorGroup(ctx, "demo-operator", own)).To(MatchError(ContainSubstring("OperatorGroup global targeting []")))
		g.Expect(r.ensureOperatorGroup(ctx, "demo-operator", InstallMode{Type: operatorsv1alpha1.InstallModeTypeAllNamespaces})).To(Succeed())
		groups := &operatorsv1.OperatorGroupList{}
		g.Expect(r.Client.List(ctx, groups, client.InNamespace(r.Namespace))).To(Succeed())
		g.Expect(groups.Items).To(ConsistOf(HaveField("Name", "global")), "the namespace's OperatorGroup is used, not another made")
	})

	t.Run("cleanup deletes what run bundle made and keeps the rest", func(t *testing.T) {
		g := NewWithT(t)
		r := &Runner{Client: r.Client, Options: Options{Namespace: namespace(nil)}}
		b := committedBundle(t)
		cfg, err := NewCatalog(*b)
		g.Expect(err).NotTo(HaveOccurred())
		data, err := marshalCatalog(cfg)
		g.Expect(err).NotTo(HaveOccurred())
		// What RunBundle leaves behind, but for what OLM would add: its OperatorGroup, its
		// catalog, its Subscription, and the CSV OLM installed.
		g.Expect(r.ensureOperatorGroup(ctx, "demo-operator", InstallMode{Type: operatorsv1alpha1.InstallModeTypeOwnNamespace})).To(Succeed())
		source := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "demo-operator-catalog", Labels: r.labels("demo-operator")},
			Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, Address: "10.0.0.1:50051"}}
		g.Expect(r.Client.Create(ctx, source)).To(Succeed())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: source.Name, Labels: r.labels("demo-operator")},
			Data: map[string]string{catalogFile: data}}
		g.Expect(r.Client.Create(ctx, cm)).To(Succeed())
		pod := registryPod(source, cm.Name, DefaultIndexImage)
		g.Expect(r.Client.Create(ctx, pod)).To(Succeed())
		sub := &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "demo-operator", Labels: r.labels("demo-operator")},
			Spec: &operatorsv1alpha1.SubscriptionSpec{CatalogSource: source.Name, CatalogSourceNamespace: r.Namespace, Package: "demo-operator", Channel: Channel}}
		g.Expect(r.Client.Create(ctx, sub)).To(Succeed())
		csv, err := bundleCSV(b)
		g.Expect(err).NotTo(HaveOccurred())
		csv.Namespace = r.Namespace
		g.Expect(r.Client.Create(ctx, csv)).To(Succeed())
		// A Subscription and a ConfigMap of the user's.
		other := &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "other"},
			Spec: &operatorsv1alpha1.SubscriptionSpec{CatalogSource: "elsewhere", CatalogSourceNamespace: "olm", Package: "other"}}
		g.Expect(r.Client.Create(ctx, other)).To(Succeed())
		userCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "settings"}}
		g.Expect(r.Client.Create(ctx, userCM)).To(Succeed())

		g.Expect(r.Cleanup(ctx, "demo-operator")).To(Succeed())
		for _, obj := range []client.Object{source, cm, pod, sub, csv} {
			err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s: %v", obj, obj.GetName(), err)
		}
		for _, obj := range []client.Object{other, userCM} {
			g.Expect(r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		}
		groups := &operatorsv1.OperatorGroupList{}
		g.Expect(r.Client.List(ctx, groups, client.InNamespace(r.Namespace))).To(Succeed())
		g.Expect(groups.Items).To(HaveLen(1), "the OperatorGroup stays while another Subscription uses it")

		g.Expect(r.Client.Delete(ctx, other)).To(Succeed())
		g.Expect(r.Cleanup(ctx, "demo-operator")).To(Succeed(), "cleanup again")
		g.Expect(r.Client.List(ctx, groups, client.InNamespace(r.Namespace))).To(Succeed())
		g.Expect(groups.Items).To(BeEmpty())
		g.Expect(r.Client.Get(ctx, client.ObjectKeyFromObject(userCM), userCM)).To(Succeed())
	})
}
