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
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRoleGrantsOwnedKinds holds the manager's role, which controller-gen makes from the RBAC
// markers, to the table of owned kinds: each kind is granted exactly the verbs the controller
// uses on it, no fewer (a step would be refused) and no more (the operator would hold a right
// it never uses). A kind added to the table without its marker fails here, and so does a marker
// left behind by a kind removed from it: the role writes nothing else than the owned kinds and
// writtenNotOwned.
func TestRoleGrantsOwnedKinds(t *testing.T) {
	g := NewWithT(t)
	objs, err := testenv.Objects(filepath.Join(testenv.Root(), "config", "rbac", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(objs).To(HaveLen(1))
	role := &rbacv1.ClusterRole{}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(objs[0])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u, role)).To(Succeed())

	granted := func(gr schema.GroupResource) []string {
		var verbs []string
		for _, rule := range role.Rules {
			if slices.Contains(rule.APIGroups, gr.Group) && slices.Contains(rule.Resources, gr.Resource) {
				verbs = append(verbs, rule.Verbs...)
			}
		}
		slices.Sort(verbs)
		return slices.Compact(verbs)
	}
	kinds := demoapplication.OwnedKinds()
	g.Expect(kinds).NotTo(BeEmpty())
	owned := map[schema.GroupResource]bool{}
	for _, k := range kinds {
		want := slices.Sorted(slices.Values(k.Verbs))
		g.Expect(granted(k.Resource.GroupResource())).To(Equal(want),
			"config/rbac/role.yaml's verbs on %s, a kind the controller owns: its RBAC marker (controller.go) and the table (kinds.go) disagree",
			k.Resource.GroupResource())
		owned[k.Resource.GroupResource()] = true
	}
	for _, rule := range role.Rules {
		for _, group := range rule.APIGroups {
			for _, r := range rule.Resources {
				gr := schema.GroupResource{Group: group, Resource: r}
				for _, verb := range rule.Verbs {
					g.Expect(!changes(verb) || owned[gr] || slices.Contains(writtenNotOwned[gr], verb)).To(BeTrue(),
						"config/rbac/role.yaml grants %s on %s, neither an owned kind (kinds.go) nor in writtenNotOwned: "+
							"remove its RBAC marker, or add it there with why the operator writes it", verb, gr)
				}
			}
		}
	}
}

// writtenNotOwned are the resources the operator writes without owning them, and how.
var writtenNotOwned = map[schema.GroupResource][]string{
	// The Events both controllers record.
	{Group: "events.k8s.io", Resource: "events"}: {"create", "patch"},
	// The pod labeler's labels on the app's pods (controllers/podlabel).
	{Resource: "pods"}: {"patch"},
	// The app's status.
	{Group: paasv1.GroupVersion.Group, Resource: "demoapplications/status"}: {"patch"},
	// Owned objects' controller references, which block the app's deletion until they go.
	{Group: paasv1.GroupVersion.Group, Resource: "demoapplications/finalizers"}: {"update"},
}

// changes tells whether an RBAC verb grants changing objects.
func changes(verb string) bool {
	return slices.Contains([]string{"create", "update", "patch", "delete", "deletecollection", "*"}, verb)
}

// TestCSVListsOwnedKinds holds the bundle's ClusterServiceVersion, whose owned resources the
// operator-sdk markers of both API versions make, to the table of owned kinds: each version
// of the CRD lists every owned kind, and besides them only the Events the controller records.
func TestCSVListsOwnedKinds(t *testing.T) {
	g := NewWithT(t)
	paths, err := filepath.Glob(filepath.Join(testenv.Root(), "bundle", "manifests", "*.clusterserviceversion.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(paths).To(HaveLen(1))
	objs, err := testenv.Objects(paths[0])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(objs).To(HaveLen(1))
	owned, _, err := unstructured.NestedSlice(objs[0].(*unstructured.Unstructured).Object, "spec", "customresourcedefinitions", "owned")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(owned).NotTo(BeEmpty())
	kinds := demoapplication.OwnedKinds()
	want := make([]string, 0, len(kinds)+1)
	want = append(want, "Event/v1")
	for _, k := range kinds {
		want = append(want, k.Kind+"/"+k.Resource.Version)
	}
	for _, crd := range owned {
		resources, _, err := unstructured.NestedSlice(crd.(map[string]any), "resources")
		g.Expect(err).NotTo(HaveOccurred())
		listed := make([]string, 0, len(resources))
		for _, r := range resources {
			r := r.(map[string]any)
			listed = append(listed, fmt.Sprintf("%s/%s", r["kind"], r["version"]))
		}
		g.Expect(listed).To(ConsistOf(want), "the owned resources of %s %s in the CSV: its operator-sdk marker (api/) and the table (kinds.go) disagree",
			crd.(map[string]any)["name"], crd.(map[string]any)["version"])
	}
}

// The autoscaler and the Ingress point at the app's Deployment and Service by name alone:
// while that name is someone else's, they would scale that Deployment or route to that
// Service. They exist only while the app controls what they point at (reconcileChild's
// parent).

func TestAutoscalerOfAHeldDeployment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)

	// A team's Deployment at 5 replicas, named like the app.
	theirs := theirDeployment(ns, "web")
	theirs.Spec.Replicas = ptr.To[int32](5)
	g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
	app := builder.DemoApplication(ns, "web")
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	app.Spec.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 1, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)

	g.Eventually(func(g Gomega) {
		got := get(g, ns, "web", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
	}, waitFor, pollEvery).Should(Succeed())
	// The HPA controller, which envtest does not run, would scale whatever an HPA targets: none may.
	g.Consistently(func(g Gomega) {
		g.Expect(gone(ns, "web", &autoscalingv2.HorizontalPodAutoscaler{})()).To(BeTrue(), "an autoscaler targets their Deployment")
		d := get(g, ns, "web", &appsv1.Deployment{})
		g.Expect(*d.Spec.Replicas).To(Equal(int32(5)))
		g.Expect(d.ResourceVersion).To(Equal(theirs.ResourceVersion))
	}, 3*time.Second).Should(Succeed())
	g.Expect(condition(get(g, ns, "web", &paasv1.DemoApplication{}), paasv1.ConditionDegraded).Message).To(And(
		ContainSubstring(`Deployment "web" already exists and is not the operator's`),
		ContainSubstring("the HorizontalPodAutoscaler waits for a Deployment of the app's own")))

	// Once the name is free, the app's Deployment and then its autoscaler are made.
	g.Expect(k8sClient.Delete(ctx, theirs)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "web", &paasv1.DemoApplication{})
		g.Expect(metav1.IsControlledBy(get(g, ns, "web", &appsv1.Deployment{}), got)).To(BeTrue())
		hpa := get(g, ns, "web", &autoscalingv2.HorizontalPodAutoscaler{})
		g.Expect(metav1.IsControlledBy(hpa, got)).To(BeTrue())
		g.Expect(hpa.Spec.ScaleTargetRef.Name).To(Equal("web"))
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	}, waitFor, pollEvery).Should(Succeed())
}

