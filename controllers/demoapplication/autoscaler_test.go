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
	"encoding/json"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/health"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// fieldOwners returns the managers whose fields of obj include path, in managedFields' keys
// (f:spec, f:replicas).
func fieldOwners(obj metav1.Object, path ...string) []string {
	var owners []string
	for _, entry := range obj.GetManagedFields() {
		var fields map[string]any
		if entry.FieldsV1 == nil || json.Unmarshal(entry.FieldsV1.GetRawBytes(), &fields) != nil {
			continue
		}
		found := true
		for _, key := range path {
			if fields, found = fields[key].(map[string]any); !found {
				break
			}
		}
		if found {
			owners = append(owners, entry.Manager)
		}
	}
	return owners
}

func TestAutoscaling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "api")
	app.Spec.Replica = ptr.To[int32](3)
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(*get(g, ns, "api", &appsv1.Deployment{}).Spec.Replicas).To(Equal(int32(3)))
	}, waitFor, pollEvery).Should(Succeed())

	t.Run("turning it on makes the autoscaler and keeps the pods running", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 6,
				TargetCPUUtilizationPercentage: ptr.To[int32](70), TargetMemoryUtilizationPercentage: ptr.To[int32](80)}
		})
		g.Eventually(func(g Gomega) {
			hpa := get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
			g.Expect(metav1.IsControlledBy(hpa, app)).To(BeTrue())
			g.Expect(hpa.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "api"}))
			g.Expect(hpa.Spec.MinReplicas).To(Equal(ptr.To[int32](2)))
			g.Expect(hpa.Spec.MaxReplicas).To(Equal(int32(6)))
			g.Expect(hpa.Spec.Metrics).To(HaveExactElements(
				HaveField("Resource.Target.AverageUtilization", ptr.To[int32](70)),
				HaveField("Resource.Target.AverageUtilization", ptr.To[int32](80))))
			g.Expect(hpa.Spec.Metrics[0].Resource.Name).To(Equal(corev1.ResourceCPU))
			// The operator no longer owns the replicas, and letting them go kept them at 3.
			d := get(g, ns, "api", &appsv1.Deployment{})
			g.Expect(fieldOwners(d, "f:spec", "f:replicas")).To(ConsistOf(demoapplication.ReplicasHandoverManager))
			g.Expect(*d.Spec.Replicas).To(Equal(int32(3)))
		}, waitFor, pollEvery).Should(Succeed())
		g.Expect(get(g, ns, "api", &appsv1.Deployment{}).Generation).To(Equal(int64(1)), "the handover changed the replicas, for a moment")
		// Converged, the autoscaler and the Deployment are not written again.
		writesNothing(g, "/apis/autoscaling/v2/namespaces/"+ns+"/", "/apis/apps/v1/namespaces/"+ns+"/")
	})

	t.Run("the operator leaves what the autoscaler scales", func(t *testing.T) {
		g := NewWithT(t)
		d := get(g, ns, "api", &appsv1.Deployment{})
		scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 5}}
		g.Expect(k8sClient.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(scale))).To(Succeed())
		// A spec change reconciles the app: the Deployment keeps the autoscaler's count.
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.MinReadySeconds = 5 })
		g.Eventually(func(g Gomega) {
			a := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation))
		}, waitFor, pollEvery).Should(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(*get(g, ns, "api", &appsv1.Deployment{}).Spec.Replicas).To(Equal(int32(5)))
		}, 2*time.Second).Should(Succeed())
	})

	t.Run("drift in the autoscaler is repaired", func(t *testing.T) {
		g := NewWithT(t)
		hpa := get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{})
		suite.MergePatch(t, hpa, `{"spec":{"maxReplicas":100}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "api", &autoscalingv2.HorizontalPodAutoscaler{}).Spec.MaxReplicas).To(Equal(int32(6)))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("turning it off deletes the autoscaler and applies replica again", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Autoscaling, a.Spec.Replica = nil, ptr.To[int32](4) })
		g.Eventually(gone(ns, "api", &autoscalingv2.HorizontalPodAutoscaler{}), waitFor, pollEvery).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "api", &appsv1.Deployment{})
			g.Expect(*d.Spec.Replicas).To(Equal(int32(4)))
			g.Expect(fieldOwners(d, "f:spec", "f:replicas")).To(ContainElement(wellknown.FieldManager))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("a new app starts at the autoscaler's minimum", func(t *testing.T) {
		g := NewWithT(t)
		scaled := builder.DemoApplication(ns, "scaled")
		scaled.Spec.Resources = app.Spec.Resources
		scaled.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](3), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](60)}
		g.Expect(k8sClient.Create(ctx, scaled)).To(Succeed())
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "scaled", &appsv1.Deployment{})
			g.Expect(fieldOwners(d, "f:spec", "f:replicas")).To(ConsistOf(demoapplication.ReplicasHandoverManager))
			g.Expect(*d.Spec.Replicas).To(Equal(int32(3)))
			g.Expect(d.Generation).To(Equal(int64(1)), "created at another count")
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("an autoscaler of the name someone else holds is left alone", func(t *testing.T) {
		g := NewWithT(t)
		theirs := &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 2,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "theirs"}},
		}
		g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
		held := builder.DemoApplication(ns, "held")
		held.Spec.Resources = app.Spec.Resources
		held.Spec.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
		g.Expect(k8sClient.Create(ctx, held)).To(Succeed())
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "held", &paasv1.DemoApplication{})
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
		}, waitFor, pollEvery).Should(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(get(g, ns, "held", &autoscalingv2.HorizontalPodAutoscaler{}).ResourceVersion).To(Equal(theirs.ResourceVersion))
		}, 2*time.Second).Should(Succeed())
	})
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
	}, waitFor, pollEvery).Should(Succeed())
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
		}, waitFor, pollEvery).Should(Succeed())
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
		}, waitFor, pollEvery).Should(Succeed())
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
		}, waitFor, pollEvery).Should(Succeed())
		g.Eventually(func(g Gomega) []string {
			return eventNotes(g, ns, "api", paasv1.ReasonAutoscalerUnableToScale)
		}, waitFor, pollEvery).Should(ConsistOf("HorizontalPodAutoscaler api: " + failed))
	})

	t.Run("fixed: the cause clears", func(t *testing.T) {
		g := NewWithT(t)
		setAutoscalerConditions(g, app, 0, able)
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "api", &paasv1.DemoApplication{})
			g.Expect(got.Status.DesiredReplicas).To(Equal(int32(2)))
			g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
			g.Expect(got).To(haveCondition(paasv1.ConditionReady, metav1.ConditionTrue, paasv1.ReasonRolloutComplete))
		}, waitFor, pollEvery).Should(Succeed())
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
	}, waitFor, pollEvery).Should(Succeed())

	// The autoscaler scales the Deployment through its scale subresource, again when the
	// operator wrote the Deployment in between (a conflict), as the autoscaler retries.
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	g.Eventually(func(g Gomega) {
		scale := &autoscalingv1.Scale{}
		g.Expect(k8sClient.SubResource("scale").Get(ctx, deployment, scale)).To(Succeed())
		scale.Spec.Replicas = 4
		g.Expect(k8sClient.SubResource("scale").Update(ctx, deployment, client.WithSubResourceBody(scale))).To(Succeed())
	}, waitFor, pollEvery).Should(Succeed())
	g.Eventually(func(g Gomega) {
		got := get(g, ns, "web", &paasv1.DemoApplication{})
		g.Expect(got.Status.DesiredReplicas).To(Equal(int32(4)))
		g.Expect(*got.Spec.Replica).To(Equal(int32(1)))
	}, waitFor, pollEvery).Should(Succeed())

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
