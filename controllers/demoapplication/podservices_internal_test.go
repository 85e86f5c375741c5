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

package demoapplication

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

func TestPodServicesAnnotateThePodTemplate(t *testing.T) {
	g := NewWithT(t)
	app := testApp()
	optIn := wellknown.PodLabelKeys{Annotation: "example.com/opt-in"}
	g.Expect(converted[*appsv1.Deployment](newDeployment(app, nil, optIn)).Spec.Template.Annotations).To(BeEmpty())

	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	g.Expect(converted[*appsv1.Deployment](newDeployment(app, nil, optIn)).Spec.Template.Annotations).
		To(Equal(map[string]string{"example.com/opt-in": "true"}))
}

func TestNewPodService(t *testing.T) {
	pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "web-7d9f-x2x4z", UID: "pod-uid"}}
	twoPorts := func() *paasv1.DemoApplication {
		app := testApp()
		app.Spec.Ports = []paasv1.DemoApplicationPort{
			{Name: "http", Port: 80, NodePort: ptr.To[int32](30002)},
			{Name: "metrics", Port: 9090},
		}
		app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
		return app
	}

	t.Run("selects the one pod by its pod-name label, owned by that pod", func(t *testing.T) {
		g := NewWithT(t)
		app := twoPorts()
		s := converted[*corev1.Service](newPodService(app, pod, wellknown.PodLabelKeys{Label: "example.com/pod"}))
		g.Expect(s.Name).To(Equal(pod.Name))
		g.Expect(s.Namespace).To(Equal(app.Namespace))
		g.Expect(s.Spec.Selector).To(Equal(map[string]string{
			wellknown.LabelName: "web", wellknown.LabelApplication: "web", "example.com/pod": pod.Name,
		}))
		g.Expect(s.Labels).To(HaveKeyWithValue(wellknown.LabelPodService, pod.Name))
		g.Expect(s.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
		g.Expect(s.OwnerReferences).To(Equal([]metav1.OwnerReference{
			{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: "pod-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)},
		}), "not blocking the pod's deletion, which would take update on pods/finalizers")
		g.Expect(isPodService(app, s)).To(BeTrue())
	})

	t.Run("of a StatefulSet app, selects the pod of an ordinal, owned by the app", func(t *testing.T) {
		g := NewWithT(t)
		app := twoPorts()
		app.UID = "app-uid"
		app.Spec.Workload = paasv1.WorkloadStatefulSet
		s := converted[*corev1.Service](newOrdinalService(app, "web-1", wellknown.DefaultPodLabelKeys))
		g.Expect(s.Name).To(Equal("web-1"))
		g.Expect(s.Spec.Selector).To(Equal(map[string]string{
			wellknown.LabelName: "web", wellknown.LabelApplication: "web", wellknown.DefaultPodLabelKeys.Label: "web-1",
		}))
		g.Expect(s.Labels).To(HaveKeyWithValue(wellknown.LabelPodService, "web-1"))
		g.Expect(metav1.IsControlledBy(s, app)).To(BeTrue(), "the app's, so that it outlives the pod's restarts")
		g.Expect(isPodService(app, s)).To(BeTrue())
		other := twoPorts()
		other.UID = "other-uid"
		g.Expect(isPodService(other, s)).To(BeFalse(), "another app's")
	})

	t.Run("exposes every port as ClusterIP, never copying a nodePort", func(t *testing.T) {
		g := NewWithT(t)
		s := converted[*corev1.Service](newPodService(twoPorts(), pod, wellknown.DefaultPodLabelKeys))
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
		g.Expect(s.Spec.Ports).To(Equal([]corev1.ServicePort{
			{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP},
		}))
	})

	t.Run("exposes only the named ports, with the chosen type", func(t *testing.T) {
		g := NewWithT(t)
		app := twoPorts()
		app.Spec.PodServices.Ports = []string{"metrics"}
		app.Spec.PodServices.Type = corev1.ServiceTypeNodePort
		s := converted[*corev1.Service](newPodService(app, pod, wellknown.DefaultPodLabelKeys))
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
		g.Expect(s.Spec.Ports).To(Equal([]corev1.ServicePort{{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP}}))
	})

	t.Run("a Service someone else controls is not a per-pod Service", func(t *testing.T) {
		s := converted[*corev1.Service](newPodService(twoPorts(), pod, wellknown.DefaultPodLabelKeys))
		s.OwnerReferences[0].Kind = "ReplicaSet"
		NewWithT(t).Expect(isPodService(twoPorts(), s)).To(BeFalse())
	})
}
