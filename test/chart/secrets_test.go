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

package chart_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// TestSecretReadsNeedTheSwitch acts, on a real API server, as the operator's ServiceAccount
// of each install, with a token of its own, and reads kube-system's Secrets: refused by
// the default installs (the chart's, config/default); allowed by those with Secret-driven
// rollouts (the chart's controllers.demoApplication.configRolloutSecrets,
// config/config-rollout-secrets), get, list and watch only, cluster-wide, or with
// watchNamespaces in those namespaces alone, as docs/operate/security.md says. The chart's
// manager, switch on, run with its release's flags and token, rolls an app's pods when a
// Secret they read changes.
func TestSecretReadsNeedTheSwitch(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	c := startCluster(t)
	ctx := context.Background()
	const secretsOn = "controllers: {demoApplication: {configRolloutSecrets: true}}"
	const team = "team-a"
	for _, ns := range []string{"secrets-off", "secrets-on", "secrets-scoped", team} {
		c.namespace(t, ns)
	}
	target := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "bootstrap-token-abcdef"},
		StringData: map[string]string{"token-secret": "0123456789abcdef"}}
	inTeam := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "creds"}}
	for _, s := range []*corev1.Secret{target, inTeam} {
		if err := c.admin.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	// mayRead tries, as cfg, to get target and to list kube-system's Secrets: both refused, or
	// both allowed; the Secret is never changed.
	mayRead := func(g Gomega, cfg *rest.Config) bool {
		sa, err := client.New(cfg, client.Options{Scheme: c.admin.Scheme()})
		g.Expect(err).NotTo(HaveOccurred())
		changed := target.DeepCopy()
		changed.StringData = map[string]string{"token-secret": "attacker"}
		g.Expect(sa.Update(ctx, changed)).To(beForbidden(), "change a Secret")
		g.Expect(sa.Delete(ctx, target)).To(beForbidden(), "delete a Secret")
		getErr := sa.Get(ctx, client.ObjectKeyFromObject(target), &corev1.Secret{})
		listErr := sa.List(ctx, &corev1.SecretList{}, client.InNamespace(target.Namespace))
		if getErr == nil && listErr == nil {
			return true
		}
		g.Expect(getErr).To(beForbidden(), "get kube-system's Secret")
		g.Expect(listErr).To(beForbidden(), "list kube-system's Secrets")
		return false
	}

	t.Run("the chart by default", func(t *testing.T) {
		g := newG(t)
		rel := c.install(t, "secrets-off", "secrets-off", nil)
		d := parseManifest(t, rel.Manifest).deployment(t)
		g.Expect(managerFlag(t, d, "config-rollout-secrets")).To(Equal("false"))
		g.Expect(mayRead(g, c.serviceAccountConfig(t, rel.Namespace, d.Spec.Template.Spec.ServiceAccountName))).To(BeFalse())
	})

	t.Run("the chart with configRolloutSecrets and watchNamespaces", func(t *testing.T) {
		g := newG(t)
		rel := c.install(t, "secrets-scoped", "secrets-scoped", values(t, secretsOn+"\nwatchNamespaces: [team-a]\ncrds: {install: false}"))
		d := parseManifest(t, rel.Manifest).deployment(t)
		cfg := c.serviceAccountConfig(t, rel.Namespace, d.Spec.Template.Spec.ServiceAccountName)
		g.Expect(mayRead(g, cfg)).To(BeFalse())
		sa, err := client.New(cfg, client.Options{Scheme: c.admin.Scheme()})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(sa.Get(ctx, client.ObjectKeyFromObject(inTeam), &corev1.Secret{})).To(Succeed(), "a watched namespace's Secret")
	})

	t.Run("config/default then config/config-rollout-secrets", func(t *testing.T) {
		g := newG(t)
		c.applyRBAC(g, kustomizeBuild(g, "config/default"))
		cfg := c.serviceAccountConfig(t, "demo-operator-system", "demo-operator-controller-manager")
		g.Expect(mayRead(g, cfg)).To(BeFalse())
		c.applyRBAC(g, kustomizeBuild(g, "config/config-rollout-secrets"))
		// The RBAC authorizer sees a new binding once its informer does.
		g.Eventually(func(g Gomega) bool { return mayRead(g, cfg) }, 30*time.Second).Should(BeTrue())
	})

	t.Run("the chart with configRolloutSecrets rolls pods on a Secret's change", func(t *testing.T) {
		g := newG(t)
		rel := c.install(t, "secrets-on", "secrets-on", values(t, secretsOn+"\ncrds: {install: false}"))
		d := parseManifest(t, rel.Manifest).deployment(t)
		g.Expect(managerFlag(t, d, "config-rollout-secrets")).To(Equal("true"))
		saConfig, _ := c.runManager(t, rel)
		g.Expect(mayRead(g, saConfig)).To(BeTrue(), "every Secret of the cluster, as documented")

		creds := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "app-creds"}, StringData: map[string]string{"password": "a"}}
		g.Expect(c.admin.Create(ctx, creds)).To(Succeed())
		app := builder.DemoApplication(team, "web", builder.Replicas(1))
		app.Spec.EnvFrom = []paasv1.EnvFromSource{{SecretRef: &paasv1.OptionalObjectReference{Name: "app-creds"}}}
		g.Expect(c.admin.Create(ctx, app)).To(Succeed())
		hash := func(g Gomega) string {
			deployment := &appsv1.Deployment{}
			g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(app), deployment)).To(Succeed())
			return deployment.Spec.Template.Annotations[demoapplication.ConfigHashAnnotation]
		}
		var before string
		g.Eventually(func(g Gomega) string { before = hash(g); return before }, 30*time.Second).ShouldNot(BeEmpty())
		creds.StringData = map[string]string{"password": "b"}
		g.Expect(c.admin.Update(ctx, creds)).To(Succeed())
		g.Eventually(hash, 30*time.Second).ShouldNot(Equal(before))
	})
}

// applyRBAC applies, server-side, the Namespaces, then the ServiceAccounts and RBAC objects, of
// objs: what an install grants, without the manager it would run.
func (c *cluster) applyRBAC(g Gomega, objs []map[string]interface{}) {
	for _, kinds := range [][]string{{"Namespace"}, {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}} {
		for _, obj := range objs {
			if kind, _ := obj["kind"].(string); slices.Contains(kinds, kind) {
				u := &unstructured.Unstructured{Object: obj}
				g.Expect(c.admin.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("test"), client.ForceOwnership)).
					To(Succeed(), "%s %s", u.GetKind(), u.GetName())
			}
		}
	}
}
