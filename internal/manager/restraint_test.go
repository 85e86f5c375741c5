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

package manager

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// enforced reads the restraint metric.
func enforced() float64 {
	m := &dto.Metric{}
	if err := restraintEnforced.Write(m); err != nil {
		panic(err)
	}
	return m.GetGauge().GetValue()
}

// TestRestraintCheck runs the manager on a real API server under three identities: the
// operator's ServiceAccount restrained by config/restraint as config/default installs it; a
// ServiceAccount of the same name in another namespace, which the installed policies do not
// name (an overlay that moved the operator, or OLM, which installs none); and a user that is
// no ServiceAccount. Each manager says in its metric, and the unrestrained one in an Event
// on its ServiceAccount, what the API server let it do.
func TestRestraintCheck(t *testing.T) {
	g := NewWithT(t)
	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	ctx := context.Background()
	admin, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())

	// check starts a manager as cfg, waits for its restraint check to end and returns the
	// metric. The manager runs until the subtest ends: its Event is sent after the metric is
	// set, and a manager that stops drops the Events it has not sent yet.
	check := func(t *testing.T, cfg *rest.Config) float64 {
		restraintEnforced.Set(restraintUnknown)
		opts := DefaultOptions()
		opts.MetricsAddr, opts.ProbeAddr = "0", "0"
		mgr, err := New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		mgrCtx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- mgr.Start(mgrCtx) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Logf("manager stopped: %v", err)
			}
		})
		NewWithT(t).Eventually(func() float64 { return enforced() }, 30*time.Second, 50*time.Millisecond).
			ShouldNot(BeEquivalentTo(restraintUnknown))
		return enforced()
	}
	// warnings returns the Unrestrained Events on the ServiceAccount namespace/name.
	warnings := func(g Gomega, namespace, name string) []eventsv1.Event {
		list := &eventsv1.EventList{}
		g.Expect(admin.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		var out []eventsv1.Event
		for _, e := range list.Items {
			if e.Reason == ReasonUnrestrained && e.Regarding.Kind == "ServiceAccount" && e.Regarding.Name == name {
				out = append(out, e)
			}
		}
		return out
	}

	t.Run("the operator's ServiceAccount under config/default's restraint is restrained", func(t *testing.T) {
		operator, err := testenv.AsOperator(ctx, cfg)
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		NewWithT(t).Expect(check(t, operator)).To(BeEquivalentTo(restraintInForce))
		NewWithT(t).Consistently(func(g Gomega) []eventsv1.Event {
			return warnings(g, testenv.OperatorNamespace, testenv.OperatorServiceAccount)
		}, 2*time.Second).Should(BeEmpty())
	})

	t.Run("a ServiceAccount the policies do not name says it is not restrained", func(t *testing.T) {
		g := NewWithT(t)
		const namespace = "olm-operators"
		g.Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
		g.Expect(admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: testenv.OperatorServiceAccount}})).To(Succeed())
		roles, err := testenv.Objects(filepath.Join(testenv.Root(), "config", "rbac", "role.yaml"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(admin.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "olm-operators-manager"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roles[0].GetName()},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: testenv.OperatorServiceAccount}},
		})).To(Succeed())
		moved := testenv.ServiceAccountConfig(cfg, namespace, testenv.OperatorServiceAccount)
		// The binding reaches the authorizer a moment later: until then the probe is RBAC's to
		// refuse, and the check retries.
		g.Expect(check(t, moved)).To(BeEquivalentTo(restraintAbsent))
		g.Eventually(func(g Gomega) {
			events := warnings(g, namespace, testenv.OperatorServiceAccount)
			g.Expect(events).To(HaveLen(1))
			g.Expect(events[0].Type).To(Equal(corev1.EventTypeWarning))
			g.Expect(events[0].Note).To(And(ContainSubstring("restraint-objects"), ContainSubstring("docs/operate/security.md")))
		}, 10*time.Second).Should(Succeed())
	})

	t.Run("a user that is no ServiceAccount is not restrained", func(t *testing.T) {
		NewWithT(t).Expect(check(t, cfg)).To(BeEquivalentTo(restraintAbsent))
	})
}

// TestRestraintMetricDocumented checks that the metrics reference names the restraint's
// metric with its help text.
func TestRestraintMetricDocumented(t *testing.T) {
	g := NewWithT(t)
	doc, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "reference", "metrics.md"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(doc)).To(ContainSubstring("| `demo_operator_restraint_enforced` | gauge | | " + restraintHelp + " |"))
}
