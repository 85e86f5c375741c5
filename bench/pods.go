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

package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/cmft/demo-operator/controllers/podlabel"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// setting is a client budget: the manager's QPS, burst and concurrent reconciles, which the
// baselines get too.
type setting struct {
	Name        string  `json:"name"`
	QPS         float64 `json:"qps"`
	Burst       int     `json:"burst"`
	Concurrency int     `json:"concurrency"`
}

// The names of the two client budgets the figures compare: the manager's defaults, and the
// former limit below.
const (
	settingDefaults = "defaults"
	settingLimited  = "limited"
)

// The client limits the manager had by default before it followed controller-runtime in
// setting none: measured beside the defaults, to show what a limit costs.
const (
	limitedQPS   = 50
	limitedBurst = 100
)

func (b *Bench) defaultSetting() setting {
	return setting{settingDefaults, b.defaults.QPS, b.defaults.Burst, b.defaults.MaxConcurrent}
}

func (b *Bench) limitedSetting() setting {
	return setting{settingLimited, limitedQPS, limitedBurst, b.defaults.MaxConcurrent}
}

// rateBound returns how long n requests take at s's QPS, none without a limit.
func (s setting) rateBound(n float64) time.Duration {
	if s.QPS <= 0 {
		return 0
	}
	return time.Duration(n / s.QPS * float64(time.Second))
}

// child returns the flags of a child playing role within this budget, watching namespaces
// (comma-separated) only: runs leave their objects behind rather than spend minutes
// deleting them, and each child sees its own run's alone.
func (s setting) child(role, namespaces string) childFlags {
	return childFlags{role: role, qps: s.QPS, burst: s.Burst, concurrency: s.Concurrency, namespaces: namespaces}
}

// podSpec is one pod the bench creates; its name starts with "a-" when annotated, "u-" when not.
type podSpec struct {
	name      string
	annotated bool
	labelled  bool
}

// labelingPods returns n annotated pods with one unannotated pod after every ten.
func labelingPods(n int) []podSpec {
	pods := make([]podSpec, 0, n+n/10)
	for i := range n {
		pods = append(pods, podSpec{name: fmt.Sprintf("a-%07d", i), annotated: true})
		if i%10 == 9 {
			pods = append(pods, podSpec{name: fmt.Sprintf("u-%07d", i/10)})
		}
	}
	return pods
}

// memoryPods returns pods from..to-1 of a population where every other pod is annotated,
// and already labelled as the labeler leaves it.
func memoryPods(from, to int) []podSpec {
	pods := make([]podSpec, 0, to-from)
	for i := from; i < to; i++ {
		if i%2 == 0 {
			pods = append(pods, podSpec{name: fmt.Sprintf("a-%07d", i), annotated: true, labelled: true})
		} else {
			pods = append(pods, podSpec{name: fmt.Sprintf("u-%07d", i)})
		}
	}
	return pods
}

// The Deployment and ReplicaSet whose pods the labelling and memory runs create.
const (
	podsApp          = "bench"
	podsTemplateHash = "5d8f7c9b4"
)

// newPod returns pod p as the ReplicaSet of benchApp's Deployment makes it from template:
// owner, template labels and annotations, pod spec. It has no status (no kubelet runs), so
// it is smaller than a real pod and the full-Pod baseline's memory an underestimate.
func newPod(namespace string, template *corev1.PodTemplateSpec, p podSpec) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
	pod.Name, pod.Namespace = p.name, namespace
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet",
		Name: podsApp + "-" + podsTemplateHash, UID: "6f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	metav1.SetMetaDataLabel(&pod.ObjectMeta, appsv1.DefaultDeploymentUniqueLabelKey, podsTemplateHash)
	if p.annotated {
		metav1.SetMetaDataAnnotation(&pod.ObjectMeta, wellknown.DefaultPodLabelAnnotation, wellknown.OptIn)
	}
	if p.labelled {
		metav1.SetMetaDataLabel(&pod.ObjectMeta, wellknown.DefaultPodNameLabel, p.name)
	}
	return pod
}

// createPods creates the pods from the bench's creator goroutines.
func (b *Bench) createPods(ctx context.Context, namespace string, pods []podSpec) error {
	template := newAppObjects(benchApp(namespace, podsApp), configHash(configObjects(namespace, podsApp))).deployment.Spec.Template
	return parallel(b.cfg.Creators, len(pods), func(i int) error {
		_, err := b.clientset.CoreV1().Pods(namespace).Create(ctx, newPod(namespace, &template, pods[i]), metav1.CreateOptions{})
		return err
	})
}

