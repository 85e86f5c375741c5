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
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// What each controller may do, as "verb resource" (resource as group/resource): the rules a
// reviewer reads, written out here so that a marker added to a controller fails this test
// until it is read.
var (
	podLabelerGrants = []string{
		"get pods", "list pods", "watch pods", "patch pods",
		"create events.k8s.io/events", "patch events.k8s.io/events",
	}
	demoApplicationGrants = []string{
		"get paas.cmft.com/demoapplications", "list paas.cmft.com/demoapplications", "watch paas.cmft.com/demoapplications",
		"patch paas.cmft.com/demoapplications/status", "update paas.cmft.com/demoapplications/finalizers",
		"get apps/deployments", "list apps/deployments", "watch apps/deployments", "create apps/deployments", "patch apps/deployments",
		"get apps/statefulsets", "list apps/statefulsets", "watch apps/statefulsets", "create apps/statefulsets", "patch apps/statefulsets",
		"list apps/replicasets", "watch apps/replicasets",
		"get services", "list services", "watch services", "create services", "patch services", "delete services",
		"get networking.k8s.io/ingresses", "list networking.k8s.io/ingresses", "watch networking.k8s.io/ingresses",
		"create networking.k8s.io/ingresses", "patch networking.k8s.io/ingresses", "delete networking.k8s.io/ingresses",
		"get autoscaling/horizontalpodautoscalers", "list autoscaling/horizontalpodautoscalers", "watch autoscaling/horizontalpodautoscalers",
		"create autoscaling/horizontalpodautoscalers", "patch autoscaling/horizontalpodautoscalers", "delete autoscaling/horizontalpodautoscalers",
		"get networking.k8s.io/networkpolicies", "list networking.k8s.io/networkpolicies", "watch networking.k8s.io/networkpolicies",
		"create networking.k8s.io/networkpolicies", "patch networking.k8s.io/networkpolicies", "delete networking.k8s.io/networkpolicies",
		"get gateway.networking.k8s.io/httproutes", "list gateway.networking.k8s.io/httproutes", "watch gateway.networking.k8s.io/httproutes",
		"create gateway.networking.k8s.io/httproutes", "patch gateway.networking.k8s.io/httproutes", "delete gateway.networking.k8s.io/httproutes",
		"get policy/poddisruptionbudgets", "list policy/poddisruptionbudgets", "watch policy/poddisruptionbudgets",
		"create policy/poddisruptionbudgets", "patch policy/poddisruptionbudgets", "delete policy/poddisruptionbudgets",
		"get pods", "list pods", "watch pods", "list events",
		"create events.k8s.io/events", "patch events.k8s.io/events",
		"get namespaces", "list namespaces", "watch namespaces",
		"get networking.k8s.io/ingressclasses", "list networking.k8s.io/ingressclasses", "watch networking.k8s.io/ingressclasses",
		// rolloutOnConfigChange: the ConfigMaps the apps' pods read (security.md).
		"get configmaps", "list configmaps", "watch configmaps",
	}
	// Secret-driven rollouts, only where the install opts in (--config-rollout-secrets): the
	// Secrets the apps' pods read, which RBAC cannot tell from the others (security.md).
	secretReadGrants = []string{"get secrets", "list secrets", "watch secrets"}
	// A namespace's Pod Security level decides the security defaults of its apps' Deployments,
	// and an IngressClass's existence whether an app's Ingress is served: neither has a
	// namespace, so their reads stay cluster-wide whatever the manager watches.
	namespaceReadGrants = []string{"get namespaces", "list namespaces", "watch namespaces",
		"get networking.k8s.io/ingressclasses", "list networking.k8s.io/ingressclasses", "watch networking.k8s.io/ingressclasses"}
	// The secure metrics endpoint authenticates and authorizes each scrape with the API
	// server: TokenReviews and SubjectAccessReviews have no namespace, so these stay
	// cluster-wide whatever the manager watches.
	metricsAuthGrants = []string{"create authentication.k8s.io/tokenreviews", "create authorization.k8s.io/subjectaccessreviews"}
	// Leader election, in the manager's own namespace: its one Lease, which client-go gets and
	// updates by name; a create cannot be restricted by name.
	leaderElectionGrants = []string{
		"get coordination.k8s.io/leases named demo-operator.paas.cmft.com", "update coordination.k8s.io/leases named demo-operator.paas.cmft.com",
		"create coordination.k8s.io/leases", "create events", "patch events", "create events.k8s.io/events", "patch events.k8s.io/events",
	}
)