// The operator's own autoscaler goes when the Deployment's name becomes someone else's: the
// app's Deployment deleted, and another made under its name before the operator makes it
// again.
func TestAutoscalerRemovedWhenTheDeploymentIsTaken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "api")
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	app.Spec.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)
	g.Eventually(func(g Gomega) {
		get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
	}, waitFor, pollEvery).Should(Succeed())

	theirs := theirDeployment(ns, "api")
	theirs.Spec.Replicas = ptr.To[int32](5)
	g.Eventually(func() error {
		d := &appsv1.Deployment{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "api"}, d); err == nil {
			if err := k8sClient.Delete(ctx, d, client.Preconditions{UID: &d.UID}); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
		return k8sClient.Create(ctx, theirs)
	}, waitFor, pollEvery).Should(Succeed())
	g.Eventually(gone(ns, "api", &autoscalingv2.HorizontalPodAutoscaler{}), waitFor, pollEvery).Should(BeTrue(), "the autoscaler stayed on their Deployment")
	g.Expect(*get(g, ns, "api", &appsv1.Deployment{}).Spec.Replicas).To(Equal(int32(5)))
}

func TestIngressOfAHeldService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)

	theirs := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop", Labels: map[string]string{"owner": "someone"}},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "theirs"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
	app := builder.DemoApplication(ns, "shop")
	app.Spec.Ingress = &paasv1.Ingress{Hosts: []string{"shop.example.com"}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)

	g.Eventually(func(g Gomega) {
		got := get(g, ns, "shop", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
		// The Deployment is the app's.
		g.Expect(metav1.IsControlledBy(get(g, ns, "shop", &appsv1.Deployment{}), got)).To(BeTrue())
	}, waitFor, pollEvery).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(gone(ns, "shop", &networkingv1.Ingress{})()).To(BeTrue(), "an Ingress routes to their Service")
		g.Expect(get(g, ns, "shop", &corev1.Service{}).ResourceVersion).To(Equal(theirs.ResourceVersion))
	}, 3*time.Second).Should(Succeed())
	g.Expect(condition(get(g, ns, "shop", &paasv1.DemoApplication{}), paasv1.ConditionDegraded).Message).To(And(
		ContainSubstring(`Service "shop" already exists and is not the operator's`),
		ContainSubstring("the Ingress waits for a Service of the app's own")))

	g.Expect(k8sClient.Delete(ctx, theirs)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "shop", &paasv1.DemoApplication{})
		g.Expect(metav1.IsControlledBy(get(g, ns, "shop", &corev1.Service{}), got)).To(BeTrue())
		in := get(g, ns, "shop", &networkingv1.Ingress{})
		g.Expect(metav1.IsControlledBy(in, got)).To(BeTrue())
		g.Expect(in.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name).To(Equal("shop"))
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	}, waitFor, pollEvery).Should(Succeed())

	// And it goes again when the Service's name is taken from under it.
	taken := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop", Labels: map[string]string{"owner": "someone"}},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "theirs"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	g.Eventually(func() error {
		svc := &corev1.Service{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, svc); err == nil {
			if err := k8sClient.Delete(ctx, svc, client.Preconditions{UID: &svc.UID}); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
		return k8sClient.Create(ctx, taken)
	}, waitFor, pollEvery).Should(Succeed())
	g.Eventually(gone(ns, "shop", &networkingv1.Ingress{}), waitFor, pollEvery).Should(BeTrue(), "the Ingress stayed on their Service")
}