// parallel calls f(0..n-1) from workers goroutines and returns the first error.
func parallel(workers, n int, f func(int) error) error {
	next := make(chan int)
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// newNamespace creates a namespace for one run. envtest runs no namespace controller, so
// namespaces are emptied, never deleted.
func (b *Bench) newNamespace(ctx context.Context, prefix string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	ns, err := b.clientset.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return ns.Name, nil
}

// watchLabelled reports on the returned channel when n pods of namespace carry their
// pod-name label, as the API server's watch shows them.
func (b *Bench) watchLabelled(ctx context.Context, namespace string, n int) (<-chan time.Time, error) {
	informer := metadatainformer.NewFilteredMetadataInformer(b.metadata,
		corev1.SchemeGroupVersion.WithResource("pods"), namespace, 0, cache.Indexers{}, nil).Informer()
	if err := informer.SetTransform(podlabel.PodCacheTransform(wellknown.DefaultPodLabelKeys)); err != nil {
		return nil, err
	}
	done := make(chan time.Time, 1)
	labelled := map[string]bool{}
	// Handlers of one registration run one at a time: no lock needed.
	seen := func(obj any) {
		m, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok || labelled[m.Name] {
			return
		}
		if value, _ := wellknown.PodLabel(m, wellknown.DefaultPodNameLabel); value != m.Name {
			return
		}
		labelled[m.Name] = true
		if len(labelled) == n {
			done <- time.Now()
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: seen, UpdateFunc: func(_, obj any) { seen(obj) }}); err != nil {
		return nil, err
	}
	go informer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil, ctx.Err()
	}
	return done, nil
}

// LabelRun is one measurement of pod labelling.
type LabelRun struct {
	// Seconds runs from the first create to the last pod seen labelled.
	Seconds float64 `json:"seconds"`
	// CreateSeconds runs from the first create to the last create answered: the floor.
	CreateSeconds float64 `json:"createSeconds"`
	// Writes are the labeler's write requests by method and resource.
	Writes map[string]int `json:"writes"`
	// PodPatches maps "a" (annotated) and "u" (unannotated) to how many pods got how many patches.
	PodPatches map[string]map[int]int `json:"podPatches"`
}

// labelRun creates n annotated pods (and n/10 unannotated ones) while role labels them.
func (b *Bench) labelRun(ctx context.Context, role string, s setting, n int) (LabelRun, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ns, err := b.newNamespace(ctx, "labeling")
	if err != nil {
		return LabelRun{}, err
	}
	p, err := b.start(s.child(role, ns))
	if err != nil {
		return LabelRun{}, err
	}
	defer p.stop()
	if err := p.await(2*time.Minute, "elected", "ready"); err != nil {
		return LabelRun{}, err
	}
	done, err := b.watchLabelled(ctx, ns, n)
	if err != nil {
		return LabelRun{}, err
	}
	begin := time.Now()
	if err := b.createPods(ctx, ns, labelingPods(n)); err != nil {
		return LabelRun{}, err
	}
	run := LabelRun{CreateSeconds: seconds(time.Since(begin))}
	// Generous: the rate-limited runs take n/QPS.
	timeout := 5*time.Minute + 3*s.rateBound(float64(n))
	select {
	case last := <-done:
		run.Seconds = seconds(last.Sub(begin))
	case <-time.After(timeout):
		return run, fmt.Errorf("%s: not every pod labelled after %s", role, timeout)
	}
	// A duplicate or stray patch would come right after the last label: give it time to.
	time.Sleep(2 * time.Second)
	stats, err := p.Stats()
	if err != nil {
		return run, err
	}
	run.Writes, run.PodPatches = stats.Writes, stats.PodPatches
	return run, nil
}

