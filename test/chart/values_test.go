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
	"testing"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// TestRenderAsSubchart renders an umbrella chart that depends on this one: Helm gives every
// subchart the umbrella's global values, which the schema must accept.
func TestRenderAsSubchart(t *testing.T) {
	for name, vals := range map[string]string{
		"no values":     "{}",
		"global values": "global: {imageRegistry: registry.example.com}",
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			sub := loadChart(t)
			umbrella := &chart.Chart{
				Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "platform", Version: "1.0.0",
					Dependencies: []*chart.Dependency{{Name: sub.Name(), Version: sub.Metadata.Version}}},
				Values: map[string]interface{}{},
			}
			umbrella.AddDependency(sub)
			rel, err := renderRelease(t, umbrella, "platform", values(t, vals))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(parseManifest(t, rel.Manifest)).To(HaveKey("Deployment demo-operator-system/platform-demo-operator"))
		})
	}
}

func TestRenderExtraArgsAndEnv(t *testing.T) {
	g := NewWithT(t)
	m := mustRender(t, values(t, `
extraArgs: [--kube-api-qps=100, --zap-log-level=debug]
extraEnv: [{name: GOMEMLIMIT, value: 200MiB}, {name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]
`))
	d := m.deployment(t)
	g.Expect(managerOptions(t, d).QPS).To(BeNumerically("==", 100))
	g.Expect(managerFlag(t, d, "zap-log-level")).To(Equal("debug"))
	g.Expect(managerContainer(t, d).Env).To(Equal([]corev1.EnvVar{
		{Name: "GOMEMLIMIT", Value: "200MiB"},
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
	}))
}

// TestRenderHighAvailability checks the safeguards of several replicas: a budget that keeps
// a drain from stopping every manager, and pods spread over nodes.
func TestRenderHighAvailability(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, nil)
		d := m.deployment(t)
		pdb := &policyv1.PodDisruptionBudget{}
		m.into(t, "PodDisruptionBudget demo-operator-system/demo-operator", pdb)
		g.Expect(pdb.Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
		g.Expect(pdb.Spec.Selector.MatchLabels).To(Equal(d.Spec.Selector.MatchLabels))

		spread := d.Spec.Template.Spec.TopologySpreadConstraints
		g.Expect(spread).To(HaveLen(1))
		g.Expect(spread[0].TopologyKey).To(Equal(corev1.LabelHostname))
		g.Expect(spread[0].WhenUnsatisfiable).To(Equal(corev1.ScheduleAnyway), "a single-node cluster still runs both")
		g.Expect(spread[0].LabelSelector.MatchLabels).To(Equal(d.Spec.Selector.MatchLabels))
	})
	t.Run("one replica has no budget", func(t *testing.T) {
		NewWithT(t).Expect(mustRender(t, values(t, "replicaCount: 1"))).NotTo(HaveKey("PodDisruptionBudget demo-operator-system/demo-operator"))
	})
	t.Run("own constraints and budget", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, `
podDisruptionBudget: {maxUnavailable: 50%}
topologySpreadConstraints:
- {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
- {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {team: paas}}}
`))
		pdb := &policyv1.PodDisruptionBudget{}
		m.into(t, "PodDisruptionBudget demo-operator-system/demo-operator", pdb)
		g.Expect(pdb.Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromString("50%"))))
		spread := m.deployment(t).Spec.Template.Spec.TopologySpreadConstraints
		g.Expect(spread).To(HaveLen(2))
		g.Expect(spread[0].LabelSelector.MatchLabels).To(HaveKeyWithValue("control-plane", "controller-manager"))
		g.Expect(spread[1].LabelSelector.MatchLabels).To(Equal(map[string]string{"team": "paas"}), "a given selector is kept")
	})
	t.Run("budget off", func(t *testing.T) {
		NewWithT(t).Expect(mustRender(t, values(t, "podDisruptionBudget: {enabled: false}"))).
			NotTo(HaveKey("PodDisruptionBudget demo-operator-system/demo-operator"))
	})
}

func TestRenderImageByDigest(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for name, tc := range map[string]struct{ values, want string }{
		"digest value":           {"image: {digest: " + digest + "}", "ghcr.io/cmft/demo-operator@" + digest},
		"digest beats tag":       {"image: {tag: dev, digest: " + digest + "}", "ghcr.io/cmft/demo-operator@" + digest},
		"digest in a repository": {"image: {repository: 'registry.example.com/demo@" + digest + "'}", "registry.example.com/demo@" + digest},
	} {
		t.Run(name, func(t *testing.T) {
			NewWithT(t).Expect(managerContainer(t, mustRender(t, values(t, tc.values)).deployment(t)).Image).To(Equal(tc.want))
		})
	}
}

