//go:build node

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

package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestStatefulSetPodsKeepTheirServicesAndData: a StatefulSet app of 3 pods, each claiming a
// volume (static PersistentVolumes this test makes, bound to the claims by name: the node
// has no provisioner), with per-pod Services. A client calling the Service of pod db-1, on a
// new connection each time, reaches db-1 alone through a deletion of that pod and an image
// rollout; what each pod wrote to its volume at each start is there when it comes back; and
// deleting the app keeps the claims and their data.
func TestStatefulSetPodsKeepTheirServicesAndData(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	nextImage := pushNextAppImage(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-sts-", testenv.ControllersRun)
	dirs := staticVolumes(t, ns, "data-db", 3)

	app := builder.DemoApplication(ns, "db", builder.Image(appImage), builder.Replicas(3), builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.Workload = paasv1.WorkloadStatefulSet
	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	app.Spec.Env = []paasv1.EnvVar{{Name: "RECORD_START", Value: "/data/starts"}, {Name: "SERVE_FILE", Value: "/data/starts"}}
	app.Spec.StatefulSet = &paasv1.StatefulSetSettings{
		PodManagementPolicy: appsv1.ParallelPodManagement,
		VolumeClaimTemplates: []paasv1.VolumeClaimTemplate{
			{Name: "data", MountPath: "/data", Size: resource.MustParse("64Mi"), StorageClassName: ptr.To("")},
		},
	}
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	expectServing(t, app, 3)
	starts := func(g Gomega, pod string) []string {
		answer, err := get(podServiceURL(g, ns, pod, "/file"))
		g.Expect(err).NotTo(HaveOccurred())
		return strings.Fields(answer)
	}
	g.Eventually(func(g Gomega) {
		for _, pod := range []string{"db-0", "db-1", "db-2"} {
			answer, err := get(podServiceURL(g, ns, pod, "/"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(answer).To(Equal(pod))
			g.Expect(starts(g, pod)).To(Equal([]string{pod}), "%s's volume holds its first start", pod)
		}
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed())

	calls := callPodService(t, ns, "db-1")
	// db-1 deleted: it comes back under its name, to its Service and its volume.
	pod := &corev1.Pod{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "db-1"}, pod)).To(Succeed())
	g.Expect(k8s.Delete(ctx, pod)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(starts(g, "db-1")).To(Equal([]string{"db-1", "db-1"}))
		g.Expect(calls.count("db-1")).To(BeNumerically(">", 0))
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed())
	// An image rollout replaces every pod, each under its name.
	updateApp(g, app, func(a *paasv1.DemoApplication) { a.Spec.Image = nextImage })
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation))
		g.Expect(app).To(HaveField("Status.Conditions", ContainElement(And(
			HaveField("Type", paasv1.ConditionReady), HaveField("Status", metav1.ConditionTrue)))))
		pods := framework.ReadyPods(g, k8s, ns, podsOf(app))
		g.Expect(pods).To(HaveLen(3))
		for _, p := range pods {
			g.Expect(p.Spec.Containers[0].Image).To(Equal(nextImage))
		}
		g.Expect(starts(g, "db-0")).To(Equal([]string{"db-0", "db-0"}))
		g.Expect(starts(g, "db-1")).To(Equal([]string{"db-1", "db-1", "db-1"}))
	}, 3*time.Minute, 500*time.Millisecond).Should(Succeed())
	// A few more calls to the rolled pod, then the count.
	seen := calls.count("db-1")
	g.Eventually(func() int { return calls.count("db-1") }, time.Minute, 100*time.Millisecond).Should(BeNumerically(">", seen+10))
	answered, others, failed := calls.stop("db-1")
	t.Logf("calls to db-1's Service through its deletion and a rollout: %d from db-1, %d from another pod, %d failed (no pod behind it)",
		answered["db-1"], others, failed)
	g.Expect(others).To(BeZero(), "answers from another pod than db-1: %v", answered)

	// Deleting the app keeps the claims, and their data.
	g.Expect(k8s.Delete(ctx, app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "db"}, &appsv1.StatefulSet{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the StatefulSet goes with the app: %v", err)
		g.Expect(framework.ReadyPods(g, k8s, ns, podsOf(app))).To(BeEmpty())
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed())
	for i, dir := range dirs {
		claim := &corev1.PersistentVolumeClaim{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("data-db-%d", i)}, claim)).To(Succeed())
		g.Expect(claim.DeletionTimestamp).To(BeNil(), "claim %s kept", claim.Name)
		data, err := os.ReadFile(filepath.Join(dir, "starts"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(strings.Fields(string(data))).NotTo(BeEmpty(), "the data of db-%d", i)
	}
}

