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
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// statefulApp is the app db of three pods run by a StatefulSet, each claiming a volume, with
// per-pod Services.
func statefulApp(namespace string) *paasv1.DemoApplication {
	app := builder.DemoApplication(namespace, "db", builder.Replicas(3))
	app.Spec.Workload = paasv1.WorkloadStatefulSet
	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	app.Spec.StatefulSet = &paasv1.StatefulSetSettings{
		VolumeClaimTemplates: []paasv1.VolumeClaimTemplate{
			{Name: "data", MountPath: "/var/lib/data", Size: resource.MustParse("1Gi"), StorageClassName: ptr.To("fast")},
		},
		PodManagementPolicy: appsv1.ParallelPodManagement,
		Partition:           ptr.To[int32](1),
	}
	return app
}

func TestStatefulSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := statefulApp(ns)
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("runs the pods from a StatefulSet governed by a headless Service, never a Deployment", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			st := get(g, ns, "db", &appsv1.StatefulSet{})
			g.Expect(metav1.IsControlledBy(st, get(g, ns, "db", &paasv1.DemoApplication{}))).To(BeTrue())
			g.Expect(st.Spec.ServiceName).To(Equal("db-headless"))
			g.Expect(st.Spec.Replicas).To(Equal(ptr.To[int32](3)))
			g.Expect(st.Spec.PodManagementPolicy).To(Equal(appsv1.ParallelPodManagement))
			g.Expect(st.Spec.UpdateStrategy.RollingUpdate.Partition).To(Equal(ptr.To[int32](1)))
			g.Expect(st.Spec.PersistentVolumeClaimRetentionPolicy).To(Equal(&appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			}), "a user's volumes are kept unless the app asks otherwise")
			g.Expect(st.Spec.VolumeClaimTemplates).To(HaveLen(1))
			claim := st.Spec.VolumeClaimTemplates[0]
			g.Expect(claim.Name).To(Equal("data"))
			g.Expect(claim.Spec.AccessModes).To(Equal([]corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}))
			g.Expect(claim.Spec.StorageClassName).To(Equal(ptr.To("fast")))
			g.Expect(claim.Spec.Resources.Requests.Storage().String()).To(Equal("1Gi"))
			g.Expect(st.Spec.Template.Spec.Containers[0].VolumeMounts).To(ContainElement(corev1.VolumeMount{Name: "data", MountPath: "/var/lib/data"}))

			headless := get(g, ns, "db-headless", &corev1.Service{})
			g.Expect(headless.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
			g.Expect(headless.Spec.Selector).To(Equal(map[string]string{wellknown.LabelName: "db", wellknown.LabelApplication: "db"}))
		}, waitFor, pollEvery).Should(Succeed())
		g.Expect(gone(ns, "db", &appsv1.Deployment{})()).To(BeTrue())
	})

	t.Run("gives each ordinal a Service of the app's, selecting the pod of that name", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			for _, name := range []string{"db-0", "db-1", "db-2"} {
				svc := get(g, ns, name, &corev1.Service{})
				g.Expect(metav1.IsControlledBy(svc, get(g, ns, "db", &paasv1.DemoApplication{}))).To(BeTrue(), "%s outlives its pod", name)
				g.Expect(svc.Spec.Selector).To(HaveKeyWithValue(wellknown.DefaultPodLabelKeys.Label, name))
			}
			g.Expect(get(g, ns, "db", &paasv1.DemoApplication{}).Status.PodServices).To(Equal(int32(3)))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("reports the StatefulSet's pods, and is ready once they are", func(t *testing.T) {
		g := NewWithT(t)
		c := eventually(g, app, paasv1.ConditionAvailable, metav1.ConditionFalse, paasv1.ReasonReplicasUnavailable)
		g.Expect(c.Message).To(Equal("Waiting for the StatefulSet's pods to become available"))
		markStatefulSetAvailable(g, ns, "db")
		eventually(g, app, paasv1.ConditionReady, metav1.ConditionTrue, paasv1.ReasonRolloutComplete)
		got := get(g, ns, "db", &paasv1.DemoApplication{})
		g.Expect(got.Status.ReadyReplicas).To(Equal(int32(3)))
		g.Expect(got.Status.AvailableReplicas).To(Equal(int32(3)))
	})

	t.Run("puts back a change someone else made to the StatefulSet", func(t *testing.T) {
		g := NewWithT(t)
		suite.MergePatch(t, get(g, ns, "db", &appsv1.StatefulSet{}), `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`)
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "db", &appsv1.StatefulSet{}).Spec.UpdateStrategy.RollingUpdate.Partition).To(Equal(ptr.To[int32](1)))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("scaled down, drops the Services of the ordinals gone and keeps the others", func(t *testing.T) {
		g := NewWithT(t)
		kept := get(g, ns, "db-1", &corev1.Service{})
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](2) })
		g.Eventually(gone(ns, "db-2", &corev1.Service{}), waitFor, pollEvery).Should(BeTrue())
		g.Expect(get(g, ns, "db-1", &corev1.Service{}).UID).To(Equal(kept.UID))
		g.Expect(get(g, ns, "db", &appsv1.StatefulSet{}).Spec.Replicas).To(Equal(ptr.To[int32](2)))
	})

	t.Run("autoscaled, the HorizontalPodAutoscaler scales the StatefulSet, which keeps its replicas", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
			a.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		})
		g.Eventually(func(g Gomega) {
			hpa := get(g, ns, "db", &autoscalingv2.HorizontalPodAutoscaler{})
			g.Expect(hpa.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}))
		}, waitFor, pollEvery).Should(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(get(g, ns, "db", &appsv1.StatefulSet{}).Spec.Replicas).To(Equal(ptr.To[int32](2)), "the replicas the app ran are the autoscaler's to change")
		}, "1s", pollEvery).Should(Succeed())
	})

	t.Run("converged, writes nothing", func(t *testing.T) {
		writesNothing(NewWithT(t), "/apis/apps/v1/namespaces/"+ns+"/", "/api/v1/namespaces/"+ns+"/services")
	})
}

