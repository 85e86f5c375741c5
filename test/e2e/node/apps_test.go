//go:build node

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

package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
)

// The helpers of the tests that run applications as a team would: an app's pods, its Service's
// address, its spec changed while the operator writes its status.

// podsOf is the label selector of app's pods.
func podsOf(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{"app.kubernetes.io/name": app.Name}
}

// serviceURL is the URL of path on app's Service's port 80, at its cluster IP: a call to it
// goes through kube-proxy's rules.
func serviceURL(g Gomega, app *paasv1.DemoApplication, path string) string {
	svc := &corev1.Service{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), svc)).To(Succeed())
	return fmt.Sprintf("http://%s:80%s", svc.Spec.ClusterIP, path)
}

// updateApp applies change to a fresh copy of app and updates it, again on a conflict: the
// operator writes the app's status meanwhile.
func updateApp(g Gomega, app *paasv1.DemoApplication, change func(*paasv1.DemoApplication)) {
	g.Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(app), app); err != nil {
			return err
		}
		change(app)
		return k8s.Update(context.Background(), app)
	})).To(Succeed())
}

// expectServing waits, up to 3 minutes, until app is Ready by its status, n of its pods Running
// and Ready on the real node, and its Service answering through kube-proxy; it returns the pods.
func expectServing(t *testing.T, app *paasv1.DemoApplication, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	start := time.Now()
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), app)).To(Succeed())
		g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionReady)).To(BeTrue(), "%v", app.Status.Conditions)
		pods = framework.ReadyPods(g, k8s, app.Namespace, podsOf(app))
		g.Expect(pods).To(HaveLen(n), func() string {
			return "Ready pods; all of them: " + framework.DescribePods(k8s, app.Namespace, podsOf(app))
		})
		names := make([]string, 0, n)
		for _, p := range pods {
			g.Expect(p.Spec.NodeName).To(Equal(localcluster.NodeName))
			names = append(names, p.Name)
		}
		answer, err := get(serviceURL(g, app, "/"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(answer).To(BeElementOf(names))
	}, 3*time.Minute, 250*time.Millisecond).Should(Succeed())
	t.Logf("%s: Ready, %d pods Ready and its Service answering after %s", app.Name, n, time.Since(start).Round(100*time.Millisecond))
	return pods
}

// expectDegraded waits until app's status says Degraded for reason, with a message that
// contains contains, and returns that condition.
func expectDegraded(t *testing.T, app *paasv1.DemoApplication, reason, contains string, timeout time.Duration) metav1.Condition {
	t.Helper()
	var degraded metav1.Condition
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), app)).To(Succeed())
		c := apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
		g.Expect(c).To(And(Not(BeNil()), HaveField("Status", metav1.ConditionTrue), HaveField("Reason", reason)), "%v", app.Status.Conditions)
		g.Expect(c.Message).To(ContainSubstring(contains))
		degraded = *c
	}, timeout, 250*time.Millisecond).Should(Succeed())
	return degraded
}

// readyAfter makes the podname app's /ready answer 503 for d after each pod starts, probed
// every second and taken out of its Services after failureThreshold failures in a row.
func readyAfter(d time.Duration, failureThreshold int32) builder.Option {
	return func(app *paasv1.DemoApplication) {
		app.Spec.Env = append(app.Spec.Env, paasv1.EnvVar{Name: "READY_AFTER", Value: d.String()})
		app.Spec.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)},
			PeriodSeconds: 1, FailureThreshold: failureThreshold}
	}
}