// TestRenderLabels renders releases whose names YAML reads as a number or a boolean, and
// checks that only the manager pods match the selectors of the objects that select them.
func TestRenderLabels(t *testing.T) {
	vals := values(t, "networkPolicy: {enabled: true}")
	for _, name := range []string{"123", "yes", "on"} {
		t.Run("release "+name, func(t *testing.T) {
			g := NewWithT(t)
			rel, err := renderRelease(t, loadChart(t), name, vals)
			g.Expect(err).NotTo(HaveOccurred())
			objects := parseManifest(t, rel.Manifest)
			for key, obj := range parseManifest(t, hookManifest(rel.Hooks)) {
				objects[key] = obj
			}
			for key, obj := range objects {
				for _, path := range [][]string{{"metadata", "labels"}, {"spec", "template", "metadata", "labels"}} {
					_, _, err := unstructured.NestedStringMap(obj.Object, path...)
					g.Expect(err).NotTo(HaveOccurred(), "%s: every label value must be a string", key)
				}
			}
		})
	}

	g := NewWithT(t)
	rel, err := renderRelease(t, loadChart(t), releaseName, vals)
	g.Expect(err).NotTo(HaveOccurred())
	m := parseManifest(t, rel.Manifest)
	managerPods := labels.Set(m.deployment(t).Spec.Template.Labels)
	testPod := &corev1.Pod{}
	hooks := parseManifest(t, hookManifest(rel.Hooks))
	hooks.into(t, "Pod demo-operator-system/demo-operator-test", testPod)

	svc := &corev1.Service{}
	m.into(t, "Service demo-operator-system/demo-operator-metrics", svc)
	np := &networkingv1.NetworkPolicy{}
	m.into(t, "NetworkPolicy demo-operator-system/demo-operator", np)
	pdb := &policyv1.PodDisruptionBudget{}
	m.into(t, "PodDisruptionBudget demo-operator-system/demo-operator", pdb)
	for name, selector := range map[string]map[string]string{
		"the metrics Service": svc.Spec.Selector, "the NetworkPolicy": np.Spec.PodSelector.MatchLabels,
		"the PodDisruptionBudget": pdb.Spec.Selector.MatchLabels,
	} {
		g.Expect(labels.SelectorFromSet(selector).Matches(managerPods)).To(BeTrue(), "%s selects the manager pods", name)
		g.Expect(labels.SelectorFromSet(selector).Matches(labels.Set(testPod.Labels))).To(BeFalse(), "%s selects the helm test pod", name)
	}
}

func TestRenderPodAndServiceAccountSettings(t *testing.T) {
	g := NewWithT(t)
	m := mustRender(t, values(t, `
podLabels: {example.com/team: paas}
serviceAccount: {automount: false, labels: {example.com/owner: platform}}
`))
	d := m.deployment(t)
	g.Expect(d.Spec.Template.Labels).To(HaveKeyWithValue("example.com/team", "paas"))
	g.Expect(d.Spec.Selector.MatchLabels).NotTo(HaveKey("example.com/team"), "the selector is immutable")
	g.Expect(d.Spec.Template.Spec.AutomountServiceAccountToken).To(Equal(ptr.To(true)), "the manager needs its token")
	sa := &corev1.ServiceAccount{}
	m.into(t, "ServiceAccount demo-operator-system/demo-operator", sa)
	g.Expect(sa.AutomountServiceAccountToken).To(Equal(ptr.To(false)))
	g.Expect(sa.Labels).To(HaveKeyWithValue("example.com/owner", "platform"))
}

func TestRenderLeaderElectionID(t *testing.T) {
	for _, tc := range []struct{ release, values, want string }{
		// The release the README installs keeps the Lease that config/ and the bundle use.
		{releaseName, "{}", "demo-operator.paas.cmft.com"},
		{"team-a", "{}", "team-a-demo-operator.paas.cmft.com"},
		{"team-b", "{}", "team-b-demo-operator.paas.cmft.com"},
		{"team-a", "leaderElection: {id: my-lease}", "my-lease"},
	} {
		t.Run(tc.release+" "+tc.values, func(t *testing.T) {
			rel, err := renderRelease(t, loadChart(t), tc.release, values(t, tc.values))
			NewWithT(t).Expect(err).NotTo(HaveOccurred())
			NewWithT(t).Expect(managerFlag(t, parseManifest(t, rel.Manifest).deployment(t), "leader-election-id")).To(Equal(tc.want))
		})
	}
}

