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
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
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
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "v1", Kind: "ConfigMap", Name: "web-config", UID: "uid-cm"},
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "uid-rs", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)},
			},
			Finalizers:    []string{"example.com/hold"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}},
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
	g.Expect(trimmed.Labels).To(HaveLen(2), "the labeler's label and the app's label stay; others go")
	g.Expect(trimmed.Labels).To(HaveKeyWithValue(wellknown.LabelApplication, "web"))
	g.Expect(nameLabel(trimmed)).To(Equal("web-1"))
	g.Expect(trimmed.Annotations).To(Equal(map[string]string{"example.com/label-me": "true"}))
	g.Expect(trimmed.OwnerReferences).To(Equal([]metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "uid-rs", Controller: ptr.To(true)}}), "an app's pod keeps its controller")
	g.Expect(trimmed.Finalizers).To(BeNil())
	g.Expect(trimmed.ManagedFields).To(BeNil())

	bare := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "plain", Labels: map[string]string{"team": "a"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "plain-abc", UID: "uid-rs2", Controller: ptr.To(true)}}}}
	out, err = PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})(bare)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.(*metav1.PartialObjectMetadata).Labels).To(BeNil(), "no empty maps kept for pods with none of the keys")
	g.Expect(out.(*metav1.PartialObjectMetadata).Annotations).To(BeNil())
	g.Expect(out.(*metav1.PartialObjectMetadata).OwnerReferences).To(BeNil(), "only an app's pods keep their controller")

	full := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "typed", Labels: map[string]string{"team": "a"}}}
	out, err = PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})(full)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(BeIdenticalTo(full), "only the metadata cache is trimmed")
}

// TestPodCacheTransformBoundsOptIn: whoever may annotate a pod chooses the opt-in
// annotation's value, up to the API server's 256 KiB for all of a pod's annotations; the
// cached pod holds none of it, whatever the value says.
func TestPodCacheTransformBoundsOptIn(t *testing.T) {
	keys := wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"}
	transform := PodCacheTransform(keys)
	r := &Reconciler{PodLabelKeys: keys}
	for _, value := range []string{strings.Repeat("x", 256<<10), "true" + strings.Repeat(" ", 256<<10-4), "false"} {
		g := NewWithT(t)
		out, err := transform(&metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "team-a", UID: "uid-1", ResourceVersion: "42",
				Labels:      map[string]string{"example.com/name": "web-1"},
				Annotations: map[string]string{"example.com/label-me": value}},
		})
		g.Expect(err).NotTo(HaveOccurred())
		cached := out.(*metav1.PartialObjectMetadata)
		encoded, err := json.Marshal(cached)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(len(encoded)).To(BeNumerically("<", 512), "the cached pod holds %d bytes of a %d-byte value", len(encoded), len(value))
		g.Expect(cached.Annotations).To(BeNil())
		// What the labeler reads of it: not opted in, so its label goes.
		g.Expect(r.needsChange(cached)).To(BeTrue())
	}
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
	g.Expect(cached("web-3", "false").Annotations).To(BeNil(), "any other value is dropped, as no annotation at all")

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

func TestPodCacheTransformSharesAppPods(t *testing.T) {
	g := NewWithT(t)
	transform := PodCacheTransform(wellknown.PodLabelKeys{Annotation: "example.com/label-me", Label: "example.com/name"})
	cached := func(name, app string, rs types.UID, labelled bool) *metav1.PartialObjectMetadata {
		labels := map[string]string{wellknown.LabelApplication: strings.Clone(app), "pod-template-hash": "abc"}
		if labelled {
			labels["example.com/name"] = name
		}
		out, err := transform(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-abc", UID: rs, Controller: ptr.To(true)}}}})
		g.Expect(err).NotTo(HaveOccurred())
		return out.(*metav1.PartialObjectMetadata)
	}
	sameMap := func(a, b map[string]string) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}

	web1, web2 := cached("web-1", "web", "rs-web", true), cached("web-2", "web", "rs-web", true)
	g.Expect(sameMap(web1.Labels, web2.Labels)).To(BeTrue(), "an app's labelled pods share one labels map")
	g.Expect(&web1.OwnerReferences[0]).To(BeIdenticalTo(&web2.OwnerReferences[0]), "a ReplicaSet's pods share its reference")
	for _, pod := range []*metav1.PartialObjectMetadata{web1, web2} {
		g.Expect(nameLabel(pod)).To(Equal(pod.Name))
		g.Expect(pod.Labels).To(HaveKeyWithValue(wellknown.LabelApplication, "web"))
	}
	web3 := cached("web-3", "web", "rs-web", false)
	g.Expect(web3.Labels).To(Equal(map[string]string{wellknown.LabelApplication: "web"}))
	g.Expect(sameMap(web3.Labels, cached("web-4", "web", "rs-web", false).Labels)).To(BeTrue(), "so do its unlabelled pods")
	api := cached("api-1", "api", "rs-api", true)
	g.Expect(api.Labels).To(HaveKeyWithValue(wellknown.LabelApplication, "api"), "another app's pods share another map")
	g.Expect(api.OwnerReferences[0].Name).To(Equal("api-abc"))

	// Full, the shared maps are forgotten; pods cached before keep theirs as they were.
	for i := range maxShared {
		cached(fmt.Sprintf("other-%d", i), fmt.Sprintf("other-%d", i), types.UID(fmt.Sprintf("rs-%d", i)), false)
	}
	g.Expect(nameLabel(web1)).To(Equal("web-1"))
	g.Expect(web1.Labels).To(HaveKeyWithValue(wellknown.LabelApplication, "web"))
	g.Expect(web1.OwnerReferences[0].UID).To(BeEquivalentTo("rs-web"))
	web5 := cached("web-5", "web", "rs-web", true)
	g.Expect(sameMap(web5.Labels, web1.Labels)).To(BeFalse(), "the next pods share new maps")
	g.Expect(sameMap(web5.Labels, cached("web-6", "web", "rs-web", true).Labels)).To(BeTrue())
}

// nameLabel is the value of a cached pod's pod-name label, as the API server holds it.
func nameLabel(pod *metav1.PartialObjectMetadata) string {
	value, _ := wellknown.PodLabel(pod, "example.com/name")
	return value
}
