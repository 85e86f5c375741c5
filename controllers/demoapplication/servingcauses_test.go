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

package demoapplication_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/health"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// verdicts returns kstatus' and Argo CD's verdicts on app.
func verdicts(g Gomega, app *paasv1.DemoApplication) (kstatus.Status, string) {
	k, err := health.Kstatus(app)
	g.Expect(err).NotTo(HaveOccurred())
	a, err := health.ArgoCDOf(app)
	g.Expect(err).NotTo(HaveOccurred())
	return k, a.Status
}

// setAutoscalerConditions plays the HPA controller, which envtest does not run: it writes
// conditions, changed since ago, on the autoscaler of app.
func setAutoscalerConditions(g Gomega, app *paasv1.DemoApplication, ago time.Duration, conditions ...autoscalingv2.HorizontalPodAutoscalerCondition) {
	hpa := get(g, app.Namespace, app.Name, &autoscalingv2.HorizontalPodAutoscaler{})
	for i := range conditions {
		conditions[i].LastTransitionTime = metav1.NewTime(time.Now().Add(-ago))
	}
	hpa.Status.Conditions = conditions
	g.Expect(k8sClient.Status().Update(context.Background(), hpa)).To(Succeed())
}

func hpaCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus,
	reason, message string) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: status, Reason: reason, Message: message}
}

// TestAutoscalerCauses: the autoscaler's own conditions reach the app's status within seconds:
// Reconciling while they may still pass (metrics arrive a minute after an autoscaler is made),
// Degraded once they have lasted the grace period; and they clear when the autoscaler recovers.
func TestAutoscalerCauses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "api")
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	app.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)
	g.Eventually(func(g Gomega) {
		get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
		markDeploymentAvailable(g, ns, "api")
	}).Should(Succeed())
	able := hpaCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
	noMetrics := "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: " +
		"no metrics returned from resource metrics API"

	t.Run("no metrics yet: Reconciling, in the autoscaler's words", func(t *testing.T) {
		g := NewWithT(t)
		setAutoscalerConditions(g, app, 0, able,
			hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric", noMetrics))
		start := time.Now()
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionReconciling, metav1.ConditionTrue, paasv1.ReasonAutoscalingInactive))
			g.Expect(condition(got, paasv1.ConditionReconciling).Message).To(Equal("HorizontalPodAutoscaler api: " + noMetrics))
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
			k, argo := verdicts(g, got)
			g.Expect(k).To(Equal(kstatus.InProgressStatus))
			g.Expect(argo).To(Equal(health.Progressing))
		}).Should(Succeed())
		t.Logf("autoscaler condition to app status: %s", time.Since(start).Round(10*time.Millisecond))
	})

	t.Run("metrics arrive: the cause clears", func(t *testing.T) {
		g := NewWithT(t)
		setAutoscalerConditions(g, app, 0, able,
			hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count"))
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionReady, metav1.ConditionTrue, paasv1.ReasonRolloutComplete))
			k, argo := verdicts(g, got)
			g.Expect(k).To(Equal(kstatus.CurrentStatus))
			g.Expect(argo).To(Equal(health.Healthy))
		}).Should(Succeed())
	})

	t.Run("metrics changing at every sync reconcile nothing", func(t *testing.T) {
		g := NewWithT(t)
		// A mark in the app's status that only a reconcile would take back (a status write does
		// not reconcile it).
		marked := get(g, ns, "api", &paasv1.DemoApplication{})
		marked.Status.DesiredReplicas = 99
		g.Expect(k8sClient.Status().Update(ctx, marked)).To(Succeed())
		for i := range int32(5) {
			hpa := get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
			hpa.Status.CurrentReplicas = 2 + i%2
			hpa.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(40 + i)}}}}
			g.Expect(k8sClient.Status().Update(ctx, hpa)).To(Succeed())
		}
		g.Consistently(func(g Gomega) int32 {
			return get(g, ns, "api", &paasv1.DemoApplication{}).Status.DesiredReplicas
		}, 2*time.Second).Should(Equal(int32(99)))
	})

	t.Run("unable to scale past the grace period: Degraded", func(t *testing.T) {
		g := NewWithT(t)
		failed := `the HPA controller was unable to get the target's current scale: deployments/scale.apps "api" is forbidden`
		setAutoscalerConditions(g, app, 10*time.Minute,
			hpaCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", failed))
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonAutoscalerUnableToScale))
			g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(Equal("HorizontalPodAutoscaler api: " + failed))
			g.Expect(got).To(haveCondition(paasv1.ConditionStalled, metav1.ConditionTrue, paasv1.ReasonAutoscalerUnableToScale))
			k, argo := verdicts(g, got)
			g.Expect(k).To(Equal(kstatus.FailedStatus))
			g.Expect(argo).To(Equal(health.Degraded))
		}).Should(Succeed())
		g.Eventually(func(g Gomega) []string {
			return eventNotes(g, ns, "api", paasv1.ReasonAutoscalerUnableToScale)
		}).Should(ConsistOf("HorizontalPodAutoscaler api: " + failed))
	})

	t.Run("fixed: the cause clears", func(t *testing.T) {
		g := NewWithT(t)
		setAutoscalerConditions(g, app, 0, able)
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(got.Status.DesiredReplicas).To(Equal(int32(2)))
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
			g.Expect(got).To(haveCondition(paasv1.ConditionReady, metav1.ConditionTrue, paasv1.ReasonRolloutComplete))
		}).Should(Succeed())
	})
}

