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
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const (
	// releaseName gives the chart's objects names of their own (e2e-demo-operator-…), apart
	// from config/default's (demo-operator-…).
	releaseName = "e2e"
	// chartFullname is the chart's prefix for the release's objects.
	chartFullname = "e2e-demo-operator"
)

var (
	installOnce sync.Once
	installErr  error
	// operatorNamespace is the namespace of the Helm release, restricted by Pod Security.
	operatorNamespace string
	// pullToReady is how long the manager pods took from helm install to Ready, image pull included.
	pullToReady time.Duration
)

// installOperator installs the chart once for the tests that need the operator running, as
// users do: helm install from the OCI registry, the manager image from the local registry, two
// replicas, in a namespace that enforces the restricted Pod Security Standard.
func installOperator(t *testing.T) string {
	t.Helper()
	installOnce.Do(func() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo-operator-helm",
			Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
		if installErr = k8s.Create(context.Background(), ns); installErr != nil {
			return
		}
		operatorNamespace = ns.Name
		repository, tag, _ := strings.Cut(strings.TrimPrefix(managerImage, cluster.RegistryHost()+"/"), ":")
		start := time.Now()
		if _, installErr = helm("install", releaseName, chartRef, "--version", chartVersion, "--ca-file", cluster.RegistryCAFile(),
			"--namespace", ns.Name, "--set", "image.repository="+cluster.RegistryHost()+"/"+repository, "--set", "image.tag="+tag,
			"--set", "test.image="+kubectlImage); installErr != nil {
			return
		}
		pods := framework.ExpectManagerPods(t, k8s, ns.Name, chartFullname, managerImage, 2, 3*time.Minute)
		pullToReady = time.Since(start)
		t.Logf("helm install to 2 manager pods Ready (image pulled from the local registry): %s", pullToReady.Round(10*time.Millisecond))
		for _, p := range pods {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady {
					t.Logf("  %s: created %s, container started %s, Ready %s", p.Name, p.CreationTimestamp.Format(time.TimeOnly),
						p.Status.ContainerStatuses[0].State.Running.StartedAt.Format(time.TimeOnly), c.LastTransitionTime.Format(time.TimeOnly))
				}
			}
		}
	})
	if installErr != nil {
		t.Fatalf("installing the chart: %v", installErr)
	}
	return operatorNamespace
}

// TestHelmInstall: the chart installs the operator from its image into a restricted
// namespace; both pods pass their real probes, one leads, and `helm test` passes.
func TestHelmInstall(t *testing.T) {
	g := NewWithT(t)
	ns := installOperator(t)
	pods := framework.ExpectManagerPods(t, k8s, ns, chartFullname, managerImage, 2, time.Minute)
	g.Eventually(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, ns)).To(BeElementOf(pods[0].Name, pods[1].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())

	_, err := helm("test", releaseName, "--namespace", ns, "--timeout", "3m")
	g.Expect(err).NotTo(HaveOccurred(), "helm test")
	rel := releaseStatus(g, ns)
	var ran int
	for _, h := range rel.Hooks {
		if h.Kind == "Pod" {
			ran++
			g.Expect(h.LastRun.Phase).To(Equal(release.HookPhaseSucceeded), "helm test pod %s", h.Name)
		}
	}
	g.Expect(ran).To(Equal(1), "helm test pods run")
}

// releaseStatus is the release as helm status prints it.
func releaseStatus(g Gomega, namespace string) *release.Release {
	out, err := helm("status", releaseName, "--namespace", namespace, "--output", "json")
	g.Expect(err).NotTo(HaveOccurred())
	rel := &release.Release{}
	g.Expect(json.Unmarshal([]byte(out), rel)).To(Succeed())
	return rel
}

