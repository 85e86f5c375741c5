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

// Package monitoring checks what the operator ships for Prometheus and Grafana, with promtool:
// the alert rules of config/prometheus, which the chart renders too, and the dashboard of
// config/grafana. Every series they read must be one the metrics reference documents, so that a
// renamed metric breaks a test and not an alert.
package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// job is the scrape job of config/default's metrics Service, which the operator's alerts select.
const job = "demo-operator-controller-manager-metrics-service"

// ruleFile is a Prometheus rule file, the spec of a PrometheusRule.
type ruleFile struct {
	Groups []ruleGroup `json:"groups"`
}

type ruleGroup struct {
	Name  string `json:"name"`
	Rules []rule `json:"rules"`
}

type rule struct {
	Alert       string            `json:"alert,omitempty"`
	Record      string            `json:"record,omitempty"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// TestAlerts checks the rules with promtool and runs its unit tests of them
// (testdata/rules_test.yaml): every alert fires in one test and stays silent in another.
func TestAlerts(t *testing.T) {
	g := NewWithT(t)
	rules := alertRules(t)
	dir := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(dir, "rules.yaml"), ruleSpec(t), 0o600)).To(Succeed())
	tests, err := os.ReadFile("testdata/rules_test.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(dir, "rules_test.yaml"), []byte(strings.ReplaceAll(string(tests), "JOB", job)), 0o600)).To(Succeed())

	promtool(t, "check", "rules", filepath.Join(dir, "rules.yaml"))
	promtool(t, "test", "rules", filepath.Join(dir, "rules_test.yaml"))

	// promtool fails a test whose alert fires unexpected, not an alert no test names.
	var unitTests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	g.Expect(yaml.Unmarshal(tests, &unitTests)).To(Succeed())
	fires, silent := map[string]bool{}, map[string]bool{}
	for _, test := range unitTests.Tests {
		for _, check := range test.AlertRuleTest {
			if len(check.ExpAlerts) > 0 {
				fires[check.Alertname] = true
			} else {
				silent[check.Alertname] = true
			}
		}
	}
	for _, r := range allRules(rules) {
		g.Expect(fires).To(HaveKey(r.Alert), "no test in which %s fires", r.Alert)
		g.Expect(silent).To(HaveKey(r.Alert), "no test in which %s stays silent", r.Alert)
	}
}

// TestAlertsAreDocumented checks that every alert says what happened, how bad it is and where
// its runbook is, and that the runbook exists.
func TestAlertsAreDocumented(t *testing.T) {
	runbooks, err := os.ReadFile(filepath.Join(testenv.Root(), "docs/operate/alerts.md"))
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	for _, r := range allRules(alertRules(t)) {
		t.Run(r.Alert, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(r.Labels["severity"]).To(BeElementOf("warning", "critical"))
			g.Expect(r.Annotations).To(And(HaveKey("summary"), HaveKey("description")))
			anchor := strings.ToLower(r.Alert)
			g.Expect(r.Annotations["runbook_url"]).To(Equal(
				"https://github.com/cmft/demo-operator/blob/main/docs/operate/alerts.md#" + anchor))
			g.Expect(string(runbooks)).To(MatchRegexp(`(?m)^## %s$`, r.Alert), "no runbook section for %s", r.Alert)
		})
	}
}

// TestDashboard checks every query of the dashboard with promtool, as a recording rule, with
// Grafana's variables given the values Grafana gives them.
func TestDashboard(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config/grafana/demo-operator.json"))
	g.Expect(err).NotTo(HaveOccurred())
	queries := dashboardQueries(t, data)
	g.Expect(queries).NotTo(BeEmpty())

	recorded := ruleGroup{Name: "dashboard"}
	grafana := strings.NewReplacer("$__rate_interval", "5m", "$namespace", ".*", "$job", ".*")
	for i, q := range queries {
		recorded.Rules = append(recorded.Rules, rule{Record: fmt.Sprintf("dashboard:query%d", i), Expr: grafana.Replace(q)})
	}
	file := filepath.Join(t.TempDir(), "dashboard.yaml")
	writeYAML(t, file, ruleFile{Groups: []ruleGroup{recorded}})
	promtool(t, "check", "rules", "--lint=none", file)
}

// TestSeriesAreDocumented fails when a rule or the dashboard reads a series the metrics
// reference does not list.
func TestSeriesAreDocumented(t *testing.T) {
	g := NewWithT(t)
	reference, err := os.ReadFile(filepath.Join(testenv.Root(), "docs/reference/metrics.md"))
	g.Expect(err).NotTo(HaveOccurred())
	dashboard, err := os.ReadFile(filepath.Join(testenv.Root(), "config/grafana/demo-operator.json"))
	g.Expect(err).NotTo(HaveOccurred())
	exprs := dashboardQueries(t, dashboard)
	for _, r := range allRules(alertRules(t)) {
		exprs = append(exprs, r.Expr)
	}
	series := regexp.MustCompile(`\b(?:demoapplication|controller_runtime|workqueue|leader_election|process|go|rest_client)_[a-z_]+`)
	histogram := regexp.MustCompile(`_(bucket|count|sum)$`)
	for _, expr := range exprs {
		for _, name := range series.FindAllString(expr, -1) {
			name = histogram.ReplaceAllString(name, "")
			g.Expect(strings.Contains(string(reference), "`"+name+"`")).To(BeTrue(), "%s, read by %q, is not in docs/reference/metrics.md", name, expr)
		}
	}
}

// alertRules reads the rules of config/prometheus/rules.yaml.
func alertRules(t *testing.T) ruleFile {
	t.Helper()
	var rules ruleFile
	if err := yaml.Unmarshal(ruleSpec(t), &rules); err != nil {
		t.Fatal(err)
	}
	return rules
}

// ruleSpec returns the spec of config/prometheus/rules.yaml as it is written, unknown fields
// included, for promtool to check.
func ruleSpec(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var prometheusRule struct {
		Spec any `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &prometheusRule); err != nil {
		t.Fatal(err)
	}
	spec, err := yaml.Marshal(prometheusRule.Spec)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func allRules(f ruleFile) []rule {
	var rules []rule
	for _, group := range f.Groups {
		rules = append(rules, group.Rules...)
	}
	return rules
}

// dashboardQueries returns the PromQL of every panel's targets and of the template variables.
func dashboardQueries(t *testing.T, data []byte) []string {
	t.Helper()
	var dashboard struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dashboard); err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, p := range dashboard.Panels {
		for _, target := range p.Targets {
			queries = append(queries, target.Expr)
		}
	}
	// label_values(series, label) is Grafana's: the series is the query Prometheus runs.
	labelValues := regexp.MustCompile(`^label_values\((.*), *\w+\)$`)
	for _, v := range dashboard.Templating.List {
		if q, ok := v.Query.(map[string]any); ok && v.Type == "query" {
			query, _ := q["query"].(string)
			match := labelValues.FindStringSubmatch(query)
			if match == nil {
				t.Fatalf("template variable query %q: not label_values(series, label)", query)
			}
			queries = append(queries, match[1])
		}
	}
	return queries
}

func writeYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// promtool runs bin/promtool (make promtool), or $PROMTOOL, and fails the test with its output
// when it fails.
func promtool(t *testing.T, args ...string) {
	t.Helper()
	bin, err := testenv.Tool("promtool")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
