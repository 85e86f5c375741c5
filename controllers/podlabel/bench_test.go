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
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The benchmarks run with make bench (go test -run '^$' -bench . -benchmem ./controllers/...):
// the CPU and allocations of the labeler's decisions and what its pod cache holds, apart from
// the API server.

// podStub serves one pod's metadata to Get and encodes the patch it is sent, as the
// client would before writing it; every other method is left to the nil Client.
type podStub struct {
	client.Client
	pod     *metav1.PartialObjectMetadata
	patches int
}

func (s *podStub) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	s.pod.DeepCopyInto(obj.(*metav1.PartialObjectMetadata))
	return nil
}

func (s *podStub) Patch(_ context.Context, obj client.Object, patch client.Patch, _ ...client.PatchOption) error {
	s.patches++
	_, err := patch.Data(obj)
	return err
}

func benchPod(annotated, labelled bool) *metav1.PartialObjectMetadata {
	pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "web-5d8f7c9b4-x7k2p",
		Labels:      map[string]string{"app.kubernetes.io/name": "web", "pod-template-hash": "5d8f7c9b4"},
		Annotations: map[string]string{"kubectl.kubernetes.io/default-container": "app"},
	}}
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	if annotated {
		pod.Annotations[wellknown.DefaultPodLabelAnnotation] = "true"
	}
	if labelled {
		pod.Labels[wellknown.DefaultPodNameLabel] = pod.Name
	}
	return pod
}

// BenchmarkPodLabeler covers the labeler's decide-and-patch path: the predicate every pod
// event goes through, and Reconcile from the cached read to the encoded merge patch.
func BenchmarkPodLabeler(b *testing.B) {
	newReconciler := func(pod *metav1.PartialObjectMetadata) (*Reconciler, *podStub) {
		stub := &podStub{pod: pod}
		return &Reconciler{Client: stub, PodLabelKeys: wellknown.DefaultPodLabelKeys}, stub
	}
	req := ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "shop", Name: "web-5d8f7c9b4-x7k2p"}}
	ctx := context.Background()

	for _, c := range []struct {
		name                string
		annotated, labelled bool
		patches             int
	}{
		{"reconcile-adds-label", true, false, 1},
		{"reconcile-removes-label", false, true, 1},
		{"reconcile-unchanged", true, true, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			r, stub := newReconciler(benchPod(c.annotated, c.labelled))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Reconcile(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			if want := c.patches * b.N; stub.patches != want {
				b.Fatalf("%d patches for %d reconciles, want %d", stub.patches, b.N, want)
			}
		})
	}
	b.Run("predicate-update", func(b *testing.B) {
		r, _ := newReconciler(nil)
		p := r.needsLabelChange()
		old, updated := benchPod(true, true), benchPod(true, true)
		updated.ResourceVersion = "2"
		e := event.TypedUpdateEvent[client.Object]{ObjectOld: old, ObjectNew: updated}
		b.ReportAllocs()
		for b.Loop() {
			if p.Update(e) {
				b.Fatal("a status-only update must not reach the labeler")
			}
		}
	})
}

