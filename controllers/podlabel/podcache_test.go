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

package podlabel

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

func TestPodCacheTransform(t *testing.T) {
	g := NewWithT(t)
	deleted := metav1.Now()
	grace := int64(30)
	pod := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-1", Namespace: "team-a", UID: "uid-1", ResourceVersion: "42",
			DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace,
			Labels: map[string]string{
				"example.com/name": "web-1", wellknown.LabelName: "web", wellknown.LabelApplication: "web",
				"pod-template-hash": "abc", "team": "a",
			},
			Annotations: map[string]string{
				"example.com/label-me": "true", "kubectl.kubernetes.io/restartedAt": "now",
			},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-abc"}},
			Finalizers:      []string{"example.com/hold"},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubelet"}},
		},
	}

	out, err := PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})(pod)
	g.Expect(err).NotTo(HaveOccurred())
	trimmed := out.(*metav1.PartialObjectMetadata)
	g.Expect(trimmed.TypeMeta).To(Equal(metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}), "the client finds a metadata-only object by its kind")
	g.Expect(client.ObjectKeyFromObject(trimmed)).To(Equal(client.ObjectKey{Namespace: "team-a", Name: "web-1"}))
	g.Expect(trimmed.UID).To(BeEquivalentTo("uid-1"))
	g.Expect(trimmed.ResourceVersion).To(Equal("42"))
	g.Expect(trimmed.DeletionTimestamp).To(Equal(&deleted))
	g.Expect(trimmed.Labels).To(Equal(map[string]string{"example.com/name": "web-1", wellknown.LabelApplication: "web"}),
		"the labeler's label and the app's label stay; others go")
	g.Expect(trimmed.Annotations).To(Equal(map[string]string{"example.com/label-me": "true"}))
	g.Expect(trimmed.OwnerReferences).To(BeNil())
	g.Expect(trimmed.Finalizers).To(BeNil())
	g.Expect(trimmed.ManagedFields).To(BeNil())

	bare := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "plain", Labels: map[string]string{"team": "a"}}}
	out, err = PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})(bare)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.(*metav1.PartialObjectMetadata).Labels).To(BeNil(), "no empty maps kept for pods with none of the keys")
	g.Expect(out.(*metav1.PartialObjectMetadata).Annotations).To(BeNil())

	full := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "typed", Labels: map[string]string{"team": "a"}}}
	out, err = PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})(full)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(BeIdenticalTo(full), "only the metadata cache is trimmed")
}

func TestPodCacheTransformShares(t *testing.T) {
	g := NewWithT(t)
	transform := PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})
	cached := func(name, optIn string) *metav1.PartialObjectMetadata {
		out, err := transform(&metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: strings.Clone("team-a"),
				Annotations: map[string]string{"example.com/label-me": optIn, "other": "x"}},
		})
		g.Expect(err).NotTo(HaveOccurred())
		return out.(*metav1.PartialObjectMetadata)
	}
	first, second := cached("web-1", "true"), cached("web-2", "true")
	g.Expect(second.Annotations).To(Equal(map[string]string{"example.com/label-me": "true"}))
	g.Expect(reflect.ValueOf(second.Annotations).UnsafePointer()).To(Equal(reflect.ValueOf(first.Annotations).UnsafePointer()),
		"pods that opt in share one annotations map")
	g.Expect(unsafe.StringData(second.Namespace)).To(Equal(unsafe.StringData(first.Namespace)), "pods share their namespace's name")
	g.Expect(cached("web-3", "false").Annotations).To(Equal(map[string]string{"example.com/label-me": "false"}),
		"any other value is kept as it is")

	labelled := func(name, value string) *metav1.PartialObjectMetadata {
		out, err := transform(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"example.com/name": value, "team": "a"}}})
		g.Expect(err).NotTo(HaveOccurred())
		return out.(*metav1.PartialObjectMetadata)
	}
	web1, web2 := labelled("web-1", "web-1"), labelled("web-2", "web-2")
	g.Expect(reflect.ValueOf(web2.Labels).UnsafePointer()).To(Equal(reflect.ValueOf(web1.Labels).UnsafePointer()),
		"pods labelled with their own name share one labels map")
	for _, pod := range []*metav1.PartialObjectMetadata{web1, web2} {
		value, ok := wellknown.PodLabel(pod, "example.com/name")
		g.Expect(ok).To(BeTrue())
		g.Expect(value).To(Equal(pod.Name), "the shared map reads as the pod's own name")
	}
	again, err := transform(web1.DeepCopy())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(reflect.ValueOf(again.(*metav1.PartialObjectMetadata).Labels).UnsafePointer()).To(Equal(reflect.ValueOf(web1.Labels).UnsafePointer()),
		"a pod transformed twice, as a watch-list's are (the reflector's store, then the queue), still shares the map")
	value, ok := wellknown.PodLabel(labelled("web-3", "web-1"), "example.com/name")
	g.Expect(ok).To(BeTrue())
	g.Expect(value).To(Equal("web-1"), "a value other than the pod's name is kept as it is")
	_, ok = wellknown.PodLabel(cached("web-4", "true"), "example.com/name")
	g.Expect(ok).To(BeFalse(), "an unlabelled pod stays unlabelled")
}
