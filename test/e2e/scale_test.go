//go:build e2e

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

package e2e

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
)

// TestOutsideAutoscaler: kube-controller-manager's HorizontalPodAutoscaler targets a
// DemoApplication itself, through its scale subresource, and scales it to its minReplicas
// (which needs no metrics, that this cluster has none of); one that targets an app whose
// spec.autoscaling owns the replicas is refused, and says so in its conditions.
func TestOutsideAutoscaler(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	framework.StartManager(t, cluster, "manager-scale", managerBin, operatorKubeconfig, nil)
	ns := newNamespace(t)

	scaled := builder.DemoApplication(ns, "scaled", port80)
	owned := builder.DemoApplication(ns, "owned", port80)
	owned.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	owned.Spec.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 2, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
	for _, app := range []*paasv1.DemoApplication{scaled, owned} {
		g.Expect(k8s.Create(ctx, app)).To(Succeed())
		g.Expect(k8s.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "outside-" + app.Name},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: paasv1.GroupVersion.String(), Kind: "DemoApplication", Name: app.Name},
				MinReplicas:    ptr.To[int32](3), MaxReplicas: 4,
			},
		})).To(Succeed())
	}

	created := *owned.Spec.Replica
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(scaled), scaled)).To(Succeed())
		g.Expect(scaled.Spec.Replica).To(HaveValue(Equal(int32(3))), "the autoscaler's write")
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
	expectConverged(t, scaled, time.Minute)

	g.Eventually(func(g Gomega) {
		hpa := &autoscalingv2.HorizontalPodAutoscaler{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "outside-owned"}, hpa)).To(Succeed())
		g.Expect(hpa.Status.Conditions).To(ContainElement(And(
			HaveField("Type", autoscalingv2.AbleToScale), HaveField("Status", corev1.ConditionFalse),
			HaveField("Reason", "FailedUpdateScale"),
			HaveField("Message", ContainSubstring("spec.replica cannot change while spec.autoscaling is set")))))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(owned), owned)).To(Succeed())
	g.Expect(owned.Spec.Replica).To(HaveValue(Equal(created)), "the app's own autoscaler keeps the replicas")
}