// TestFailover: when the leading pod goes, the other takes the Lease and reconciles; when
// the leader's container is killed, the kubelet restarts it.
func TestFailover(t *testing.T) {
	g := NewWithT(t)
	ns := installOperator(t)
	before := framework.ExpectManagerPods(t, k8s, ns, chartFullname, managerImage, 2, 2*time.Minute)
	var leader string
	g.Eventually(func(g Gomega) { leader = framework.LeaseHolder(g, cs, ns) }, time.Minute, 250*time.Millisecond).Should(Succeed())

	start := time.Now()
	g.Expect(k8s.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: leader}})).To(Succeed())
	var next string
	g.Eventually(func(g Gomega) {
		// A leader that stops releases the Lease (empty holder) before another takes it.
		next = framework.LeaseHolder(g, cs, ns)
		g.Expect(next).NotTo(BeEmpty())
		g.Expect(next).NotTo(Equal(leader))
	}, 2*time.Minute, 100*time.Millisecond).Should(Succeed())
	takeover := time.Since(start)
	// Serving: the new leader reconciles a DemoApplication created after the takeover.
	appNS := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	app := builder.DemoApplication(appNS, "after-failover", builder.Image(appImage), builder.Replicas(0), builder.Ports(builder.Port("http", 80, 8080)))
	g.Expect(k8s.Create(context.Background(), app)).To(Succeed())
	g.Eventually(func() error {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(app), &appsv1.Deployment{})
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	// Whichever asks first wins: the other pod, or the pod the ReplicaSet starts in place.
	who := "the pod the ReplicaSet started in its place"
	if next == before[0].Name || next == before[1].Name {
		who = "the other pod"
	}
	t.Logf("failover: leader pod %s deleted; %s (%s) took the Lease after %s and reconciled after %s",
		leader, next, who, takeover.Round(10*time.Millisecond), time.Since(start).Round(10*time.Millisecond))

	// Kill the new leader's container through the runtime, as an OOM kill or a crash would.
	pod := &corev1.Pod{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: next}, pod)).To(Succeed())
	restarts := pod.Status.ContainerStatuses[0].RestartCount
	id := strings.TrimPrefix(pod.Status.ContainerStatuses[0].ContainerID, "containerd://")
	kill := exec.Command("ctr", "--address", filepath.Join(cluster.Dir, "node", "containerd.sock"), "--namespace", "k8s.io",
		"tasks", "kill", "--signal", "SIGKILL", id)
	out, err := kill.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	start = time.Now()
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		status := pod.Status.ContainerStatuses[0]
		g.Expect(status.RestartCount).To(BeNumerically(">", restarts))
		g.Expect(status.LastTerminationState.Terminated).NotTo(BeNil())
		g.Expect(status.LastTerminationState.Terminated.ExitCode).To(Equal(int32(137)))
		g.Expect(framework.PodReady(pod)).To(BeTrue())
	}, 3*time.Minute, 250*time.Millisecond).Should(Succeed())
	t.Logf("container of %s killed with SIGKILL: restarted by the kubelet and Ready again after %s", next, time.Since(start).Round(10*time.Millisecond))
	framework.ExpectManagerPods(t, k8s, ns, chartFullname, managerImage, 2, 2*time.Minute)
}

// TestMetrics: the metrics Service answers a ServiceAccount that the chart's metrics-reader
// ClusterRole is bound to, refuses a request without a token (401) and one whose
// ServiceAccount lacks the role (403).
func TestMetrics(t *testing.T) {
	g := NewWithT(t)
	ns := installOperator(t)
	framework.ExpectManagerPods(t, k8s, ns, chartFullname, managerImage, 2, 2*time.Minute)
	ctx := context.Background()
	clientNS := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	token := func(sa string) string {
		g.Expect(k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: clientNS, Name: sa}})).To(Succeed())
		tr, err := cs.CoreV1().ServiceAccounts(clientNS).CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		return tr.Status.Token
	}
	reader, other := token("scraper"), token("nosy")
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: clientNS + "-scraper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: chartFullname + "-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: clientNS, Name: "scraper"}},
	}
	g.Expect(k8s.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(ctx, binding) })

	svc := &corev1.Service{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: chartFullname + "-metrics"}, svc)).To(Succeed())
	url := fmt.Sprintf("https://%s:%d/metrics", svc.Spec.ClusterIP, svc.Spec.Ports[0].Port)
	// The manager serves metrics with a self-signed certificate unless given one.
	https := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}} //nolint:gosec
	get := func(token string) (int, string, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := https.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	// Both pods serve metrics; only the leader runs the controllers, so the Service answers
	// with their reconcile counts on some calls. Each call is a new connection, balanced anew.
	g.Eventually(func(g Gomega) {
		code, body, err := get(reader)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK))
		for _, metric := range []string{"leader_election_master_status", `controller_runtime_reconcile_total{controller="pod-labeler"`,
			`controller_runtime_reconcile_total{controller="demoapplication"`} {
			g.Expect(strings.Contains(body, metric)).To(BeTrue(), "metrics lack %s", metric)
		}
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	for token, want := range map[string]int{"": http.StatusUnauthorized, other: http.StatusForbidden} {
		code, _, err := get(token)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(want))
	}
}

