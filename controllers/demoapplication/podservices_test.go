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
	corev1 "k8s.io/api/core/v1"
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

// podServices returns the names of the per-pod Services of app.
func podServices(g Gomega, app *paasv1.DemoApplication) []string {
	list := &corev1.ServiceList{}
	g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(app.Namespace),
		client.MatchingLabels{wellknown.LabelApplication: app.Name}, client.HasLabels{wellknown.LabelPodService})).To(Succeed())
	names := make([]string, 0, len(list.Items))
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	return names
}

func TestPodServices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	app := builder.DemoApplication(ns, "web")
	app.Spec.Ports = []paasv1.DemoApplicationPort{
		{Name: "http", Port: 80, NodePort: ptr.To[int32](30110)},
		{Name: "metrics", Port: 9090},
	}
	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	t.Run("the pod template opts the pods in to the pod-name label", func(t *testing.T) {
		NewWithT(t).Eventually(func(g Gomega) {
			d := get(g, ns, "web", &appsv1.Deployment{})
			g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(wellknown.DefaultPodLabelAnnotation, "true"))
		}, waitFor, pollEvery).Should(Succeed())
	})

	pods := map[string]*corev1.Pod{
		"web-6b7f9-aaaaa": newAppPod(g, app, "web-6b7f9-aaaaa"),
		"web-6b7f9-bbbbb": newAppPod(g, app, "web-6b7f9-bbbbb"),
	}

	t.Run("each labelled pod gets a Service selecting it alone, owned by the pod", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func(g Gomega) []string { return podServices(g, app) }, waitFor, pollEvery).Should(ConsistOf("web-6b7f9-aaaaa", "web-6b7f9-bbbbb"))
		for name, pod := range pods {
			s := get(g, ns, name, &corev1.Service{})
			g.Expect(metav1.IsControlledBy(s, pod)).To(BeTrue())
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
			g.Expect(s.Spec.Selector).To(Equal(map[string]string{
				wellknown.LabelName: "web", wellknown.LabelApplication: "web", wellknown.DefaultPodNameLabel: name,
			}))
			g.Expect(s.Spec.Ports).To(HaveLen(2))
			for _, p := range s.Spec.Ports {
				g.Expect(p.NodePort).To(BeZero(), "a nodePort is never copied")
			}
			selected := &corev1.PodList{}
			g.Expect(k8sClient.List(ctx, selected, client.InNamespace(ns), client.MatchingLabels(s.Spec.Selector))).To(Succeed())
			g.Expect(selected.Items).To(ConsistOf(HaveField("Name", name)), "the Service selects its pod alone")
		}
		g.Eventually(func(g Gomega) int32 {
			return get(g, ns, "web", &paasv1.DemoApplication{}).Status.PodServices
		}, waitFor, pollEvery).Should(Equal(int32(2)))
	})

	t.Run("a pod the app's Deployment does not run gets none, whatever labels it carries", func(t *testing.T) {
		g := NewWithT(t)
		template := get(g, ns, "web", &appsv1.Deployment{}).Spec.Template
		foreign := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-foreign", Labels: template.Labels, Annotations: template.Annotations},
			Spec:       template.Spec,
		}
		g.Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		impostor := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-impostor", Labels: template.Labels},
			Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"impostor": "yes"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"impostor": "yes"}}, Spec: template.Spec}}}
		g.Expect(k8sClient.Create(ctx, impostor)).To(Succeed())
		adopted := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-adopted", Labels: template.Labels, Annotations: template.Annotations},
			Spec:       template.Spec,
		}
		g.Expect(controllerutil.SetControllerReference(impostor, adopted, k8sClient.Scheme())).To(Succeed())
		g.Expect(k8sClient.Create(ctx, adopted)).To(Succeed())
		for _, pod := range []*corev1.Pod{foreign, adopted} {
			g.Eventually(func(g Gomega) map[string]string {
				return get(g, ns, pod.Name, &corev1.Pod{}).Labels
			}, waitFor, pollEvery).Should(HaveKeyWithValue(wellknown.DefaultPodNameLabel, pod.Name), "the labeler labels any pod that opts in")
		}
		g.Consistently(func(g Gomega) []string { return podServices(g, app) }, 3*time.Second).
			Should(ConsistOf("web-6b7f9-aaaaa", "web-6b7f9-bbbbb"))
		g.Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		g.Expect(k8sClient.Delete(ctx, adopted)).To(Succeed())
	})

	t.Run("a per-pod Service changed by hand is put back", func(t *testing.T) {
		g := NewWithT(t)
		s := get(g, ns, "web-6b7f9-aaaaa", &corev1.Service{})
		s.Spec.Selector[wellknown.DefaultPodNameLabel] = "web-6b7f9-bbbbb"
		g.Expect(k8sClient.Update(ctx, s)).To(Succeed())
		g.Eventually(func(g Gomega) string {
			return get(g, ns, "web-6b7f9-aaaaa", &corev1.Service{}).Spec.Selector[wellknown.DefaultPodNameLabel]
		}, waitFor, pollEvery).Should(Equal("web-6b7f9-aaaaa"))
	})

	t.Run("a pod deleted takes its Service with it", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(k8sClient.Delete(ctx, pods["web-6b7f9-bbbbb"])).To(Succeed())
		g.Eventually(func(g Gomega) []string { return podServices(g, app) }, waitFor, pollEvery).Should(ConsistOf("web-6b7f9-aaaaa"))
		g.Eventually(func(g Gomega) int32 {
			return get(g, ns, "web", &paasv1.DemoApplication{}).Status.PodServices
		}, waitFor, pollEvery).Should(Equal(int32(1)))
	})

	t.Run("new pods from a scale-up get theirs", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](3) })
		newAppPod(g, app, "web-6b7f9-ccccc")
		newAppPod(g, app, "web-6b7f9-ddddd")
		g.Eventually(func(g Gomega) []string { return podServices(g, app) }, waitFor, pollEvery).
			Should(ConsistOf("web-6b7f9-aaaaa", "web-6b7f9-ccccc", "web-6b7f9-ddddd"))
	})

	t.Run("a pod no longer labelled loses its Service", func(t *testing.T) {
		g := NewWithT(t)
		pod := get(g, ns, "web-6b7f9-ddddd", &corev1.Pod{})
		delete(pod.Annotations, wellknown.DefaultPodLabelAnnotation)
		g.Expect(k8sClient.Update(ctx, pod)).To(Succeed())
		g.Eventually(func(g Gomega) []string { return podServices(g, app) }, waitFor, pollEvery).
			Should(ConsistOf("web-6b7f9-aaaaa", "web-6b7f9-ccccc"))
	})

	t.Run("only the named ports, with the chosen type", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) {
			a.Spec.PodServices = &paasv1.PodServices{Enabled: true, Type: corev1.ServiceTypeNodePort, Ports: []string{"http"}}
		})
		g.Eventually(func(g Gomega) {
			s := get(g, ns, "web-6b7f9-aaaaa", &corev1.Service{})
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
			g.Expect(s.Spec.Ports).To(HaveLen(1))
			g.Expect(s.Spec.Ports[0].Name).To(Equal("http"))
			g.Expect(s.Spec.Ports[0].NodePort).NotTo(BeEquivalentTo(30110), "the cluster allocates another nodePort")
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("turned off, every per-pod Service goes and the pods are no longer opted in", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.PodServices.Enabled = false })
		g.Eventually(func(g Gomega) []string { return podServices(g, app) }, waitFor, pollEvery).Should(BeEmpty())
		g.Eventually(func(g Gomega) {
			d := get(g, ns, "web", &appsv1.Deployment{})
			g.Expect(d.Spec.Template.Annotations).NotTo(HaveKey(wellknown.DefaultPodLabelAnnotation))
			g.Expect(get(g, ns, "web", &paasv1.DemoApplication{}).Status.PodServices).To(BeZero())
		}, waitFor, pollEvery).Should(Succeed())
		g.Expect(get(g, ns, "web", &corev1.Service{}).Spec.Ports).To(HaveLen(2), "the app's own Service stays")
	})
}

