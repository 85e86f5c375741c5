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

// Package restraint proves the operator's self-restraint (config/restraint, the chart's
// restraint.enabled): on a real kube-apiserver, the operator's own identity, which its RBAC
// lets patch any pod and write any Deployment or Service, is refused every write but the ones
// the operator makes. The controllers' suites run their managers under the same policies
// (testenv.AsOperator), so the operator's whole behaviour passes with them on.
package restraint

import (
	"context"
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// admin and operator are clients of the cluster's admin and of the operator's ServiceAccount.
var admin, operator client.Client

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	env, cfg, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	asOperator, err := testenv.AsOperator(context.Background(), cfg)
	if err == nil {
		err = paasv1.AddToScheme(scheme.Scheme)
	}
	if err == nil {
		admin, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	}
	if err == nil {
		operator, err = client.New(asOperator, client.Options{Scheme: scheme.Scheme})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// refused asserts that err is the API server's refusal by a restraint policy, saying msg.
func refused(g Gomega, err error, msg string) {
	g.ExpectWithOffset(1, apierrors.IsForbidden(err) || apierrors.IsInvalid(err)).To(BeTrue(), "want a refusal, got %v", err)
	g.ExpectWithOffset(1, err).To(MatchError(And(ContainSubstring("ValidatingAdmissionPolicy"), ContainSubstring(msg))))
}

func TestPods(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, admin, "pods-")
	g := NewWithT(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1", Labels: map[string]string{"team": "a"},
			Annotations: map[string]string{wellknown.DefaultPodLabelAnnotation: wellknown.OptIn}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1"}}},
	}
	g.Expect(admin.Create(ctx, pod)).To(Succeed())
	patch := func(mutate func(*corev1.Pod)) error {
		current := &corev1.Pod{}
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(pod), current)).To(Succeed())
		changed := current.DeepCopy()
		mutate(changed)
		return operator.Patch(ctx, changed, client.MergeFrom(current))
	}

	t.Run("the pod-name label, naming the pod, is the operator's to set and remove", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(patch(func(p *corev1.Pod) { p.Labels[wellknown.DefaultPodNameLabel] = p.Name })).To(Succeed())
		g.Expect(patch(func(p *corev1.Pod) { delete(p.Labels, wellknown.DefaultPodNameLabel) })).To(Succeed())
	})
	t.Run("changing a pod's image is refused", func(t *testing.T) {
		refused(NewWithT(t), patch(func(p *corev1.Pod) { p.Spec.Containers[0].Image = "attacker.example/miner:1" }),
			"may change nothing of a pod but its pod-name label")
	})
	t.Run("a label of another key is refused", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, patch(func(p *corev1.Pod) { p.Labels["paas.cmft.com/demoapplication"] = "web" }), "may change no label of a pod but padok.fr/pod-name")
		refused(g, patch(func(p *corev1.Pod) { delete(p.Labels, "team") }), "may change no label of a pod but padok.fr/pod-name")
	})
	t.Run("the pod-name label naming another pod is refused", func(t *testing.T) {
		refused(NewWithT(t), patch(func(p *corev1.Pod) { p.Labels[wellknown.DefaultPodNameLabel] = "web-2" }), "to the pod's own name only")
	})
	t.Run("an annotation is refused", func(t *testing.T) {
		refused(NewWithT(t), patch(func(p *corev1.Pod) { p.Annotations["example.com/x"] = "y" }), "may change nothing of a pod but its pod-name label")
	})
	t.Run("deleting a pod is refused, whatever RBAC grants", func(t *testing.T) {
		g := NewWithT(t)
		grant(t, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"delete"}})
		refused(g, operator.Delete(ctx, pod), "may only label pods, not DELETE them")
	})
}

// grant binds rule to the operator's ServiceAccount until t ends: a platform's mistake, which
// the policies still hold back.
func grant(t *testing.T, rule rbacv1.PolicyRule) {
	g := NewWithT(t)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: "too-much-"}, Rules: []rbacv1.PolicyRule{rule}}
	g.Expect(admin.Create(ctx, role)).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: testenv.OperatorNamespace, Name: testenv.OperatorServiceAccount}},
	}
	g.Expect(admin.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() {
		_ = admin.Delete(ctx, binding)
		_ = admin.Delete(ctx, role)
	})
	// The authorizer's cache sees the binding a moment later.
	g.Eventually(func(g Gomega) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "system:serviceaccount:" + testenv.OperatorNamespace + ":" + testenv.OperatorServiceAccount,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: rule.APIGroups[0], Resource: rule.Resources[0], Verb: rule.Verbs[0], Namespace: "any",
			},
		}}
		g.Expect(admin.Create(ctx, review)).To(Succeed())
		g.Expect(review.Status.Allowed).To(BeTrue())
	}).Should(Succeed())
}