// TestMemoryLimit: the leading manager labels a few thousand pods within the chart's memory
// limit, enforced by the pod's memory cgroup, without an OOM kill.
func TestMemoryLimit(t *testing.T) {
	const pods = 3000
	g := NewWithT(t)
	ns := installOperator(t)
	framework.ExpectManagerPods(t, k8s, ns, chartFullname, managerImage, 2, 2*time.Minute)
	var leader string
	g.Eventually(func(g Gomega) { leader = framework.LeaseHolder(g, cs, ns) }, time.Minute, 250*time.Millisecond).Should(Succeed())
	pod := &corev1.Pod{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: leader}, pod)).To(Succeed())
	restarts := pod.Status.ContainerStatuses[0].RestartCount

	// kwok's node runs them: they load the manager's cache, not the machine.
	loadNS := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	ctx := context.Background()
	errs := make(chan error, pods)
	sem := make(chan struct{}, 32)
	for i := range pods {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- k8s.Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: loadNS, Name: fmt.Sprintf("load-%05d", i),
					Annotations: map[string]string{"padok.fr/add-pod-name-label": "true"}},
				Spec: corev1.PodSpec{NodeName: "kwok-node-0",
					Tolerations: []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{{Name: "c", Image: "load"}}},
			})
		}()
	}
	createErrs := make([]error, 0, pods)
	for range pods {
		createErrs = append(createErrs, <-errs)
	}
	g.Expect(errors.Join(createErrs...)).NotTo(HaveOccurred())
	start := time.Now()
	g.Eventually(func(g Gomega) {
		list := &corev1.PodList{}
		g.Expect(k8s.List(ctx, list, client.InNamespace(loadNS), client.HasLabels{"padok.fr/pod-name"})).To(Succeed())
		g.Expect(list.Items).To(HaveLen(pods))
	}, 5*time.Minute, time.Second).Should(Succeed())
	t.Logf("%d pods labelled in %s", pods, time.Since(start).Round(100*time.Millisecond))

	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: leader}, pod)).To(Succeed())
	g.Expect(pod.Status.ContainerStatuses[0].RestartCount).To(Equal(restarts), "the leader restarted")
	memory := containerCgroup(t, pod, "memory")
	limit, maxUsage := readInt(t, memory, "memory.limit_in_bytes"), readInt(t, memory, "memory.max_usage_in_bytes")
	g.Expect(limit).To(Equal(pod.Spec.Containers[0].Resources.Limits.Memory().Value()), "the cgroup enforces the chart's limit")
	stat, err := os.ReadFile(filepath.Join(memory, "memory.stat"))
	g.Expect(err).NotTo(HaveOccurred())
	var rss int64
	for _, line := range strings.Split(string(stat), "\n") {
		if v, ok := strings.CutPrefix(line, "total_rss "); ok {
			_, _ = fmt.Sscan(v, &rss)
		}
	}
	oom, err := os.ReadFile(filepath.Join(memory, "memory.oom_control"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(oom)).To(ContainSubstring("oom_kill 0"))
	g.Expect(maxUsage).To(BeNumerically("<", limit))
	t.Logf("leader %s with %d labelled pods: limit %d MiB, memory.max_usage %d MiB, RSS %d MiB, no OOM kill",
		leader, pods, limit>>20, maxUsage>>20, rss>>20)
}

// containerCgroup is the directory of the pod's first container's cgroup in a v1 hierarchy.
func containerCgroup(t *testing.T, pod *corev1.Pod, hierarchy string) string {
	t.Helper()
	id := strings.TrimPrefix(pod.Status.ContainerStatuses[0].ContainerID, "containerd://")
	matches, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", hierarchy, "*", "kubepods", "*", "pod"+string(pod.UID), id))
	if len(matches) == 0 {
		// Guaranteed pods sit directly under kubepods.
		matches, _ = filepath.Glob(filepath.Join("/sys/fs/cgroup", hierarchy, "*", "kubepods", "pod"+string(pod.UID), id))
	}
	if len(matches) != 1 {
		t.Fatalf("no cgroup for container %s of pod %s", id, pod.Name)
	}
	return matches[0]
}

func readInt(t *testing.T, dir, file string) int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	if _, err := fmt.Sscan(string(data), &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}
