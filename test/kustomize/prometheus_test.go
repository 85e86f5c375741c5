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

// Package kustomize checks config/default: the optional parts that make deploy leaves commented
// out, built as a user who uncomments them gets them, and the one-file installer of make
// build-installer, applied to a real API server.
package kustomize

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestPrometheusScrapesAsMetricsReader builds config/default with its [PROMETHEUS] line
// uncommented and checks that the ServiceMonitor sends the token of a ServiceAccount that
// the API server allows to read /metrics, which the manager's authorization asks it.
func TestPrometheusScrapesAsMetricsReader(t *testing.T) {
	g := NewWithT(t)
	objs := build(t, "[PROMETHEUS]")

	monitor := find(g, objs, "ServiceMonitor", "")
	endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	g.Expect(endpoints).To(HaveLen(1))
	endpoint := endpoints[0].(map[string]any)
	g.Expect(endpoint).NotTo(HaveKey("bearerTokenFile"), "prometheus-operator may deny ServiceMonitors file access")
	secretName, _, _ := unstructured.NestedString(endpoint, "authorization", "credentials", "name")
	key, _, _ := unstructured.NestedString(endpoint, "authorization", "credentials", "key")
	g.Expect(key).To(Equal(corev1.ServiceAccountTokenKey))

	// Prometheus reads the Secret from the ServiceMonitor's namespace.
	secret := find(g, objs, "Secret", secretName)
	g.Expect(secret.GetNamespace()).To(Equal(monitor.GetNamespace()))
	g.Expect(secret.Object["type"]).To(BeEquivalentTo(corev1.SecretTypeServiceAccountToken))
	scraper := find(g, objs, "ServiceAccount", secret.GetAnnotations()[corev1.ServiceAccountNameKey])
	g.Expect(scraper.GetNamespace()).To(Equal(monitor.GetNamespace()))

	// The API server's RBAC authorizer decides, as it does for the manager's
	// SubjectAccessReview of a scrape.
	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	mayScrape := func(serviceAccount string) bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  "system:serviceaccount:" + monitor.GetNamespace() + ":" + serviceAccount,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		}}
		g.Expect(k8s.Create(ctx, sar)).To(Succeed())
		return sar.Status.Allowed
	}
	g.Expect(mayScrape(scraper.GetName())).To(BeFalse(), "nothing is applied yet")
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: monitor.GetNamespace()}})).To(Succeed())
	for _, obj := range objs {
		if kind := obj.GetKind(); kind == "ServiceAccount" || kind == "ClusterRole" || kind == "ClusterRoleBinding" {
			g.Expect(k8s.Create(ctx, obj)).To(Succeed(), "%s %s", kind, obj.GetName())
		}
	}
	g.Eventually(func() bool { return mayScrape(scraper.GetName()) }, 10*time.Second).Should(BeTrue())
	g.Expect(mayScrape("default")).To(BeFalse(), "only the scraper is bound")
}

// TestAlertsSelectTheMetricsService checks that the operator's alerts, which select a scrape
// job, select the one prometheus-operator names after the metrics Service that the
// ServiceMonitor scrapes: with another name, DemoOperatorDown would fire on a healthy operator.
func TestAlertsSelectTheMetricsService(t *testing.T) {
	g := NewWithT(t)
	objs := build(t, "[PROMETHEUS]")
	rule := find(g, objs, "PrometheusRule", "")
	g.Expect(rule.GetNamespace()).To(Equal("demo-operator-system"))
	monitor := find(g, objs, "ServiceMonitor", "")
	selector, _, _ := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
	var scraped []string
	for _, obj := range objs {
		if obj.GetKind() == "Service" && labels.SelectorFromSet(selector).Matches(labels.Set(obj.GetLabels())) {
			scraped = append(scraped, obj.GetName())
		}
	}
	g.Expect(scraped).To(HaveLen(1))

	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	jobs := regexp.MustCompile(`job="([^"]*)"`)
	selected := 0
	for _, group := range groups {
		rules, _, _ := unstructured.NestedSlice(group.(map[string]any), "rules")
		for _, r := range rules {
			for _, match := range jobs.FindAllStringSubmatch(r.(map[string]any)["expr"].(string), -1) {
				g.Expect(match[1]).To(Equal(scraped[0]))
				selected++
			}
		}
	}
	g.Expect(selected).NotTo(BeZero())
}

// TestDashboardForGrafanaSidecar checks the dashboard's ConfigMap of config/default's [GRAFANA]
// part: labelled for Grafana's sidecar, holding the dashboard of config/grafana.
func TestDashboardForGrafanaSidecar(t *testing.T) {
	g := NewWithT(t)
	dashboard := find(g, build(t, "[GRAFANA]"), "ConfigMap", "demo-operator-dashboard")
	g.Expect(dashboard.GetNamespace()).To(Equal("demo-operator-system"))
	g.Expect(dashboard.GetLabels()).To(HaveKeyWithValue("grafana_dashboard", "1"))
	want, err := os.ReadFile(filepath.Join(testenv.Root(), "config/grafana/demo-operator.json"))
	g.Expect(err).NotTo(HaveOccurred())
	data, _, _ := unstructured.NestedString(dashboard.Object, "data", "demo-operator.json")
	g.Expect(data).To(MatchJSON(want))
}

// build runs kustomize on a copy of config/ whose config/default has the resource line
// after the comment naming marker uncommented, and returns the objects.
func build(t *testing.T, marker string) []*unstructured.Unstructured {
	t.Helper()
	return buildEdited(t, func(kustomization string) string { return uncomment(t, kustomization, marker) })
}

// buildEdited runs kustomize on a copy of config/ whose config/default/kustomization.yaml
// edit rewrote, and returns the objects.
func buildEdited(t *testing.T, edit func(kustomization string) string) []*unstructured.Unstructured {
	t.Helper()
	g := NewWithT(t)
	root := filepath.Join(testenv.Root(), "config")
	mem := filesys.MakeFsInMemory()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == filepath.Join("default", "kustomization.yaml") {
			data = []byte(edit(string(data)))
		}
		return mem.WriteFile(filepath.Join("/config", rel), data)
	})
	g.Expect(err).NotTo(HaveOccurred())
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, "/config/default")
	g.Expect(err).NotTo(HaveOccurred())
	return objects(g, resources)
}

// uncomment removes the "#" of the line after the comment holding marker.
func uncomment(t *testing.T, kustomization, marker string) string {
	lines := strings.Split(kustomization, "\n")
	for i, line := range lines[:len(lines)-1] {
		if strings.HasPrefix(line, "#") && strings.Contains(line, marker) && strings.HasPrefix(lines[i+1], "#- ") {
			lines[i+1] = strings.TrimPrefix(lines[i+1], "#")
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("config/default/kustomization.yaml has no commented resource after %s", marker)
	return ""
}

func objects(g Gomega, resources resmap.ResMap) []*unstructured.Unstructured {
	rs := resources.Resources()
	objs := make([]*unstructured.Unstructured, 0, len(rs))
	for _, r := range rs {
		data, err := r.MarshalJSON()
		g.Expect(err).NotTo(HaveOccurred())
		obj := &unstructured.Unstructured{}
		g.Expect(obj.UnmarshalJSON(data)).To(Succeed())
		objs = append(objs, obj)
	}
	return objs
}

// find returns the object of kind named name; any name when name is empty.
func find(g Gomega, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, obj := range objs {
		if obj.GetKind() == kind && (name == "" || obj.GetName() == name) {
			return obj
		}
	}
	g.Expect(kind+" "+name).To(BeEmpty(), "not in the build")
	return nil
}