// TestDesiredReplicas: the app's DESIRED column says how many pods its Deployment asks for,
// what the autoscaler set when it owns the replicas, not spec.replica.
func TestDesiredReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web", builder.Replicas(1))
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	app.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)
	g.Eventually(func(g Gomega) {
		g.Expect(get(g, ns, "web", &paasv1.DemoApplication{}).Status.DesiredReplicas).To(Equal(int32(2)))
	}).Should(Succeed())

	// The autoscaler scales the Deployment through its scale subresource, again when the
	// operator wrote the Deployment in between (a conflict), as the autoscaler retries.
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	g.Eventually(func(g Gomega) {
		scale := &autoscalingv1.Scale{}
		g.Expect(k8sClient.SubResource("scale").Get(ctx, deployment, scale)).To(Succeed())
		scale.Spec.Replicas = 4
		g.Expect(k8sClient.SubResource("scale").Update(ctx, deployment, client.WithSubResourceBody(scale))).To(Succeed())
	}).Should(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "web", &paasv1.DemoApplication{})
		g.Expect(got.Status.DesiredReplicas).To(Equal(int32(4)))
		g.Expect(*got.Spec.Replica).To(Equal(int32(1)))
	}).Should(Succeed())

	// kubectl get's DESIRED column, of each version, reads it.
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "demoapplications.paas.cmft.com"}, crd)).To(Succeed())
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	g.Expect(versions).NotTo(BeEmpty())
	for _, v := range versions {
		g.Expect(v).To(HaveKeyWithValue("additionalPrinterColumns", ContainElement(And(
			HaveKeyWithValue("name", "Desired"), HaveKeyWithValue("jsonPath", ".status.desiredReplicas")))))
	}
}

// TestIngressCauses: an Ingress that names an IngressClass the cluster does not have stalls the
// app within seconds; creating the class, or a controller reporting an address, clears it.
func TestIngressCauses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	// IngressClasses are cluster-wide: one of this test's own name.
	class := ns + "-lb"
	app := builder.DemoApplication(ns, "shop", builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.Ingress = &paasv1.Ingress{ClassName: paasv1.ObjectName(class), Hosts: []string{"shop.example.test"}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	deleteAtEnd(t, app)
	g.Eventually(func(g Gomega) { markDeploymentAvailable(g, ns, "shop") }).Should(Succeed())

	stalled := func(g Gomega) {
		got := get(g, ns, "shop", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonIngressClassNotFound))
		g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(Equal(`Ingress shop names IngressClass "` + class +
			`", which the cluster does not have: no Ingress controller that goes by IngressClasses serves it`))
		k, argo := verdicts(g, got)
		g.Expect(k).To(Equal(kstatus.FailedStatus))
		g.Expect(argo).To(Equal(health.Degraded))
	}
	served := func(g Gomega) {
		got := get(g, ns, "shop", &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
		g.Expect(got).To(haveCondition(paasv1.ConditionReady, metav1.ConditionTrue, paasv1.ReasonRolloutComplete))
		k, argo := verdicts(g, got)
		g.Expect(k).To(Equal(kstatus.CurrentStatus))
		g.Expect(argo).To(Equal(health.Healthy))
	}

	t.Run("no such IngressClass: Degraded, and a Warning Event", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(stalled).Should(Succeed())
		g.Eventually(func(g Gomega) int { return eventCount(g, ns, "shop", paasv1.ReasonIngressClassNotFound) }).Should(Equal(1))
	})

	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/lb"}}
	t.Run("the IngressClass created: the cause clears within seconds", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(k8sClient.Create(ctx, ic)).To(Succeed())
		start := time.Now()
		g.Eventually(served).Should(Succeed())
		t.Logf("IngressClass created to app Ready: %s", time.Since(start).Round(10*time.Millisecond))
	})

	t.Run("the IngressClass deleted: Degraded again", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(k8sClient.Delete(ctx, ic)).To(Succeed())
		g.Eventually(stalled).Should(Succeed())
	})

	t.Run("an address reported: served whatever the class", func(t *testing.T) {
		g := NewWithT(t)
		in := get(g, ns, "shop", &networkingv1.Ingress{})
		in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.10"}}
		g.Expect(k8sClient.Status().Update(ctx, in)).To(Succeed())
		g.Eventually(served).Should(Succeed())
	})
}
