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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestWithoutGatewayAPI runs the manager, restrained, on a cluster without the Gateway API's
// CRDs: it starts and serves apps, and an app that asks for an HTTPRoute is told why it has none.
func TestWithoutGatewayAPI(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env, cfg, err := testenv.Start(testenv.WithoutGatewayAPI)
	testenv.Require(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	operator, err := testenv.AsOperator(ctx, cfg)
	g.Expect(err).NotTo(HaveOccurred())
	opts := DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	mgr, err := New(operator, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	g.Expect(err).NotTo(HaveOccurred())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Logf("manager stopped: %v", err)
		}
	})

	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ns := testenv.NewNamespace(t, c, "no-gateway-api-")
	app := &paasv1.DemoApplication{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: paasv1.DemoApplicationSpec{
		Image: "registry.example/web:1", Ports: []paasv1.DemoApplicationPort{{Port: 80}},
		HTTPRoute: &paasv1.HTTPRoute{ParentRefs: []paasv1.GatewayReference{{Name: "public"}}},
	}}
	g.Expect(c.Create(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		degraded := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
		g.Expect(degraded).NotTo(BeNil())
		g.Expect(degraded.Reason).To(Equal(paasv1.ReasonGatewayAPIMissing))
		g.Expect(degraded.Message).To(ContainSubstring("install the Gateway API's CRDs, then restart the operator"))
		// Everything else is made.
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(app), &corev1.Service{})).To(Succeed())
	}, 30*time.Second).Should(Succeed())
}