func TestStatefulSetOfSomeoneElse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	theirs := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "theirs"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
	g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
	app := statefulApp(ns)
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	c := eventually(g, app, paasv1.ConditionAvailable, metav1.ConditionFalse, paasv1.ReasonResourceConflict)
	g.Expect(c.Message).To(ContainSubstring(`StatefulSet "db" already exists and is not the operator's`))
	g.Expect(gone(ns, "db-0", &corev1.Service{})()).To(BeTrue(), "no per-pod Service routes to pods that are not the app's")
	current := get(g, ns, "db", &appsv1.StatefulSet{})
	g.Expect(current.ResourceVersion).To(Equal(theirs.ResourceVersion), "left untouched")
}

// TestStatefulSetTemplateIsCompleted: a StatefulSet's pod template is completed as a
// Deployment's: the security defaults of a restricted namespace, so that PodSecurity admits its
// pods, and the hash of the ConfigMaps they read, so that a change of one rolls them.
func TestStatefulSetTemplateIsCompleted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-", testenv.NamespaceLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}))
	g := NewWithT(t)
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-config"}, Data: map[string]string{"MODE": "a"}}
	g.Expect(k8sClient.Create(ctx, config)).To(Succeed())
	app := statefulApp(ns)
	app.Spec.EnvFrom = []paasv1.EnvFromSource{{ConfigMapRef: &paasv1.OptionalObjectReference{Name: "db-config"}}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	var hash string
	g.Eventually(func(g Gomega) {
		st := get(g, ns, "db", &appsv1.StatefulSet{})
		hash = st.Spec.Template.Annotations[demoapplication.ConfigHashAnnotation]
		g.Expect(hash).NotTo(BeEmpty())
		// The StatefulSet controller's pod, as PodSecurity admission would judge it.
		g.Expect(k8sClient.Create(ctx, statefulSetPod(g, st, 0), client.DryRunAll)).To(Succeed())
	}, waitFor, pollEvery).Should(Succeed())

	config.Data["MODE"] = "b"
	g.Expect(k8sClient.Update(ctx, config)).To(Succeed())
	g.Eventually(func(g Gomega) string {
		return get(g, ns, "db", &appsv1.StatefulSet{}).Spec.Template.Annotations[demoapplication.ConfigHashAnnotation]
	}, waitFor, pollEvery).ShouldNot(Equal(hash))
}

// TestClaimPendingReachesStatus: a pod held back by a claim that cannot be bound makes the
// app Degraded, in the words of the claim's Events: a StorageClass that does not exist.
func TestClaimPendingReachesStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := statefulApp(ns)
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	var st *appsv1.StatefulSet
	g.Eventually(func(g Gomega) { st = get(g, ns, "db", &appsv1.StatefulSet{}) }, waitFor, pollEvery).Should(Succeed())

	// The StatefulSet controller's pod, and the scheduler's verdict.
	pod := statefulSetPod(g, st, 0)
	g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims."}}})
	eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonUnschedulable)

	now := metav1.Now()
	g.Expect(k8sClient.Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, GenerateName: "data-db-0."},
		InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: ns, Name: "data-db-0"},
		Reason:         "ProvisioningFailed", Message: `storageclass.storage.k8s.io "fast" not found`, Type: corev1.EventTypeWarning,
		Source: corev1.EventSource{Component: "persistentvolume-controller"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
	})).To(Succeed())
	c := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonVolumeClaimPending)
	g.Expect(c.Message).To(Equal(`Pod db-0, claim data-db-0: storageclass.storage.k8s.io "fast" not found`))
}

// statefulSetPod plays the StatefulSet controller, which envtest does not run: the pod of
// ordinal of st, its template's with a volume of each claim, controlled by st.
func statefulSetPod(g Gomega, st *appsv1.StatefulSet, ordinal int) *corev1.Pod {
	name := fmt.Sprintf("%s-%d", st.Name, ordinal)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: st.Namespace, Name: name, Labels: st.Spec.Template.Labels},
		Spec:       *st.Spec.Template.Spec.DeepCopy(),
	}
	for _, claim := range st.Spec.VolumeClaimTemplates {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: claim.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim.Name + "-" + name}}})
	}
	g.Expect(controllerutil.SetControllerReference(st, pod, k8sClient.Scheme())).To(Succeed())
	return pod
}

// markStatefulSetAvailable plays the StatefulSet controller, which envtest does not run:
// every pod created, updated, ready and available.
func markStatefulSetAvailable(g Gomega, namespace, name string) {
	st := get(g, namespace, name, &appsv1.StatefulSet{})
	n := *st.Spec.Replicas
	st.Status = appsv1.StatefulSetStatus{
		ObservedGeneration: st.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n, CurrentReplicas: n,
	}
	g.Expect(k8sClient.Status().Update(context.Background(), st)).To(Succeed())
}
