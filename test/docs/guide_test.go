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

package docs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestGuideDefaultsAndOrder: what docs/guide/demoapplication.md says an app gets when its spec
// leaves a field out, and the order it gives the pod's containers, is what the operator builds
// on a real API server, as stored there (the API server's defaults included). Each case quotes
// the guide: a page that changes the words, or a build that changes the value, fails it.
func TestGuideDefaultsAndOrder(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, cfg, err := testenv.Start()
	testenv.Require(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := client.New(cfg, client.Options{Scheme: manager.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	operator, err := testenv.AsOperator(ctx, cfg)
	g.Expect(err).NotTo(HaveOccurred())
	opts := manager.DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	mgr, err := manager.New(operator, opts)
	g.Expect(err).NotTo(HaveOccurred())
	controllersuite.Start(t, mgr)

	app := &paasv1.DemoApplication{ObjectMeta: metav1.ObjectMeta{Namespace: testenv.NewNamespace(t, admin, "guide-"), Name: "web"},
		Spec: paasv1.DemoApplicationSpec{Image: "nginx:1.27", Ports: []paasv1.DemoApplicationPort{{Port: 80}},
			Sidecars:       []paasv1.Sidecar{{Container: paasv1.Container{Name: "proxy", Image: "proxy:1"}}},
			InitContainers: []paasv1.Container{{Name: "migrate", Image: "migrate:1"}}}}
	g.Expect(admin.Create(ctx, app)).To(Succeed())
	d := &appsv1.Deployment{}
	g.Eventually(func() error { return admin.Get(ctx, client.ObjectKeyFromObject(app), d) }, 30*time.Second, 100*time.Millisecond).To(Succeed())
	pod := d.Spec.Template.Spec

	data, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "guide", "demoapplication.md"))
	g.Expect(err).NotTo(HaveOccurred())
	guide := string(data)
	quarter := intstr.FromString("25%")
	for _, tc := range []struct {
		says  string
		holds func(g Gomega)
	}{
		{"| `replica` | number of pods, default 1", func(g Gomega) { g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(1))) }},
		{"old ReplicaSets kept to roll back to (0–100; default 10)", func(g Gomega) { g.Expect(d.Spec.RevisionHistoryLimit).To(HaveValue(BeEquivalentTo(10))) }},
		{"before it is killed (1–86400; default 30)", func(g Gomega) { g.Expect(pod.TerminationGracePeriodSeconds).To(HaveValue(BeEquivalentTo(30))) }},
		{"`type` `RollingUpdate` (default; `rollingUpdate.maxSurge`, `maxUnavailable`, each 25% unless set)", func(g Gomega) {
			g.Expect(d.Spec.Strategy.Type).To(Equal(appsv1.RollingUpdateDeploymentStrategyType))
			g.Expect(d.Spec.Strategy.RollingUpdate).To(HaveField("MaxSurge", HaveValue(Equal(quarter))))
			g.Expect(d.Spec.Strategy.RollingUpdate).To(HaveField("MaxUnavailable", HaveValue(Equal(quarter))))
		}},
		{"Unset, an app with ports pauses 5 seconds", func(g Gomega) {
			g.Expect(pod.Containers[0].Lifecycle).To(HaveField("PreStop.Sleep.Seconds", BeEquivalentTo(5)))
		}},
		{"`rolloutOnConfigChange` | `Env` (default)", func(g Gomega) {
			stored := &paasv1.DemoApplication{}
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(app), stored)).To(Succeed())
			g.Expect(stored.Spec.RolloutOnConfigChange).To(BeEquivalentTo("Env"))
		}},
		{"started first, before the `initContainers`", func(g Gomega) {
			g.Expect(pod.InitContainers).To(HaveLen(2))
			g.Expect(pod.InitContainers[0]).To(And(HaveField("Name", "proxy"), HaveField("RestartPolicy", HaveValue(Equal(corev1.ContainerRestartPolicyAlways)))))
			g.Expect(pod.InitContainers[1]).To(And(HaveField("Name", "migrate"), HaveField("RestartPolicy", BeNil())))
		}},
	} {
		g.Expect(guide).To(ContainSubstring(tc.says), "the guide says it")
		tc.holds(NewGomega(func(message string, _ ...int) { t.Errorf("the guide says %q, but %s", tc.says, message) }))
	}
}