func TestObjects(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, admin, "objects-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web")
	g.Expect(admin.Create(ctx, app)).To(Succeed())
	owned := metav1.OwnerReference{APIVersion: paasv1.GroupVersion.String(), Kind: "DemoApplication", Name: app.Name, UID: app.UID, Controller: ptr.To(true)}
	managed := map[string]string{wellknown.LabelManagedBy: wellknown.ManagedByValue}

	t.Run("a Deployment it labels and its app controls is the operator's to create and change", func(t *testing.T) {
		g := NewWithT(t)
		d := deployment(ns, "web", managed, owned)
		g.Expect(operator.Create(ctx, d)).To(Succeed())
		patched := d.DeepCopy()
		patched.Spec.Replicas = ptr.To[int32](3)
		g.Expect(operator.Patch(ctx, patched, client.MergeFrom(d))).To(Succeed())
	})
	t.Run("creating one it would not manage is refused", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, operator.Create(ctx, deployment(ns, "unlabelled", nil, owned)), "labelled app.kubernetes.io/managed-by=demo-operator")
		refused(g, operator.Create(ctx, deployment(ns, "orphan", managed)), "controlled by DemoApplication")
	})
	t.Run("a Deployment it does not own is not its to change or delete", func(t *testing.T) {
		g := NewWithT(t)
		theirs := deployment(ns, "theirs", nil)
		g.Expect(admin.Create(ctx, theirs)).To(Succeed())
		patched := theirs.DeepCopy()
		patched.Spec.Template.Spec.Containers[0].Image = "attacker.example/miner:1"
		refused(g, operator.Patch(ctx, patched, client.MergeFrom(theirs)), "labelled app.kubernetes.io/managed-by=demo-operator")
		grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"delete"}})
		refused(g, operator.Delete(ctx, theirs), "may change or delete only the deployments controlled by DemoApplication")
	})
	t.Run("a per-pod Service is controlled by its Pod", func(t *testing.T) {
		g := NewWithT(t)
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1"}}}}
		g.Expect(admin.Create(ctx, pod)).To(Succeed())
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pod.Name, Labels: managed,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		}
		g.Expect(operator.Create(ctx, svc)).To(Succeed())
		g.Expect(operator.Delete(ctx, svc)).To(Succeed())
		d := deployment(ns, "pod-owned", managed, svc.OwnerReferences...)
		refused(g, operator.Create(ctx, d), "controlled by DemoApplication")
	})
	t.Run("a Service it does not manage is not its to take over or delete", func(t *testing.T) {
		g := NewWithT(t)
		theirs := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "theirs"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		g.Expect(admin.Create(ctx, theirs)).To(Succeed())
		taken := theirs.DeepCopy()
		taken.Labels, taken.OwnerReferences = managed, []metav1.OwnerReference{owned}
		refused(g, operator.Patch(ctx, taken, client.MergeFrom(theirs)), "may change or delete only the services controlled by DemoApplication or Pod")
		refused(g, operator.Delete(ctx, theirs), "may change or delete only the services controlled by DemoApplication or Pod")
	})
}

// TestAdminUnrestrained shows the policies bind the operator alone: the same writes by
// another identity are RBAC's to decide.
func TestAdminUnrestrained(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, admin, "admin-")
	g := NewWithT(t)
	d := deployment(ns, "plain", nil)
	g.Expect(admin.Create(ctx, d)).To(Succeed())
	g.Expect(admin.Delete(ctx, d)).To(Succeed())
}

// deployment returns a Deployment of one container, with labels and owners.
func deployment(namespace, name string, labels map[string]string, owners ...metav1.OwnerReference) *appsv1.Deployment {
	selector := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels, OwnerReferences: owners},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1"}}},
			},
		},
	}
}