// TestRenderMetricsScraping checks what a Prometheus needs to scrape the metrics endpoint:
// a token from a Secret the ServiceMonitor names, an identity bound to the metrics-reader
// ClusterRole, and a certificate it can verify when one is provided.
func TestRenderMetricsScraping(t *testing.T) {
	endpoint := func(t *testing.T, m manifest) map[string]interface{} {
		t.Helper()
		sm := m["ServiceMonitor demo-operator-system/demo-operator"]
		NewWithT(t).Expect(sm).NotTo(BeNil(), "rendered: %v", m.keys())
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		NewWithT(t).Expect(endpoints).To(HaveLen(1))
		return endpoints[0].(map[string]interface{})
	}
	readerSubjects := func(t *testing.T, m manifest) []rbacv1.Subject {
		t.Helper()
		binding := &rbacv1.ClusterRoleBinding{}
		m.into(t, "ClusterRoleBinding /demo-operator-metrics-reader", binding)
		NewWithT(t).Expect(binding.RoleRef.Name).To(Equal("demo-operator-metrics-reader"))
		return binding.Subjects
	}

	t.Run("ServiceMonitor with the chart's scraper", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "metrics: {serviceMonitor: {enabled: true}}"))
		ep := endpoint(t, m)
		g.Expect(ep).NotTo(HaveKey("bearerTokenFile"))
		g.Expect(ep).To(HaveKeyWithValue("authorization", map[string]interface{}{
			"type": "Bearer", "credentials": map[string]interface{}{"name": "demo-operator-metrics-scraper", "key": "token"},
		}))
		secret := &corev1.Secret{}
		m.into(t, "Secret demo-operator-system/demo-operator-metrics-scraper", secret)
		g.Expect(secret.Type).To(Equal(corev1.SecretTypeServiceAccountToken))
		g.Expect(secret.Annotations).To(HaveKeyWithValue(corev1.ServiceAccountNameKey, "demo-operator-metrics-scraper"))
		g.Expect(m).To(HaveKey("ServiceAccount demo-operator-system/demo-operator-metrics-scraper"))
		g.Expect(readerSubjects(t, m)).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: "demo-operator-metrics-scraper", Namespace: releaseNamespace}))
		g.Expect(ep).To(HaveKeyWithValue("tlsConfig", HaveKeyWithValue("insecureSkipVerify", true)), "no certificate to verify")
	})

	t.Run("ServiceMonitor with the user's token", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "metrics: {serviceMonitor: {enabled: true, tokenSecret: {name: prom-token, key: t}}}"))
		g.Expect(endpoint(t, m)).To(HaveKeyWithValue("authorization", HaveKeyWithValue("credentials",
			map[string]interface{}{"name": "prom-token", "key": "t"})))
		g.Expect(m).NotTo(HaveKey("ServiceAccount demo-operator-system/demo-operator-metrics-scraper"))
		g.Expect(m).NotTo(HaveKey("ClusterRoleBinding /demo-operator-metrics-reader"))
	})

	t.Run("readers", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "metrics: {readers: [{name: prometheus-k8s, namespace: monitoring}]}"))
		g.Expect(readerSubjects(t, m)).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "monitoring"}))
		_, err := render(t, values(t, "metrics: {readers: [{name: prometheus-k8s}]}"))
		g.Expect(err).To(MatchError(ContainSubstring("namespace")))
	})

	verified := func(t *testing.T, m manifest, secret string) {
		t.Helper()
		g := NewWithT(t)
		tls, _, _ := unstructured.NestedMap(endpoint(t, m), "tlsConfig")
		g.Expect(tls).To(Equal(map[string]interface{}{
			"serverName": "demo-operator-metrics.demo-operator-system.svc",
			"ca":         map[string]interface{}{"secret": map[string]interface{}{"name": secret, "key": "ca.crt"}},
		}))
		d := m.deployment(t)
		g.Expect(managerFlag(t, d, "metrics-cert-path")).To(Equal("/etc/metrics-cert"))
		g.Expect(d.Spec.Template.Spec.Volumes).To(ConsistOf(HaveField("VolumeSource.Secret.SecretName", secret)))
		g.Expect(managerContainer(t, d).VolumeMounts).To(ConsistOf(corev1.VolumeMount{Name: "metrics-cert", MountPath: "/etc/metrics-cert", ReadOnly: true}))
	}
	t.Run("TLS from the user's Secret", func(t *testing.T) {
		m := mustRender(t, values(t, "metrics: {serviceMonitor: {enabled: true}, tls: {secretName: metrics-tls}}"))
		verified(t, m, "metrics-tls")
		NewWithT(t).Expect(m).NotTo(HaveKey("Certificate demo-operator-system/demo-operator-metrics-cert"))
	})
	t.Run("TLS from cert-manager", func(t *testing.T) {
		g := NewWithT(t)
		m := mustRender(t, values(t, "metrics: {serviceMonitor: {enabled: true}, tls: {certManager: {enabled: true}}}"))
		verified(t, m, "demo-operator-metrics-cert")
		cert := m["Certificate demo-operator-system/demo-operator-metrics-cert"]
		g.Expect(cert).NotTo(BeNil(), "rendered: %v", m.keys())
		g.Expect(cert.Object["spec"]).To(And(
			HaveKeyWithValue("secretName", "demo-operator-metrics-cert"),
			HaveKeyWithValue("dnsNames", ContainElement("demo-operator-metrics.demo-operator-system.svc")),
			HaveKeyWithValue("issuerRef", map[string]interface{}{"kind": "Issuer", "name": "demo-operator-selfsigned"}),
		))
		g.Expect(m).To(HaveKey("Issuer demo-operator-system/demo-operator-selfsigned"))

		m = mustRender(t, values(t, "metrics: {tls: {certManager: {enabled: true, issuerRef: {kind: ClusterIssuer, name: corp-ca}}}}"))
		g.Expect(m).NotTo(HaveKey("Issuer demo-operator-system/demo-operator-selfsigned"))
		g.Expect(m["Certificate demo-operator-system/demo-operator-metrics-cert"].Object["spec"]).To(
			HaveKeyWithValue("issuerRef", map[string]interface{}{"kind": "ClusterIssuer", "name": "corp-ca"}))
	})
}

