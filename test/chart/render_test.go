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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestLint lints the chart as make helm-lint does, with the helm CLI.
func TestLint(t *testing.T) {
	helmCLI(t, "lint", "--strict", "--namespace", releaseNamespace, chartDir)
}

// TestCLIIsStamped checks that bin/helm reports the version hack/tools/kube pins and renders the
// chart for the Kubernetes minor of its client-go (Chart.yaml's kubeVersion refuses helm's unstamped
// v1.20), as the SDK renders it for the test cluster.
func TestCLIIsStamped(t *testing.T) {
	g := NewWithT(t)
	mod, err := os.ReadFile(filepath.Join(testenv.Root(), "hack", "tools", "kube", "go.mod"))
	g.Expect(err).NotTo(HaveOccurred())
	pinned := regexp.MustCompile(`(?m)^\s*helm\.sh/helm/v3 (v\S+)`).FindSubmatch(mod)
	g.Expect(pinned).To(HaveLen(2))
	g.Expect(helmCLI(t, "version", "--template", "{{.Version}}")).To(Equal(string(pinned[1])))

	cli := parseManifest(t, helmCLI(t, "template", releaseName, chartDir, "--namespace", releaseNamespace, "--no-hooks"))
	g.Expect(cli.keys()).To(Equal(mustRender(t, nil).keys()))
}

// TestChartIsForTheRelease checks that the chart installs the version the Makefile releases,
// the one the bundle describes too.
func TestChartIsForTheRelease(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(testenv.Root(), "Makefile"))
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	version := regexp.MustCompile(`(?m)^VERSION \?= (.*)$`).FindSubmatch(makefile)
	NewWithT(t).Expect(version).To(HaveLen(2))
	NewWithT(t).Expect(loadChart(t).Metadata.AppVersion).To(Equal(string(version[1])),
		"Chart.yaml's appVersion differs from the Makefile's VERSION")
}