// TestManagerRulesFollowConfiguration renders every combination of controllers, Secret-driven
// rollouts and watched namespaces, with the chart and with config/'s kustomizations, and reads
// what the RBAC they install grants the manager's ServiceAccount, where: only what the enabled
// controllers need, Secrets only with the switch the manager is given, and with
// watchNamespaces none of it cluster-wide but the reads of Namespaces.
func TestManagerRulesFollowConfiguration(t *testing.T) {
	controllers := []struct {
		name, values, kustomization string
		// flag is the manager's flag the kustomization adds.
		flag   string
		grants []string
	}{
		{"both", "", "config/default", "", append(slices.Clone(podLabelerGrants), demoApplicationGrants...)},
		{"pod labeler alone", "controllers: {demoApplication: {enabled: false}}", "config/pod-labeler-only",
			"--enable-demoapplication-controller=false", podLabelerGrants},
		{"DemoApplication controller alone", "controllers: {podLabeler: {enabled: false}}", "config/demoapplication-only",
			"--enable-pod-labeler=false", demoApplicationGrants},
		{"both, Secret-driven rollouts", "controllers: {demoApplication: {configRolloutSecrets: true}}", "config/config-rollout-secrets",
			"--config-rollout-secrets", slices.Concat(podLabelerGrants, demoApplicationGrants, secretReadGrants)},
		{"pod labeler alone, Secret-driven rollouts", "controllers: {demoApplication: {enabled: false, configRolloutSecrets: true}}", "",
			"", podLabelerGrants},
	}
	var table []string
	for _, c := range controllers {
		t.Run(c.name+", every namespace", func(t *testing.T) {
			g := NewWithT(t)
			want := map[string]sets.Set[string]{
				"cluster":        sets.New(c.grants...).Insert(metricsAuthGrants...),
				releaseNamespace: sets.New(leaderElectionGrants...),
			}
			rendered := mustRender(t, values(t, c.values))
			chartGrants := grants(g, rendered.objects(), "demo-operator")
			g.Expect(chartGrants).To(Equal(want), "the chart")
			readsSecrets := slices.Contains(c.grants, secretReadGrants[0])
			g.Expect(managerFlag(t, rendered.deployment(t), "config-rollout-secrets")).To(Equal(strconv.FormatBool(readsSecrets)), "the chart")
			if c.kustomization != "" {
				built := kustomizeBuild(g, c.kustomization)
				g.Expect(grants(g, built, "demo-operator-controller-manager")).To(Equal(want), c.kustomization)
				if c.flag != "" {
					g.Expect(managerArgs(g, built)).To(ContainElement(c.flag), c.kustomization)
				}
				g.Expect(slices.Contains(managerArgs(g, built), "--config-rollout-secrets")).To(Equal(readsSecrets), c.kustomization)
			}
			table = append(table, describeGrants(c.name+", every namespace", chartGrants)...)
		})
		t.Run(c.name+", watchNamespaces", func(t *testing.T) {
			g := NewWithT(t)
			vals := values(t, c.values+"\nwatchNamespaces: [team-a, team-b]")
			got := grants(g, mustRender(t, vals).objects(), "demo-operator")
			cluster := sets.New(metricsAuthGrants...)
			if slices.Contains(c.grants, namespaceReadGrants[0]) {
				cluster.Insert(namespaceReadGrants...)
			}
			g.Expect(got).To(Equal(map[string]sets.Set[string]{
				"cluster":        cluster,
				"team-a":         sets.New(c.grants...),
				"team-b":         sets.New(c.grants...),
				releaseNamespace: sets.New(leaderElectionGrants...),
			}))
			table = append(table, describeGrants(c.name+", watchNamespaces [team-a, team-b]", got)...)
		})
	}
	t.Logf("what the chart grants the manager (configuration | scope | resource | verbs):\n%s", strings.Join(table, "\n"))
}

// TestLeaderElectionRoleNamesTheLease: the leader-election Role restricts its Lease rule to
// the Lease the release's manager elects through, whatever names it (the release, a
// fullnameOverride, leaderElection.id); OLM lifts this Role to a ClusterRole in
// AllNamespaces mode, where a rule of every Lease would reach the control plane's.
func TestLeaderElectionRoleNamesTheLease(t *testing.T) {
	for _, doc := range []string{"", "fullnameOverride: shop-operator", "leaderElection: {id: team-a-lease.example.com}"} {
		t.Run(doc, func(t *testing.T) {
			g := NewWithT(t)
			m := mustRender(t, values(t, doc))
			id := managerFlag(t, m.deployment(t), "leader-election-id")
			role := &rbacv1.Role{}
			for key, obj := range m {
				if obj.GetKind() == "Role" && strings.HasSuffix(obj.GetName(), "-leader-election") {
					m.into(t, key, role)
				}
			}
			var named int
			for _, rule := range role.Rules {
				if !slices.Contains(rule.Resources, "leases") {
					continue
				}
				if slices.Contains(rule.Verbs, "create") {
					g.Expect(rule.Verbs).To(Equal([]string{"create"}), "create cannot be restricted by name: it goes alone")
					continue
				}
				g.Expect(rule.ResourceNames).To(Equal([]string{id}), "the rule names another Lease than the manager's")
				named++
			}
			g.Expect(named).To(Equal(1))
		})
	}
}

