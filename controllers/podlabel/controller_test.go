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

package podlabel_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/controllers/podlabel"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const (
	annotation = wellknown.DefaultPodLabelAnnotation
	label      = wellknown.DefaultPodNameLabel
)

func newPod(namespace, name string, annotations, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
}

func labelsOf(g Gomega, pod *corev1.Pod) map[string]string {
	got := &corev1.Pod{}
	g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(pod), got)).To(Succeed())
	return got.Labels
}

func TestPodLabeler(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")

	t.Run("an opted-in pod gets its name as label, and loses it when it opts out", func(t *testing.T) {
		g := NewWithT(t)
		pod := newPod(ns, "web-0", map[string]string{annotation: "true"}, map[string]string{"team": "a"})
		g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(labelsOf(g, pod)).To(Equal(map[string]string{"team": "a", label: "web-0"}))
		}, 15*time.Second).Should(Succeed())

		suite.MergePatch(t, pod, fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, annotation))
		g.Eventually(func(g Gomega) {
			g.Expect(labelsOf(g, pod)).To(Equal(map[string]string{"team": "a"}))
		}, 15*time.Second).Should(Succeed())
	})

	t.Run("the label is restored when someone removes or changes it", func(t *testing.T) {
		g := NewWithT(t)
		pod := newPod(ns, "web-1", map[string]string{annotation: "true"}, nil)
		g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		g.Eventually(func(g Gomega) { g.Expect(labelsOf(g, pod)).To(HaveKeyWithValue(label, "web-1")) }, 15*time.Second).Should(Succeed())

		suite.MergePatch(t, pod, fmt.Sprintf(`{"metadata":{"labels":{%q:"someone-else"}}}`, label))
		g.Eventually(func(g Gomega) { g.Expect(labelsOf(g, pod)).To(HaveKeyWithValue(label, "web-1")) }, 15*time.Second).Should(Succeed())
	})

	t.Run("any other annotation value, or none, means no label", func(t *testing.T) {
		g := NewWithT(t)
		for name, annotations := range map[string]map[string]string{
			"opt-false": {annotation: "false"},
			"opt-yes":   {annotation: "yes"},
			"opt-none":  nil,
		} {
			pod := newPod(ns, name, annotations, map[string]string{label: "stale", "keep": "me"})
			g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
			g.Eventually(func(g Gomega) {
				g.Expect(labelsOf(g, pod)).To(Equal(map[string]string{"keep": "me"}))
			}, 15*time.Second).Should(Succeed(), name)
		}
	})

	t.Run("a pod that is already right costs no write", func(t *testing.T) {
		g := NewWithT(t)
		pods := "/api/v1/namespaces/" + ns + "/pods"
		// The writes of the subtests before, counted once they have all come back.
		before := suite.Quiesced(g, pods)
		right := newPod(ns, "right", map[string]string{annotation: "true"}, map[string]string{label: "right"})
		plain := newPod(ns, "plain", nil, map[string]string{"app": "x"})
		g.Expect(k8sClient.Create(ctx, right)).To(Succeed())
		g.Expect(k8sClient.Create(ctx, plain)).To(Succeed())
		// A pod the labeler must change, created last: once it is labelled, the two
		// before it have been seen too.
		marker := newPod(ns, "marker", map[string]string{annotation: "true"}, nil)
		g.Expect(k8sClient.Create(ctx, marker)).To(Succeed())
		g.Eventually(func(g Gomega) { g.Expect(labelsOf(g, marker)).To(HaveKey(label)) }, 15*time.Second).Should(Succeed())
		g.Consistently(func() int { return suite.WritesUnder(pods) }, 2*time.Second).Should(Equal(before + 1))
	})

	t.Run("a name too long for a label value gets one Warning event and no retries", func(t *testing.T) {
		g := NewWithT(t)
		name := "long-" + strings.Repeat("x", 70)
		pod := newPod(ns, name, map[string]string{annotation: "true"}, nil)
		g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(suite.EventReasons(g, ns, name)).To(Equal([]string{podlabel.EventPodNameTooLong}))
		}, 15*time.Second).Should(Succeed())
		// Status updates do not bring the pod back to the labeler.
		pod.Status.Phase = corev1.PodPending
		g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(suite.EventReasons(g, ns, name)).To(HaveLen(1))
			g.Expect(labelsOf(g, pod)).NotTo(HaveKey(label))
		}, 2*time.Second).Should(Succeed())
	})

	t.Run("concurrent writers of other labels are never clobbered", func(t *testing.T) {
		g := NewWithT(t)
		const pods, writers = 10, 10
		var wg sync.WaitGroup
		for i := range pods {
			pod := newPod(ns, fmt.Sprintf("busy-%d", i), map[string]string{annotation: "true"}, nil)
			g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					patch := fmt.Sprintf(`{"metadata":{"labels":{"writer-%d":"done"}}}`, w)
					_ = k8sClient.Patch(ctx, pod.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch)))
				}()
			}
		}
		wg.Wait()
		for i := range pods {
			pod := newPod(ns, fmt.Sprintf("busy-%d", i), nil, nil)
			g.Eventually(func(g Gomega) {
				got := labelsOf(g, pod)
				g.Expect(got).To(HaveKeyWithValue(label, pod.Name))
				for w := range writers {
					g.Expect(got).To(HaveKeyWithValue(fmt.Sprintf("writer-%d", w), "done"))
				}
			}, 15*time.Second).Should(Succeed())
		}
	})

	t.Run("pods deleted before or while they are labelled are no error", func(t *testing.T) {
		g := NewWithT(t)
		for i := range 20 {
			pod := newPod(ns, fmt.Sprintf("gone-%d", i), map[string]string{annotation: "true"}, nil)
			g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
			g.Expect(k8sClient.Delete(ctx, pod, client.GracePeriodSeconds(0))).To(Succeed())
		}
		g.Consistently(func(g Gomega) {
			g.Expect(reconcileErrors(g, "pod-labeler")).To(BeZero())
		}, 2*time.Second).Should(Succeed())
	})

	t.Run("a large opt-in value other than true is not cached, and takes the label away", func(t *testing.T) {
		g := NewWithT(t)
		pod := newPod(ns, "large", map[string]string{annotation: "true"}, nil)
		g.Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		g.Eventually(func(g Gomega) { g.Expect(labelsOf(g, pod)).To(HaveKeyWithValue(label, "large")) }, 15*time.Second).Should(Succeed())

		// As large as the API server admits: 256 KiB for all of a pod's annotations, keys included.
		large := strings.Repeat("x", 256<<10-len(annotation))
		suite.MergePatch(t, pod, fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, annotation, large))
		g.Eventually(func(g Gomega) { g.Expect(labelsOf(g, pod)).NotTo(HaveKey(label)) }, 15*time.Second).Should(Succeed())

		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
		informer, err := mgr.GetCache().GetInformer(ctx, meta)
		g.Expect(err).NotTo(HaveOccurred())
		g.Eventually(func(g Gomega) {
			item, exists, err := informer.(cache.SharedIndexInformer).GetStore().GetByKey(ns + "/large")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(exists).To(BeTrue())
			cached := item.(*metav1.PartialObjectMetadata)
			g.Expect(cached.Labels).NotTo(HaveKey(label), "the cache has not seen the label go yet")
			g.Expect(cached.Annotations).To(BeNil())
		}, 15*time.Second).Should(Succeed())
	})

	t.Run("pods are cached as metadata only, without managedFields", func(t *testing.T) {
		g := NewWithT(t)
		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
		informer, err := mgr.GetCache().GetInformer(ctx, meta)
		g.Expect(err).NotTo(HaveOccurred())
		items := informer.(cache.SharedIndexInformer).GetStore().List()
		g.Expect(items).NotTo(BeEmpty())
		for _, item := range items {
			g.Expect(item).To(BeAssignableToTypeOf(&metav1.PartialObjectMetadata{}))
			g.Expect(item.(*metav1.PartialObjectMetadata).ManagedFields).To(BeEmpty())
		}
	})
}