// labeling measures throughput at N with the manager's defaults (no client-side limit) and
// with the former 50-QPS limit, beside the client-go baseline, then the plot's sizes with
// the defaults.
func (b *Bench) labeling(ctx context.Context) error {
	type job struct {
		s    setting
		n    int
		runs int
	}
	// Rate-bound, the limited setting takes N/QPS each time: one run says it.
	jobs := []job{{b.defaultSetting(), b.cfg.Pods, b.cfg.Runs}, {b.limitedSetting(), b.cfg.Pods, 1}}
	for _, n := range b.cfg.PlotSizes {
		if n != b.cfg.Pods {
			jobs = append(jobs, job{b.defaultSetting(), n, 1})
		}
	}
	for _, j := range jobs {
		if !b.measures(j.s) {
			continue
		}
		runs := map[string][]LabelRun{}
		roles := []string{RoleManager, RoleClientGoLabeler}
		// Alternate the two so that drift on a shared machine hits both alike.
		for i := range j.runs {
			for _, role := range roles {
				r, err := b.labelRun(ctx, role, j.s, j.n)
				if err != nil {
					return err
				}
				b.logf("labeling %s N=%d %s run %d: %.1fs (creates %.1fs), %.0f pods/s",
					j.s.Name, j.n, role, i+1, r.Seconds, r.CreateSeconds, float64(j.n)/r.Seconds)
				runs[role] = append(runs[role], r)
			}
		}
		for _, role := range roles {
			b.results.addLabeling(role, j.s, j.n, runs[role])
		}
	}
	return nil
}

// MemoryPoint is a labeler's memory with N pods in the cluster, half of them annotated.
type MemoryPoint struct {
	Role      string  `json:"role"`
	Pods      int     `json:"pods"`
	HeapBytes float64 `json:"heapBytes"`
	RSSBytes  float64 `json:"rssBytes"`
	// RSSAnonBytes and RSSFileBytes split the RSS of the operator's binary: anonymous pages
	// (heap, stacks, the runtime's own) and those of its executable file it touched.
	RSSAnonBytes float64 `json:"rssAnonBytes,omitempty"`
	RSSFileBytes float64 `json:"rssFileBytes,omitempty"`
	// HeapGrowthBytes is HeapBytes less the same role's heap with no pods.
	HeapGrowthBytes float64 `json:"heapGrowthBytes"`
	BytesPerPod     float64 `json:"bytesPerPod"`
}

// memory grows one namespace's pods through the sizes and, at each, starts the manager and
// the full-Pod baseline in turn and reads their heap after GC and RSS.
func (b *Bench) memory(ctx context.Context) error {
	sizes := append([]int{0, b.cfg.Pods}, b.cfg.PlotSizes...)
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	ns, err := b.newNamespace(ctx, "memory")
	if err != nil {
		return err
	}
	empty := map[string]float64{}
	created := 0
	for _, n := range sizes {
		if err := b.createPods(ctx, ns, memoryPods(created, n)); err != nil {
			return err
		}
		// The apps those pods would be the pods of read a ConfigMap and a Secret each.
		if err := parallel(b.cfg.Creators, n/configsEvery-created/configsEvery, func(i int) error {
			_, err := createConfigs(ctx, b.clientset, ns, fmt.Sprintf("app-%06d", created/configsEvery+i))
			return err
		}); err != nil {
			return err
		}
		created = n
		runs := 1
		if n == 0 || n == b.cfg.Pods {
			runs = b.cfg.Runs
		}
		for _, role := range []string{RoleManager, RoleFullPodManager} {
			var heap, rssBytes []float64
			for range runs {
				st, err := b.settledStats(b.defaultSetting().child(role, ns))
				if err != nil {
					return err
				}
				heap, rssBytes = append(heap, float64(st.HeapBytes)), append(rssBytes, float64(st.RSSBytes))
			}
			point := MemoryPoint{Role: role, Pods: n, HeapBytes: median(heap), RSSBytes: median(rssBytes)}
			if n == 0 {
				empty[role] = point.HeapBytes
			} else {
				point.HeapGrowthBytes = point.HeapBytes - empty[role]
				point.BytesPerPod = point.HeapGrowthBytes / float64(n)
			}
			b.logf("memory N=%d %s: heap %.1f MiB, RSS %.1f MiB, %.0f B/pod",
				n, role, point.HeapBytes/mib, point.RSSBytes/mib, point.BytesPerPod)
			b.results.Memory = append(b.results.Memory, point)
		}
		if b.cfg.Manager != "" && (n == 0 || n == b.cfg.Pods) {
			if err := b.binaryMemory(ctx, ns, n, runs); err != nil {
				return err
			}
		}
	}
	b.memoryPods, b.memoryNamespace = created, ns
	return nil
}

const mib = 1 << 20

// settledStats starts a child, waits until its caches hold everything and its work is
// done, and returns its stats.
func (b *Bench) settledStats(f childFlags) (*Stats, error) {
	p, err := b.start(f)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	if err := p.await(5*time.Minute, "elected", "ready"); err != nil {
		return nil, err
	}
	// Let the initial events drain and the informers' list buffers become garbage.
	time.Sleep(3 * time.Second)
	return p.Stats()
}