// podServiceURL is the URL of path on the per-pod Service of pod, at its cluster IP.
func podServiceURL(g Gomega, namespace, pod, path string) string {
	svc := &corev1.Service{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: pod}, svc)).To(Succeed())
	return fmt.Sprintf("http://%s:80%s", svc.Spec.ClusterIP, path)
}

// staticVolumes makes n PersistentVolumes of no StorageClass, each a directory of this
// machine (the real node's), bound in advance to the claim <claimPrefix>-<i> of namespace, and
// returns the directories. They and the claims go when the test ends.
func staticVolumes(t *testing.T, namespace, claimPrefix string, n int) []string {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	root, err := os.MkdirTemp("", "demo-operator-pv-")
	g.Expect(err).NotTo(HaveOccurred())
	dirs := make([]string, 0, n)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprint(i))
		g.Expect(os.Mkdir(dir, 0o777)).To(Succeed())
		// Whichever user the pod runs as may write: the mode is not left to the umask.
		g.Expect(os.Chmod(dir, 0o777)).To(Succeed())
		dirs = append(dirs, dir)
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s-%d", namespace, claimPrefix, i)},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("64Mi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              "",
				ClaimRef:                      &corev1.ObjectReference{Namespace: namespace, Name: fmt.Sprintf("%s-%d", claimPrefix, i)},
				PersistentVolumeSource: corev1.PersistentVolumeSource{
					HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: ptr.To(corev1.HostPathDirectory)}},
			},
		}
		g.Expect(k8s.Create(ctx, pv)).To(Succeed())
		t.Cleanup(func() {
			// The namespace's deletion takes the claims; the volumes, kept by their policy, are the test's.
			if err := k8s.Delete(ctx, pv); client.IgnoreNotFound(err) != nil {
				t.Errorf("deleting PersistentVolume %s: %v", pv.Name, err)
			}
		})
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	return dirs
}

// podServiceCalls calls a per-pod Service on a new connection every 50 ms and counts who
// answers: the answer is the name of the pod that served it.
type podServiceCalls struct {
	mu       sync.Mutex
	answered map[string]int
	failed   int
	done     chan struct{}
	wg       sync.WaitGroup
}

// callPodService starts calling the per-pod Service of pod until stop.
func callPodService(t *testing.T, namespace, pod string) *podServiceCalls {
	t.Helper()
	url := podServiceURL(NewWithT(t), namespace, pod, "/")
	c := &podServiceCalls{answered: map[string]int{}, done: make(chan struct{})}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-tick.C:
			}
			answer, err := get(url)
			c.mu.Lock()
			if err != nil {
				c.failed++
			} else {
				c.answered[answer]++
			}
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { c.stop(pod) })
	return c
}

// count returns how many calls pod answered so far.
func (c *podServiceCalls) count(pod string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answered[pod]
}

// stop ends the calls and returns who answered how many, how many answers came from
// another pod than pod, and how many calls failed.
func (c *podServiceCalls) stop(pod string) (answered map[string]int, others, failed int) {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, n := range c.answered {
		if name != pod {
			others += n
		}
	}
	return c.answered, others, c.failed
}