// TestPodLabelerScopedToNamespaces runs a second manager that watches one namespace, with
// keys of its own so that the suite's manager leaves its pods alone.
func TestPodLabelerScopedToNamespaces(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watched, other := testenv.NewNamespace(t, k8sClient, "test-"), testenv.NewNamespace(t, k8sClient, "test-")

	opts := manager.DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	opts.EnableDemoApp = false
	opts.WatchNamespaces = watched
	opts.PodLabelAnnotation, opts.PodNameLabel = "scoped.example.com/opt-in", "scoped.example.com/name"
	scoped, err := manager.New(cfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	g.Expect(err).NotTo(HaveOccurred())
	done := make(chan error)
	go func() { done <- scoped.Start(ctrl.LoggerInto(ctx, ctrl.Log.WithName("scoped"))) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Logf("scoped manager stopped: %v", err)
		}
	}()

	in := newPod(watched, "in", map[string]string{opts.PodLabelAnnotation: "true"}, nil)
	out := newPod(other, "out", map[string]string{opts.PodLabelAnnotation: "true"}, nil)
	g.Expect(k8sClient.Create(ctx, out)).To(Succeed())
	g.Expect(k8sClient.Create(ctx, in)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(labelsOf(g, in)).To(HaveKeyWithValue(opts.PodNameLabel, "in")) }, 15*time.Second).Should(Succeed())
	g.Consistently(func(g Gomega) { g.Expect(labelsOf(g, out)).NotTo(HaveKey(opts.PodNameLabel)) }, 2*time.Second).Should(Succeed())
}
