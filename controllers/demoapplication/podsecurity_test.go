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
	"encoding/json"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestPodSecurityRulesRatchet stores an app that asks for what the CRD's Pod Security rules refuse
// (api/v1 tests them), under a copy of the CRD without them, then upgrades that CRD: the app can
// still be changed, as long as the refused values stay as they are (CRD validation ratcheting),
// and only changed into compliance there.
func TestPodSecurityRulesRatchet(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ratchet.paas.cmft.com/v1", "kind": "DemoApplication",
		"metadata": map[string]any{"name": "before", "namespace": ns},
		"spec": map[string]any{
			"image":           "nginx:1.27",
			"tolerations":     []any{map[string]any{"operator": "Exists"}},
			"podAnnotations":  map[string]any{"container.apparmor.security.beta.kubernetes.io/app": "unconfined"},
			"securityContext": map[string]any{"seccompProfile": map[string]any{"type": "Unconfined"}, "capabilities": map[string]any{"add": []any{"SYS_ADMIN"}}},
		},
	}}
	change := storedBeforeTheRules(t, app, withoutPodSecurityRules)
	another := app.DeepCopy()
	another.SetName("after")
	g.Eventually(func() error { return k8sClient.Create(ctx, another, client.DryRunAll) }, waitFor, pollEvery).
		Should(MatchError(ContainSubstring(`Unsupported value: "Unconfined"`)))

	g.Expect(change(func(spec map[string]any) { spec["image"] = "nginx:1.28" })).To(Succeed())
	g.Expect(change(func(spec map[string]any) {
		spec["tolerations"] = []any{map[string]any{"operator": "Exists"}, map[string]any{"key": "dedicated", "operator": "Exists"}}
	})).To(MatchError(ContainSubstring("every toleration needs a key")))
	g.Expect(change(func(spec map[string]any) {
		spec["securityContext"].(map[string]any)["capabilities"] = map[string]any{"add": []any{"SYS_ADMIN", "NET_ADMIN"}}
	})).To(MatchError(ContainSubstring("capabilities.add may hold NET_BIND_SERVICE alone")))
}

// withoutPodSecurityRules takes out of a CRD version's schema the rules that refuse what Pod
// Security denies a pod author, as the CRD was before them.
func withoutPodSecurityRules(schema any) {
	withoutRules(schema, func(rule string) bool {
		return strings.Contains(rule, "NET_BIND_SERVICE") || strings.Contains(rule, "apparmor") ||
			strings.Contains(rule, "size(t.key) > 0") || strings.Contains(rule, "control-plane")
	})
	eachSchema(schema, func(n map[string]any) {
		if enum, ok := n["enum"].([]any); ok && slices.Contains(enum, any("RuntimeDefault")) {
			n["enum"] = append(enum, "Unconfined")
		}
	})
}

// TestRestrictedNamespaceGetsSecurityDefaults runs an app that sets no security context in a
// namespace that comes to enforce the restricted Pod Security Standard: its Deployment gets the
// profile's values, so that PodSecurity admission admits the pods its ReplicaSet creates,
// where it refuses those of the Deployment the app alone describes. envtest runs no
// ReplicaSet controller: each pod is dry-run created from the Deployment's template, as that
// controller would create it.
func TestRestrictedNamespaceGetsSecurityDefaults(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := builder.DemoApplication(ns, "plain")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := get(g, ns, "plain", &appsv1.Deployment{})
		g.Expect(d.Spec.Template.Spec.Containers[0].SecurityContext).To(BeNil())
	}, waitFor, pollEvery).Should(Succeed())

	namespace := &corev1.Namespace{}
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
	namespace.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	g.Expect(k8sClient.Update(ctx, namespace)).To(Succeed())

	podOf := func(d *appsv1.Deployment) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{GenerateName: d.Name + "-", Namespace: ns, Labels: d.Spec.Template.Labels},
			Spec:       d.Spec.Template.Spec,
		}
	}
	// What the operator built from the app alone, before it read the namespace's level.
	plain := &appsv1.Deployment{}
	data, err := json.Marshal(demoapplication.NewDeployment(app, nil, wellknown.DefaultPodLabelKeys))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(data, plain)).To(Succeed())
	// PodSecurity admission reads the namespace's level from its informer: it enforces the new
	// label a moment after the update.
	g.Eventually(func() error { return k8sClient.Create(ctx, podOf(plain), client.DryRunAll) }, waitFor, pollEvery).
		Should(MatchError(ContainSubstring(`violates PodSecurity "restricted:`)))

	// The namespace's new label alone brings the app's Deployment to the profile.
	g.Eventually(func(g Gomega) {
		d := get(g, ns, "plain", &appsv1.Deployment{})
		g.Expect(d.Spec.Template.Spec.Containers[0].SecurityContext).To(Equal(&corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			RunAsNonRoot:             ptr.To(true),
		}))
		g.Expect(k8sClient.Create(ctx, podOf(d), client.DryRunAll)).To(Succeed())
	}, waitFor, pollEvery).Should(Succeed())

	// Setting a value of its own, the app keeps it: the defaults fill in the rest.
	update(g, app, func(a *paasv1.DemoApplication) {
		a.Spec.SecurityContext = &paasv1.SecurityContext{RunAsUser: ptr.To[int64](1000), ReadOnlyRootFilesystem: ptr.To(true)}
	})
	g.Eventually(func(g Gomega) {
		d := get(g, ns, "plain", &appsv1.Deployment{})
		g.Expect(d.Spec.Template.Spec.Containers[0].SecurityContext).To(Equal(&corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			RunAsNonRoot:             ptr.To(true),
			RunAsUser:                ptr.To[int64](1000),
			ReadOnlyRootFilesystem:   ptr.To(true),
		}))
		g.Expect(k8sClient.Create(ctx, podOf(d), client.DryRunAll)).To(Succeed())
	}, waitFor, pollEvery).Should(Succeed())
}