func TestRenderDefaults(t *testing.T) {
	g := NewWithT(t)
	m := mustRender(t, nil)

	g.Expect(m.keys()).To(ConsistOf(
		"CustomResourceDefinition /demoapplications.paas.cmft.com",
		"ServiceAccount demo-operator-system/demo-operator",
		"Deployment demo-operator-system/demo-operator",
		"Service demo-operator-system/demo-operator-metrics",
		"PodDisruptionBudget demo-operator-system/demo-operator",
		"ClusterRole /demo-operator-manager",
		"ClusterRoleBinding /demo-operator-manager",
		"Role demo-operator-system/demo-operator-leader-election",
		"RoleBinding demo-operator-system/demo-operator-leader-election",
		"ClusterRole /demo-operator-metrics-auth",
		"ClusterRoleBinding /demo-operator-metrics-auth",
		"ClusterRole /demo-operator-metrics-reader",
		"ClusterRole /demo-operator-demoapplication-admin",
		"ClusterRole /demo-operator-demoapplication-editor",
		"ClusterRole /demo-operator-demoapplication-viewer",
		"ValidatingAdmissionPolicy /demo-operator-restraint-pods",
		"ValidatingAdmissionPolicyBinding /demo-operator-restraint-pods",
		"ValidatingAdmissionPolicy /demo-operator-restraint-objects",
		"ValidatingAdmissionPolicyBinding /demo-operator-restraint-objects",
		"ValidatingAdmissionPolicy /demo-operator-restraint-leases",
		"ValidatingAdmissionPolicyBinding /demo-operator-restraint-leases",
	))

	d := m.deployment(t)
	g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](2)))
	pod := d.Spec.Template.Spec
	g.Expect(pod.ServiceAccountName).To(Equal("demo-operator"))
	g.Expect(pod.Containers).To(HaveLen(1))
	c := pod.Containers[0]
	g.Expect(c.Image).To(Equal("ghcr.io/cmft/demo-operator:0.1.0"), "the tag defaults to appVersion")

	opts := managerOptions(t, d)
	g.Expect(opts.LeaderElect).To(BeTrue())
	g.Expect(opts.MetricsAddr).To(Equal(":8443"))
	g.Expect(opts.ProbeAddr).To(Equal(":8081"))
	g.Expect(opts.EnablePodLabeler).To(BeTrue())
	g.Expect(opts.EnableDemoApp).To(BeTrue())
	g.Expect(opts.WatchNamespaces).To(BeEmpty())

	// The restricted Pod Security Standard, field by field; the install test shows the API
	// server admits it.
	g.Expect(pod.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
	g.Expect(pod.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
	g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(Equal(ptr.To(false)))
	g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(Equal(ptr.To(true)))
	g.Expect(c.SecurityContext.Capabilities.Drop).To(Equal([]corev1.Capability{"ALL"}))

	g.Expect(c.Ports).To(ContainElement(corev1.ContainerPort{Name: "probes", ContainerPort: 8081, Protocol: corev1.ProtocolTCP}))
	g.Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
	g.Expect(c.LivenessProbe.HTTPGet.Port.String()).To(Equal("probes"))
	g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
	g.Expect(c.ReadinessProbe.HTTPGet.Port.String()).To(Equal("probes"))

	svc := &corev1.Service{}
	m.into(t, "Service demo-operator-system/demo-operator-metrics", svc)
	g.Expect(svc.Spec.Selector).To(Equal(d.Spec.Selector.MatchLabels))
	g.Expect(svc.Spec.Ports[0].TargetPort.String()).To(Equal("metrics"))

	binding := &rbacv1.ClusterRoleBinding{}
	m.into(t, "ClusterRoleBinding /demo-operator-manager", binding)
	g.Expect(binding.Subjects).To(Equal([]rbacv1.Subject{{Kind: "ServiceAccount", Name: "demo-operator", Namespace: releaseNamespace}}))

	crd := m["CustomResourceDefinition /demoapplications.paas.cmft.com"]
	g.Expect(crd.GetAnnotations()).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"))
}

func TestRenderValueSets(t *testing.T) {
	t.Run("namespaced", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "watchNamespaces: [team-a, team-b]"))
		g.Expect(m).NotTo(HaveKey("ClusterRole /demo-operator-manager"))
		g.Expect(m).NotTo(HaveKey("ClusterRoleBinding /demo-operator-manager"))
		for _, ns := range []string{"team-a", "team-b"} {
			role := &rbacv1.Role{}
			m.into(t, "Role "+ns+"/demo-operator-manager", role)
			g.Expect(role.Rules).To(Equal(configRules(t, "config/rbac/role.yaml")))
			binding := &rbacv1.RoleBinding{}
			m.into(t, "RoleBinding "+ns+"/demo-operator-manager", binding)
			g.Expect(binding.RoleRef.Name).To(Equal("demo-operator-manager"))
			g.Expect(binding.Subjects[0].Namespace).To(Equal(releaseNamespace))
		}
		g.Expect(managerOptions(t, m.deployment(t)).WatchNamespaces).To(Equal("team-a,team-b"))
	})

	t.Run("metrics off", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, `metrics: {enabled: false, serviceMonitor: {enabled: true},
			prometheusRule: {enabled: true}, grafanaDashboard: {enabled: true}}`))
		g.Expect(m).NotTo(HaveKey("Service demo-operator-system/demo-operator-metrics"))
		g.Expect(m).NotTo(HaveKey("ClusterRole /demo-operator-metrics-auth"))
		g.Expect(m).NotTo(HaveKey("ServiceMonitor demo-operator-system/demo-operator"))
		g.Expect(m).NotTo(HaveKey("PrometheusRule demo-operator-system/demo-operator"))
		g.Expect(m).NotTo(HaveKey("ConfigMap demo-operator-system/demo-operator-dashboard"))
		d := m.deployment(t)
		g.Expect(managerOptions(t, d).MetricsAddr).To(Equal("0"))
		g.Expect(d.Spec.Template.Spec.Containers[0].Ports).NotTo(ContainElement(HaveField("Name", "metrics")))
	})

	t.Run("ServiceMonitor on", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "metrics: {serviceMonitor: {enabled: true, labels: {release: prom}, interval: 30s}}"))
		sm := m["ServiceMonitor demo-operator-system/demo-operator"]
		g.Expect(sm).NotTo(BeNil(), "rendered: %v", m.keys())
		g.Expect(sm.GetLabels()).To(HaveKeyWithValue("release", "prom"))
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		// honorLabels keeps the per-app series' namespace, which the alerts group by.
		g.Expect(endpoints).To(ConsistOf(And(
			HaveKeyWithValue("port", "https"), HaveKeyWithValue("scheme", "https"), HaveKeyWithValue("interval", "30s"),
			HaveKeyWithValue("honorLabels", true))))
		selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		g.Expect(selector).To(Equal(m.deployment(t).Spec.Selector.MatchLabels))
	})

	t.Run("leader election off", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "{replicaCount: 1, leaderElection: {enabled: false}}"))
		g.Expect(m).NotTo(HaveKey("Role demo-operator-system/demo-operator-leader-election"))
		g.Expect(managerOptions(t, m.deployment(t)).LeaderElect).To(BeFalse())

		_, err := render(t, values(t, "leaderElection: {enabled: false}"))
		g.Expect(err).To(MatchError(ContainSubstring("replicaCount above 1 needs leaderElection.enabled")))
	})

	t.Run("one controller off", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "controllers: {podLabeler: {enabled: false}}"))
		opts := managerOptions(t, m.deployment(t))
		g.Expect(opts.EnablePodLabeler).To(BeFalse())
		g.Expect(opts.EnableDemoApp).To(BeTrue())

		_, err := render(t, values(t, "controllers: {podLabeler: {enabled: false}, demoApplication: {enabled: false}}"))
		g.Expect(err).To(MatchError(ContainSubstring("nothing to run")))
	})

	t.Run("custom keys, image and scheduling", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, `
controllers: {podLabeler: {annotation: example.com/opt-in, label: example.com/name}}
image: {repository: registry.example.com/demo, tag: dev, pullSecrets: [regcred]}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Exists}]
podAnnotations: {example.com/team: paas}
priorityClassName: system-cluster-critical
serviceAccount: {name: operator, annotations: {example.com/role: demo}}
`))
		d := m.deployment(t)
		opts := managerOptions(t, d)
		g.Expect(opts.PodLabelAnnotation).To(Equal("example.com/opt-in"))
		g.Expect(opts.PodNameLabel).To(Equal("example.com/name"))
		pod := d.Spec.Template
		g.Expect(pod.Spec.Containers[0].Image).To(Equal("registry.example.com/demo:dev"))
		g.Expect(pod.Spec.ImagePullSecrets).To(Equal([]corev1.LocalObjectReference{{Name: "regcred"}}))
		g.Expect(pod.Spec.NodeSelector).To(Equal(map[string]string{"kubernetes.io/os": "linux"}))
		g.Expect(pod.Spec.Tolerations).To(HaveLen(1))
		g.Expect(pod.Annotations).To(HaveKeyWithValue("example.com/team", "paas"))
		g.Expect(pod.Spec.PriorityClassName).To(Equal("system-cluster-critical"))
		g.Expect(pod.Spec.ServiceAccountName).To(Equal("operator"))
		g.Expect(m["ServiceAccount demo-operator-system/operator"].GetAnnotations()).To(HaveKeyWithValue("example.com/role", "demo"))
	})

	t.Run("no CRD, no RBAC, existing ServiceAccount", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "{crds: {install: false}, rbac: {create: false}, serviceAccount: {create: false, name: existing}}"))
		g.Expect(m.keys()).To(ConsistOf("Deployment demo-operator-system/demo-operator", "Service demo-operator-system/demo-operator-metrics",
			"PodDisruptionBudget demo-operator-system/demo-operator",
			"ValidatingAdmissionPolicy /demo-operator-restraint-pods", "ValidatingAdmissionPolicyBinding /demo-operator-restraint-pods",
			"ValidatingAdmissionPolicy /demo-operator-restraint-objects", "ValidatingAdmissionPolicyBinding /demo-operator-restraint-objects",
			"ValidatingAdmissionPolicy /demo-operator-restraint-leases", "ValidatingAdmissionPolicyBinding /demo-operator-restraint-leases"))
		g.Expect(m.deployment(t).Spec.Template.Spec.ServiceAccountName).To(Equal("existing"))
	})

	t.Run("the restraint policies name the release's ServiceAccount and pod-name label", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "{serviceAccount: {name: operator}, controllers: {podLabeler: {label: example.com/name}}}"))
		for _, name := range []string{"demo-operator-restraint-pods", "demo-operator-restraint-objects", "demo-operator-restraint-leases"} {
			policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			m.into(t, "ValidatingAdmissionPolicy /"+name, policy)
			g.Expect(policy.Spec.MatchConditions).To(ConsistOf(admissionregistrationv1.MatchCondition{
				Name: "operator", Expression: "request.userInfo.username == 'system:serviceaccount:demo-operator-system:operator'"}))
			// restraint-objects selects a per-pod Service's pod by it.
			if name != "demo-operator-restraint-leases" {
				g.Expect(policy.Spec.Variables).To(ContainElement(admissionregistrationv1.Variable{Name: "podNameLabel", Expression: "'example.com/name'"}))
			}
			binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			m.into(t, "ValidatingAdmissionPolicyBinding /"+name, binding)
			g.Expect(binding.Spec.PolicyName).To(Equal(name))
		}

		m = mustRender(t, values(t, "{restraint: {enabled: false}}"))
		g.Expect(m.keys()).NotTo(ContainElement(HavePrefix("ValidatingAdmissionPolicy")))
	})

	t.Run("CRD not kept", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "crds: {keep: false}"))
		g.Expect(m["CustomResourceDefinition /demoapplications.paas.cmft.com"].GetAnnotations()).NotTo(HaveKey("helm.sh/resource-policy"))
	})

	t.Run("CRD annotated for a GitOps tool", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, `crds: {annotations: {"argocd.argoproj.io/sync-options": "Prune=false,ServerSideApply=true"}}`))
		g.Expect(m["CustomResourceDefinition /demoapplications.paas.cmft.com"].GetAnnotations()).To(And(
			HaveKeyWithValue("argocd.argoproj.io/sync-options", "Prune=false,ServerSideApply=true"),
			HaveKeyWithValue("helm.sh/resource-policy", "keep"),
			HaveKey("controller-gen.kubebuilder.io/version")))
		_, err := render(t, values(t, "crds: {annotations: {a: 1}}"))
		g.Expect(err).To(MatchError(ContainSubstring("annotations")))
	})

	t.Run("NetworkPolicy on", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "networkPolicy: {enabled: true}"))
		np := m["NetworkPolicy demo-operator-system/demo-operator"]
		g.Expect(np).NotTo(BeNil(), "rendered: %v", m.keys())
		ingress, _, _ := unstructured.NestedSlice(np.Object, "spec", "ingress")
		g.Expect(ingress).To(ConsistOf(HaveKeyWithValue("ports", ConsistOf(HaveKeyWithValue("port", BeNumerically("==", 8443))))))
	})
}