// grants returns what the RBAC objects in objs grant serviceAccount, by scope ("cluster" or a
// namespace), as "verb resource", or "verb resource named name" for a rule restricted to
// names.
func grants(g Gomega, objs []map[string]interface{}, serviceAccount string) map[string]sets.Set[string] {
	roles := map[string][]rbacv1.PolicyRule{}
	var bindings []struct {
		scope string
		ref   string
	}
	for _, obj := range objs {
		kind := obj["kind"]
		meta, _ := obj["metadata"].(map[string]interface{})
		namespace, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		switch kind {
		case "ClusterRole", "Role":
			role := &rbacv1.ClusterRole{}
			g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj, role)).To(Succeed())
			roles[fmt.Sprintf("%s %s/%s", kind, namespace, name)] = role.Rules
		case "ClusterRoleBinding", "RoleBinding":
			binding := &rbacv1.RoleBinding{}
			g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj, binding)).To(Succeed())
			if !slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool { return s.Kind == "ServiceAccount" && s.Name == serviceAccount }) {
				continue
			}
			scope, refNamespace := "cluster", ""
			if kind == "RoleBinding" {
				scope = namespace
				if binding.RoleRef.Kind == "Role" {
					refNamespace = namespace
				}
			}
			bindings = append(bindings, struct{ scope, ref string }{scope, fmt.Sprintf("%s %s/%s", binding.RoleRef.Kind, refNamespace, binding.RoleRef.Name)})
		}
	}
	out := map[string]sets.Set[string]{}
	for _, b := range bindings {
		rules, ok := roles[b.ref]
		g.Expect(ok).To(BeTrue(), "%s, bound to %s, is not installed", b.ref, serviceAccount)
		if out[b.scope] == nil {
			out[b.scope] = sets.New[string]()
		}
		for _, rule := range rules {
			for _, group := range rule.APIGroups {
				for _, resource := range rule.Resources {
					if group != "" {
						resource = group + "/" + resource
					}
					for _, verb := range rule.Verbs {
						if len(rule.ResourceNames) == 0 {
							out[b.scope].Insert(verb + " " + resource)
						}
						for _, name := range rule.ResourceNames {
							out[b.scope].Insert(verb + " " + resource + " named " + name)
						}
					}
				}
			}
		}
	}
	return out
}

// describeGrants is grants as table rows, one per scope and resource.
func describeGrants(configuration string, grants map[string]sets.Set[string]) []string {
	rows := make([]string, 0, len(grants))
	for _, scope := range sets.List(sets.KeySet(grants)) {
		verbs := map[string][]string{}
		for _, grant := range sets.List(grants[scope]) {
			verb, resource, _ := strings.Cut(grant, " ")
			verbs[resource] = append(verbs[resource], verb)
		}
		for _, resource := range sets.List(sets.KeySet(verbs)) {
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", configuration, scope, resource, strings.Join(verbs[resource], ", ")))
		}
	}
	return rows
}

// kustomizeBuild returns the objects `kustomize build dir` outputs, dir relative to the
// repository.
func kustomizeBuild(g Gomega, dir string) []map[string]interface{} {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(testenv.Root(), dir))
	g.Expect(err).NotTo(HaveOccurred())
	objs := make([]map[string]interface{}, 0, resources.Size())
	for _, r := range resources.Resources() {
		obj, err := r.Map()
		g.Expect(err).NotTo(HaveOccurred())
		objs = append(objs, obj)
	}
	return objs
}

// managerArgs returns the arguments of the manager container of the Deployment in objs.
func managerArgs(g Gomega, objs []map[string]interface{}) []string {
	for _, obj := range objs {
		if obj["kind"] != "Deployment" {
			continue
		}
		d := &appsv1.Deployment{}
		g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj, d)).To(Succeed())
		return d.Spec.Template.Spec.Containers[0].Args
	}
	g.Expect(objs).To(ContainElement(HaveKeyWithValue("kind", "Deployment")))
	return nil
}

// objects returns the rendered objects.
func (m manifest) objects() []map[string]interface{} {
	out := make([]map[string]interface{}, 0, len(m))
	for _, key := range m.keys() {
		out = append(out, m[key].Object)
	}
	return out
}