// BenchmarkPodCache reports what the operator's pod cache holds per pod (B/pod: heap after
// GC), beside the same cache without the transform: the metadata client's pods as they
// come. Half the pods opt in and carry their label, as in make bench's memory figure.
func BenchmarkPodCache(b *testing.B) {
	const pods = 20_000
	docs := make([][]byte, pods)
	for i := range docs {
		pod := metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("web-5d8f7c9b4-%05d", i), Namespace: "shop", UID: types.UID(fmt.Sprintf("6f1e2d3c-4b5a-6978-8a9b-0c1d2e%06d", i)),
				ResourceVersion: fmt.Sprint(100_000 + i), CreationTimestamp: metav1.Now(),
				Labels:      map[string]string{"app.kubernetes.io/name": "web", "pod-template-hash": "5d8f7c9b4"},
				Annotations: map[string]string{"kubectl.kubernetes.io/default-container": "app"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f7c9b4",
					UID: "6f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
			},
		}
		if i%2 == 0 {
			pod.Annotations[wellknown.DefaultPodLabelAnnotation] = "true"
			pod.Labels[wellknown.DefaultPodNameLabel] = pod.Name
		}
		docs[i], _ = json.Marshal(pod)
	}
	for _, bc := range []struct {
		name      string
		transform toolscache.TransformFunc
	}{
		{"metadata as it comes", nil},
		{"demo-operator", PodCacheTransform(wellknown.DefaultPodLabelKeys)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				before := heapAfterGC()
				store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
				for _, doc := range docs {
					var pod any = &metav1.PartialObjectMetadata{}
					if err := json.Unmarshal(doc, pod); err != nil {
						b.Fatal(err)
					}
					if bc.transform != nil {
						pod, _ = bc.transform(pod)
					}
					if err := store.Add(pod); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(heapAfterGC()-before)/pods, "B/pod")
				runtime.KeepAlive(store)
			}
		})
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

// TestPodCacheLargeOptInValues measures what the pod cache retains of pods whose opt-in
// annotation holds a large value other than "true" (anyone who may annotate a pod chooses
// it), beside the metadata as it comes and the cache as it was when it kept such values:
// this cache holds none of them.
func TestPodCacheLargeOptInValues(t *testing.T) {
	const pods = 100
	value := strings.Repeat("x", 256<<10-len(wellknown.DefaultPodLabelAnnotation))
	docs := make([][]byte, pods)
	for i := range docs {
		pod := metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("web-5d8f7c9b4-%05d", i), Namespace: "shop", UID: types.UID(fmt.Sprintf("6f1e2d3c-4b5a-6978-8a9b-0c1d2e%06d", i)),
				ResourceVersion: fmt.Sprint(100_000 + i),
				Annotations:     map[string]string{wellknown.DefaultPodLabelAnnotation: value},
			},
		}
		docs[i], _ = json.Marshal(pod)
	}
	transform := PodCacheTransform(wellknown.DefaultPodLabelKeys)
	// keepingValues is the transform as it was: every value of the annotation kept.
	keepingValues := func(in any) (any, error) {
		v := in.(*metav1.PartialObjectMetadata).Annotations[wellknown.DefaultPodLabelAnnotation]
		out, err := transform(in)
		out.(*metav1.PartialObjectMetadata).Annotations = map[string]string{wellknown.DefaultPodLabelAnnotation: v}
		return out, err
	}
	// Each store is kept until all are measured: what one frees would count against the next.
	var stores []toolscache.Indexer
	retained := func(transform toolscache.TransformFunc) float64 {
		before := heapAfterGC()
		store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{})
		for _, doc := range docs {
			var pod any = &metav1.PartialObjectMetadata{}
			if err := json.Unmarshal(doc, pod); err != nil {
				t.Fatal(err)
			}
			if transform != nil {
				pod, _ = transform(pod)
			}
			if err := store.Add(pod); err != nil {
				t.Fatal(err)
			}
		}
		stores = append(stores, store)
		return float64(int64(heapAfterGC())-int64(before)) / pods
	}
	retained(transform) // the first use's allocations (decoders, interned strings) out of the figures
	now, asItComes, asItWas := retained(transform), retained(nil), retained(keepingValues)
	runtime.KeepAlive(stores)
	runtime.KeepAlive(docs)
	t.Logf("retained per pod with a %d-byte opt-in value: metadata as it comes %.0f B, values kept %.0f B, demo-operator %.0f B",
		len(value), asItComes, asItWas, now)
	// The bound is a tenth of the value: the heap moves by a few KiB per pod with the test's
	// manager running beside it, and a kept value would show as the whole value.
	if now > float64(len(value))/10 {
		t.Errorf("the pod cache retains %.0f B per pod of a %d-byte annotation value (values kept: %.0f B)", now, len(value), asItWas)
	}
}