func TestSchemaRejectsBadValues(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{"wrong type", "replicaCount: two", "replicaCount"},
		{"unknown top-level key", "replicas: 2", "replicas"},
		{"unknown nested key", "metrics: {serviceMonitor: {enable: true}}", "enable"},
		{"bad pull policy", "image: {pullPolicy: Sometimes}", "pullPolicy"},
		{"bad namespace name", "watchNamespaces: [Team_A]", "watchNamespaces"},
		{"port out of range", "metrics: {port: 70000}", "port"},
		{"timeout not a duration", "test: {timeout: abc}", "timeout"},
		{"digest not a digest", "image: {digest: latest}", "digest"},
		{"extra arg not a flag", "extraArgs: [debug]", "extraArgs"},
		{"budget of nothing", "podDisruptionBudget: {maxUnavailable: 0}", "maxUnavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := render(t, values(t, tc.values))
			g.Expect(err).To(MatchError(And(ContainSubstring("schema"), ContainSubstring(tc.want))))
		})
	}
}

// TestChartMatchesConfig fails when the chart's CRD, RBAC rules, alert rules or dashboard are not
// the ones of config/: the chart renders them from files/, which make manifests copies from config/.
func TestChartMatchesConfig(t *testing.T) {
	t.Run("files are up to date", func(t *testing.T) {
		g := NewWithT(t)
		for chartDirName, configDir := range map[string]string{
			"files/crds": "config/crd/bases", "files/rbac": "config/rbac", "files/restraint": "config/restraint",
			"files/prometheus": "config/prometheus", "files/grafana": "config/grafana",
		} {
			copied, err := filepath.Glob(filepath.Join(chartDir, chartDirName, "*"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(copied).NotTo(BeEmpty())
			for _, inChart := range copied {
				got, err := os.ReadFile(inChart)
				g.Expect(err).NotTo(HaveOccurred())
				source := filepath.Join(configDir, filepath.Base(inChart))
				if overlay := filepath.Join("config", strings.TrimSuffix(filepath.Base(inChart), ".yaml"), "role.yaml"); configDir == "config/rbac" {
					if _, err := os.Stat(filepath.Join(testenv.Root(), overlay)); err == nil {
						// The rules of a kustomization of config/ that the chart installs by a value: each
						// controller's alone (generated), the read of Secrets.
						source = overlay
					}
				}
				want, err := os.ReadFile(filepath.Join(testenv.Root(), source))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(string(got)).To(Equal(string(want)), "%s is stale: run make manifests", inChart)
			}
		}
		crds, err := filepath.Glob(filepath.Join(testenv.Root(), "config/crd/bases/*.yaml"))
		g.Expect(err).NotTo(HaveOccurred())
		for _, crd := range crds {
			g.Expect(filepath.Join(chartDir, "files/crds", filepath.Base(crd))).To(BeAnExistingFile(), "run make manifests")
		}
	})

	m := mustRender(t, nil)
	t.Run("CRD", func(t *testing.T) {
		g := NewWithT(t)
		rendered := m["CustomResourceDefinition /demoapplications.paas.cmft.com"].DeepCopy()
		// The chart adds only its labels and the keep policy.
		rendered.SetLabels(nil)
		annotations := rendered.GetAnnotations()
		delete(annotations, "helm.sh/resource-policy")
		rendered.SetAnnotations(annotations)
		want := configObject(t, "config/crd/bases/paas.cmft.com_demoapplications.yaml")
		g.Expect(equality.Semantic.DeepEqual(rendered.Object, want)).To(BeTrue(), "the chart's CRD differs from config/crd/bases")
	})

	t.Run("alerts and dashboard", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "metrics: {prometheusRule: {enabled: true, labels: {release: prom}}, grafanaDashboard: {enabled: true}}"))
		rule := m["PrometheusRule demo-operator-system/demo-operator"]
		g.Expect(rule).NotTo(BeNil(), "rendered: %v", m.keys())
		g.Expect(rule.GetLabels()).To(HaveKeyWithValue("release", "prom"))
		// The operator's alerts select the job prometheus-operator names after the release's
		// metrics Service, where config/default's select its Service.
		g.Expect(m).To(HaveKey("Service demo-operator-system/demo-operator-metrics"))
		want, err := os.ReadFile(filepath.Join(testenv.Root(), "config/prometheus/rules.yaml"))
		g.Expect(err).NotTo(HaveOccurred())
		wantRule := map[string]interface{}{}
		g.Expect(yaml.Unmarshal([]byte(strings.ReplaceAll(string(want),
			`job="demo-operator-controller-manager-metrics-service"`, `job="demo-operator-metrics"`)), &wantRule)).To(Succeed())
		g.Expect(rule.Object["spec"]).To(Equal(wantRule["spec"]))

		dashboard := &corev1.ConfigMap{}
		m.into(t, "ConfigMap demo-operator-system/demo-operator-dashboard", dashboard)
		g.Expect(dashboard.Labels).To(HaveKeyWithValue("grafana_dashboard", "1"))
		wantDashboard, err := os.ReadFile(filepath.Join(testenv.Root(), "config/grafana/demo-operator.json"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(dashboard.Data["demo-operator.json"]).To(MatchJSON(wantDashboard))
	})

	t.Run("rules", func(t *testing.T) {
		for key, configFile := range map[string]string{
			"ClusterRole /demo-operator-manager":                      "config/rbac/role.yaml",
			"Role demo-operator-system/demo-operator-leader-election": "config/rbac/leader_election_role.yaml",
			"ClusterRole /demo-operator-metrics-auth":                 "config/rbac/metrics_auth_role.yaml",
			"ClusterRole /demo-operator-metrics-reader":               "config/rbac/metrics_reader_role.yaml",
		} {
			t.Run(configFile, func(t *testing.T) {
				role := &rbacv1.ClusterRole{}
				m.into(t, key, role)
				NewWithT(t).Expect(role.Rules).To(Equal(configRules(t, configFile)), "%s differs from %s", key, configFile)
			})
		}
	})
}

// configRules returns the rules of a role make manifests (or config/) defines.
func configRules(t *testing.T, path string) []rbacv1.PolicyRule {
	t.Helper()
	role := &rbacv1.ClusterRole{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(configObject(t, path), role); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return role.Rules
}
