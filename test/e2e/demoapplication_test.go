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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
)

// TestDemoApplicationLifecycle follows a DemoApplication through the whole cluster: its
// Deployment makes a ReplicaSet and Running pods, it scales both ways and rolls out a new
// image, and deleting it lets the garbage collector remove everything it owned.
func TestDemoApplicationLifecycle(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	framework.StartManager(t, cluster, "manager-lifecycle", managerBin, operatorKubeconfig, nil)
	ns := newNamespace(t)

	app := builder.DemoApplication(ns, "web", port80)
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	expectConverged(t, app, time.Minute)
	g.Eventually(func(g Gomega) {
		sets := &appsv1.ReplicaSetList{}
		g.Expect(k8s.List(ctx, sets, client.InNamespace(ns))).To(Succeed())
		g.Expect(sets.Items).To(HaveLen(1))
		g.Expect(sets.Items[0].OwnerReferences[0].Name).To(Equal("web"))
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), &corev1.Service{})).To(Succeed())
	}, 10*time.Second, 200*time.Millisecond).Should(Succeed())

	for _, replicas := range []int32{4, 1} {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		app.Spec.Replica = ptr.To(replicas)
		g.Expect(k8s.Update(ctx, app)).To(Succeed())
		expectConverged(t, app, time.Minute)
	}

	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
	app.Spec.Image = "nginx:1.28"
	g.Expect(k8s.Update(ctx, app)).To(Succeed())
	expectConverged(t, app, time.Minute)
	g.Eventually(func(g Gomega) {
		sets := &appsv1.ReplicaSetList{}
		g.Expect(k8s.List(ctx, sets, client.InNamespace(ns))).To(Succeed())
		g.Expect(sets.Items).To(HaveLen(2), "a rollout leaves the old ReplicaSet, scaled to zero")
	}, 10*time.Second, 200*time.Millisecond).Should(Succeed())

	g.Expect(k8s.Delete(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		for _, list := range []client.ObjectList{&appsv1.DeploymentList{}, &appsv1.ReplicaSetList{}, &corev1.PodList{},
			&corev1.ServiceList{}, &discoveryv1.EndpointSliceList{}} {
			g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			g.Expect(list).To(HaveField("Items", BeEmpty()), "%T", list)
		}
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
}

// TestPodNameLabelSelectsOnePod is the use case of the pod labeler: pods of one Deployment,
// told apart by their own pod-name label, so a Service can send traffic to exactly one of them.
func TestPodNameLabelSelectsOnePod(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	framework.StartManager(t, cluster, "manager-podlabel", managerBin, operatorKubeconfig, nil)
	ns := newNamespace(t)

	labels := map[string]string{"app": "replicated"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "replicated"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels,
					Annotations: map[string]string{"padok.fr/add-pod-name-label": "true"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
	g.Expect(k8s.Create(ctx, deploy)).To(Succeed())

	var chosen corev1.Pod
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(labels))).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(3))
		for _, p := range pods.Items {
			g.Expect(p.Labels).To(HaveKeyWithValue("padok.fr/pod-name", p.Name))
			g.Expect(p.Status.PodIP).NotTo(BeEmpty())
		}
		chosen = pods.Items[1]
	}, time.Minute, 200*time.Millisecond).Should(Succeed())

	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one-pod"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"padok.fr/pod-name": chosen.Name},
			Ports:    []corev1.ServicePort{{Port: 80}},
		},
	}
	g.Expect(k8s.Create(ctx, svc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		expectOnlyEndpoint(g, ns, svc.Name, &chosen)
	}, 30*time.Second, 200*time.Millisecond).Should(Succeed())
}

// TestPodServicesRouteToTheirPod closes the loop for DemoApplication users: with per-pod
// Services on, each pod of the app gets a Service whose one endpoint is that pod, and a pod
// replaced by its ReplicaSet gets a new Service while the garbage collector removes the old.
func TestPodServicesRouteToTheirPod(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	framework.StartManager(t, cluster, "manager-podservices", managerBin, operatorKubeconfig, nil)
	ns := newNamespace(t)

	app := builder.DemoApplication(ns, "routed", builder.Replicas(3), port80)
	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	expectConverged(t, app, time.Minute)

	routed := func(g Gomega) []corev1.Pod {
		pods := runningPods(g, app)
		g.Expect(pods).To(HaveLen(3))
		for i := range pods {
			expectOnlyEndpoint(g, ns, pods[i].Name, &pods[i])
		}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		g.Expect(app.Status.PodServices).To(Equal(int32(3)))
		return pods
	}
	var pods []corev1.Pod
	g.Eventually(func(g Gomega) { pods = routed(g) }, time.Minute, 250*time.Millisecond).Should(Succeed())

	gone := pods[0]
	g.Expect(k8s.Delete(ctx, &gone)).To(Succeed())
	g.Eventually(func(g Gomega) {
		for _, p := range routed(g) {
			g.Expect(p.Name).NotTo(Equal(gone.Name))
		}
		err := k8s.Get(ctx, client.ObjectKeyFromObject(&gone), &corev1.Service{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the deleted pod's Service goes with it: %v", err)
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
}

// expectOnlyEndpoint checks that the named Service sends traffic to pod and to nothing else.
func expectOnlyEndpoint(g Gomega, ns, service string, pod *corev1.Pod) {
	slices := &discoveryv1.EndpointSliceList{}
	g.Expect(k8s.List(context.Background(), slices, client.InNamespace(ns),
		client.MatchingLabels{discoveryv1.LabelServiceName: service})).To(Succeed())
	var endpoints []discoveryv1.Endpoint
	for _, s := range slices.Items {
		endpoints = append(endpoints, s.Endpoints...)
	}
	g.Expect(endpoints).To(HaveLen(1), "endpoints of Service %s", service)
	g.Expect(endpoints[0].TargetRef.Name).To(Equal(pod.Name))
	g.Expect(endpoints[0].Addresses).To(Equal([]string{pod.Status.PodIP}))
}

// expectOnePerApp checks that nothing was duplicated: each DemoApplication of the namespace
// has exactly one Deployment and one Service, and no others exist.
func expectOnePerApp(g Gomega, ns string, apps ...*paasv1.DemoApplication) {
	deploys, services := &appsv1.DeploymentList{}, &corev1.ServiceList{}
	g.Expect(k8s.List(context.Background(), deploys, client.InNamespace(ns))).To(Succeed())
	g.Expect(k8s.List(context.Background(), services, client.InNamespace(ns))).To(Succeed())
	g.Expect(deploys.Items).To(HaveLen(len(apps)))
	g.Expect(services.Items).To(HaveLen(len(apps)))
}