// TestRenderNetworkPolicyWithoutMetrics checks that a NetworkPolicy with nothing to admit says
// so, in the policy and in the notes.
func TestRenderNetworkPolicyWithoutMetrics(t *testing.T) {
	g := NewWithT(t)
	rel, err := renderRelease(t, loadChart(t), releaseName, values(t, "{networkPolicy: {enabled: true}, metrics: {enabled: false}}"))
	g.Expect(err).NotTo(HaveOccurred())
	np := parseManifest(t, rel.Manifest)["NetworkPolicy demo-operator-system/demo-operator"]
	g.Expect(np).NotTo(BeNil())
	ingress, found, err := unstructured.NestedSlice(np.Object, "spec", "ingress")
	g.Expect(err).NotTo(HaveOccurred(), "ingress is a list, not null")
	g.Expect(found).To(BeTrue())
	g.Expect(ingress).To(BeEmpty())
	g.Expect(rel.Info.Notes).To(ContainSubstring("The NetworkPolicy admits no ingress to the manager pods"))
}

// hookManifest joins the hooks' manifests (the helm test objects) into one.
func hookManifest(hooks []*release.Hook) string {
	var out string
	for _, h := range hooks {
		out += "---\n" + h.Manifest + "\n"
	}
	return out
}

// TestRenderWithoutRestraint checks that turning the restraint off is a visible choice: no
// policy is rendered, and the notes say what the manager's token may then do.
func TestRenderWithoutRestraint(t *testing.T) {
	g := NewWithT(t)
	rel, err := renderRelease(t, loadChart(t), releaseName, values(t, "{restraint: {enabled: false}}"))
	g.Expect(err).NotTo(HaveOccurred())
	for key := range parseManifest(t, rel.Manifest) {
		g.Expect(key).NotTo(HavePrefix("ValidatingAdmissionPolicy"))
	}
	g.Expect(rel.Info.Notes).To(And(ContainSubstring("WARNING: restraint.enabled is false"), ContainSubstring("demo_operator_restraint_enforced")))
	g.Expect(rel.Info.Notes).NotTo(ContainSubstring("paas.cmft.com/applications=enabled"))

	// Restrained, the notes say how a namespace is handed to applications, as the policy reads it.
	rel, err = renderRelease(t, loadChart(t), releaseName, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rel.Info.Notes).NotTo(ContainSubstring("restraint.enabled is false"))
	g.Expect(rel.Info.Notes).To(ContainSubstring("kubectl label namespace default " + wellknown.LabelApplicationsNamespace + "=" + wellknown.ApplicationsEnabled))
}