func TestPodServiceNameTaken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	foreign := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "api-5c8d7-aaaaa", Labels: map[string]string{"team": "payments"}},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}, Selector: map[string]string{"team": "payments"}},
	}
	g.Expect(k8sClient.Create(ctx, foreign)).To(Succeed())

	app := builder.DemoApplication(ns, "api")
	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) { get(g, ns, "api", &appsv1.Deployment{}) }, waitFor, pollEvery).Should(Succeed())
	newAppPod(g, app, "api-5c8d7-aaaaa")
	newAppPod(g, app, "api-5c8d7-bbbbb")

	g.Eventually(func(g Gomega) {
		latest := get(g, ns, "api", &paasv1.DemoApplication{})
		g.Expect(latest).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
		g.Expect(condition(latest, paasv1.ConditionDegraded).Message).To(ContainSubstring(`Service "api-5c8d7-aaaaa"`))
		g.Expect(latest.Status.PodServices).To(Equal(int32(1)), "the other pod still gets its Service")
		g.Expect(suite.EventReasons(g, ns, "api")).To(ContainElement(demoapplication.EventResourceConflict))
	}, waitFor, pollEvery).Should(Succeed())

	kept := get(g, ns, "api-5c8d7-aaaaa", &corev1.Service{})
	g.Expect(kept.Labels).To(Equal(foreign.Labels), "the Service the operator did not create is left alone")
	g.Expect(kept.Spec.Selector).To(Equal(foreign.Spec.Selector))
	g.Expect(kept.OwnerReferences).To(BeEmpty())
	g.Expect(kept.ManagedFields).To(HaveEach(HaveField("Manager", Not(Equal(wellknown.FieldManager)))))

	t.Run("turning per-pod Services off leaves it alone too", func(t *testing.T) {
		g := NewWithT(t)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.PodServices.Enabled = false })
		g.Eventually(func(g Gomega) []string { return podServices(g, app) }, waitFor, pollEvery).Should(BeEmpty())
		g.Consistently(func(g Gomega) { get(g, ns, "api-5c8d7-aaaaa", &corev1.Service{}) }, "2s").Should(Succeed())
	})
}
