//go:build reliability

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

package reliability

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
	"github.com/cmft/demo-operator/pkg/generated/clientset/versioned"
)

// newApp is the i-th DemoApplication of a mix: a ClusterIP Service, a NodePort Service,
// several ports with environment variables, per-pod Services. kwok's nodes run its pods,
// whose image is never pulled.
func newApp(namespace string, i int) *paasv1.DemoApplication {
	web := builder.Port("http", 80, 8080)
	ports, replicas := []paasv1.DemoApplicationPort{web}, int32(1)
	var env []paasv1.EnvVar
	var service *paasv1.ServiceSettings
	switch i % 4 {
	case 1:
		// A node port the cluster allocates, which the operator keeps. Not one named in the
		// spec: kube-apiserver commits that before it writes a Service created by apply, so a
		// create cut short (a client gone, a timeout) holds it, with no Service, until the
		// repair loop has found it unused three times, three minutes apart, longer than these
		// tests wait: seen for 4 of 500 apps in a control-plane restart, and one in a burst.
		service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeNodePort}
	case 2:
		dns := builder.Port("dns", 53, 0)
		dns.Protocol = corev1.ProtocolUDP
		ports, replicas = append(ports, builder.Port("metrics", 9090, 0), dns), 2
		env = []paasv1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "INDEX", Value: strconv.Itoa(i)}}
	case 3:
		// A ConfigMap read through env: since issue 50 its hash is in the pod template, which
		// a Deployment of release N-1 does not carry.
		replicas, env = 2, []paasv1.EnvVar{{Name: "INDEX", Value: strconv.Itoa(i)}, {Name: "LEVEL", ValueFrom: &paasv1.EnvVarSource{
			ConfigMapKeyRef: &paasv1.KeySelector{Name: settingsName, Key: "level", Optional: ptr.To(true)}}}}
	}
	app := builder.DemoApplication(namespace, fmt.Sprintf("app-%03d", i), builder.Image("registry.invalid/app:1"),
		builder.Replicas(replicas), builder.Ports(ports...), builder.Env(env...))
	app.Spec.Service = service
	switch i % 8 {
	case 3, 7:
		app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	case 5:
		app.Spec.Ingress = &paasv1.Ingress{Hosts: []string{app.Name + ".example.test"}}
	case 6:
		// At its minimum already: kube-controller-manager's autoscaler, which has no metrics
		// here, scales nothing.
		app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}}
		app.Spec.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 4, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
	}
	return app
}

// settingsName is the ConfigMap some apps of the mix read through env, which createApps makes.
const settingsName = "settings"

// createApps creates the DemoApplications of the mix with these indices in namespace, 16
// at a time, in that order, and the ConfigMap some read.
func createApps(t *testing.T, namespace string, indices []int) {
	t.Helper()
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: settingsName}, Data: map[string]string{"level": "info"}}
	if err := k8s.Create(context.Background(), settings); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(indices))
	sem := make(chan struct{}, 16)
	for _, i := range indices {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs <- k8s.Create(context.Background(), newApp(namespace, i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
	}
}

// span is the indices first to first+n-1.
func span(first, n int) []int {
	indices := make([]int, n)
	for i := range indices {
		indices[i] = first + i
	}
	return indices
}

// converged reports why app does not yet show its spec in place, "" when it does: status
// of its generation, Available, not Degraded, every replica ready, every per-pod Service.
// A Degraded condition's reason and message follow the why, as what a wait that times out
// saw.
func converged(app *paasv1.DemoApplication) string {
	why := notConverged(app)
	degraded := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
	if why != "" && degraded != nil && degraded.Status == metav1.ConditionTrue {
		why += fmt.Sprintf(" (Degraded: %s: %s)", degraded.Reason, degraded.Message)
	}
	return why
}

func notConverged(app *paasv1.DemoApplication) string {
	replicas := ptr.Deref(app.Spec.Replica, 1)
	if a := app.Spec.Autoscaling; a != nil {
		// With no metrics here, the autoscaler keeps its minimum, whatever replica says.
		replicas = ptr.Deref(a.MinReplicas, 1)
	}
	switch {
	case app.Status.ObservedGeneration != app.Generation:
		return "status of an older generation"
	case !meta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionAvailable):
		return "not Available"
	case meta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionDegraded):
		return "Degraded"
	case app.Status.ReadyReplicas != replicas:
		return fmt.Sprintf("%d of %d replicas ready", app.Status.ReadyReplicas, replicas)
	case app.Spec.PodServices != nil && app.Spec.PodServices.Enabled && app.Status.PodServices != replicas:
		return fmt.Sprintf("%d of %d per-pod Services", app.Status.PodServices, replicas)
	}
	return ""
}

// waitConverged waits until the n DemoApplications of namespace have converged.
func waitConverged(t *testing.T, namespace string, n int, timeout time.Duration) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		list := &paasv1.DemoApplicationList{}
		g.Expect(k8s.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
		g.Expect(list.Items).To(HaveLen(n))
		waiting := map[string]string{}
		for _, app := range list.Items {
			if why := converged(&app); why != "" {
				waiting[app.Name] = why
			}
		}
		g.Expect(waiting).To(BeEmpty(), "DemoApplications not converged")
	}, timeout, 250*time.Millisecond).Should(Succeed())
}

// snapshot is what users own of the DemoApplications of a namespace, as a change would
// show: each object's resourceVersion, each DemoApplication's and Deployment's generation,
// the ReplicaSets.
type snapshot struct {
	apps, services                        map[string]string
	appGenerations, deploymentGenerations map[string]int64
	replicaSets                           []string
}

func takeSnapshot(g Gomega, namespace string) snapshot {
	ctx := context.Background()
	s := snapshot{apps: map[string]string{}, services: map[string]string{}, appGenerations: map[string]int64{}, deploymentGenerations: map[string]int64{}}
	apps := &paasv1.DemoApplicationList{}
	g.Expect(k8s.List(ctx, apps, client.InNamespace(namespace))).To(Succeed())
	for _, a := range apps.Items {
		s.apps[a.Name], s.appGenerations[a.Name] = a.ResourceVersion, a.Generation
	}
	services := &corev1.ServiceList{}
	g.Expect(k8s.List(ctx, services, client.InNamespace(namespace))).To(Succeed())
	for _, svc := range services.Items {
		s.services[svc.Name] = svc.ResourceVersion
	}
	for name, d := range deploymentsOf(g, namespace) {
		s.deploymentGenerations[name] = d.Generation
	}
	rs := &appsv1.ReplicaSetList{}
	g.Expect(k8s.List(ctx, rs, client.InNamespace(namespace))).To(Succeed())
	for _, r := range rs.Items {
		s.replicaSets = append(s.replicaSets, r.Name)
	}
	return s
}

// TestUpgradeRestartsNothing is Cluster API's clusterctl upgrade test for this operator:
// release N-1 installed by the chart runs 200 DemoApplications; `helm upgrade` to this tree
// then rolls out none of their pods and rewrites none of their objects, and the new leader,
// having reconciled every one of them, writes nothing but its Lease.
func TestUpgradeRestartsNothing(t *testing.T) {
	const apps = 200
	g := NewWithT(t)
	ctx := context.Background()
	installRelease(t, previousImage)
	ns := appNamespace(t, "upgrade-")
	start := time.Now()
	createApps(t, ns, span(0, apps))
	waitConverged(t, ns, apps, 10*time.Minute)
	t.Logf("release N-1 (%s): %d DemoApplications converged in %s", previousRevision(), apps, time.Since(start).Round(100*time.Millisecond))
	// Settle: what is left of the convergence (a late status) is not the upgrade's doing.
	var before snapshot
	g.Consistently(func(g Gomega) {
		s := takeSnapshot(g, ns)
		if before.apps != nil {
			g.Expect(s).To(Equal(before))
		}
		before = s
	}, 10*time.Second, 2*time.Second).Should(Succeed())
	g.Expect(before.replicaSets).To(HaveLen(apps))
	oldPods := electedPods(t, previousImage, time.Minute)

	// Watch the DemoApplications through the upgrade: a condition that flips, even for a
	// moment between two snapshots, is what a user's alert would see.
	cfg, err := cluster.RESTConfig()
	g.Expect(err).NotTo(HaveOccurred())
	paas, err := versioned.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	list, err := paas.PaasV1().DemoApplications(ns).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	w, err := paas.PaasV1().DemoApplications(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	g.Expect(err).NotTo(HaveOccurred())
	var flips []string
	var modified int
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ev := range w.ResultChan() {
			app, ok := ev.Object.(*paasv1.DemoApplication)
			if !ok {
				continue
			}
			if ev.Type == watch.Modified {
				modified++
			}
			for _, c := range app.Status.Conditions {
				if (c.Type == paasv1.ConditionAvailable && c.Status != metav1.ConditionTrue) ||
					(c.Type == paasv1.ConditionDegraded && c.Status != metav1.ConditionFalse) {
					flips = append(flips, fmt.Sprintf("%s: %s=%s (%s)", app.Name, c.Type, c.Status, c.Reason))
				}
			}
		}
	}()

	chart, err := loader.Load(filepath.Join(testenv.Root(), "charts", "demo-operator"))
	g.Expect(err).NotTo(HaveOccurred())
	helm, err := helmConfig()
	g.Expect(err).NotTo(HaveOccurred())
	upgradeStart := time.Now()
	upgrade := action.NewUpgrade(helm)
	upgrade.Namespace = operatorNamespace
	_, err = upgrade.Run(releaseName, chart, chartValues(currentImage))
	g.Expect(err).NotTo(HaveOccurred(), "helm upgrade")
	newPods := electedPods(t, currentImage, 3*time.Minute)
	var leader string
	g.Eventually(func(g Gomega) {
		leader = framework.LeaseHolder(g, cs, operatorNamespace)
		g.Expect(leader).To(BeElementOf(newPods[0].Name, newPods[1].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
	// The new leader lists every DemoApplication when it starts: once it has reconciled as
	// many as there are, it has compared each one's objects with what it would build.
	var reconciles int
	g.Eventually(func(g Gomega) {
		reconciles = reconcileCount(g, ns, leader)
		g.Expect(reconciles).To(BeNumerically(">=", apps))
	}, 3*time.Minute, time.Second).Should(Succeed())
	t.Logf("helm upgrade to this tree: new pods Ready and %s leading after %s, %d reconciles after %s",
		leader, time.Since(upgradeStart).Round(100*time.Millisecond), reconciles, time.Since(upgradeStart).Round(100*time.Millisecond))
	// And whatever its queue still holds shows before its count of reconciles stops rising:
	// two scrapes five seconds apart with no reconcile between them (the first scrape compares
	// with nothing).
	last := -1
	g.Eventually(func(g Gomega) {
		n := reconcileCount(g, ns, leader)
		previous := last
		last = n
		g.Expect(n).To(Equal(previous), "reconciles still rising")
	}, 2*time.Minute, 5*time.Second).Should(Succeed())
	w.Stop()
	<-watched

	after := takeSnapshot(g, ns)
	changedDeployments, rewrittenServices, rewrittenApps := 0, 0, 0
	for name, gen := range before.deploymentGenerations {
		if after.deploymentGenerations[name] != gen {
			changedDeployments++
		}
	}
	for name, rv := range before.services {
		if after.services[name] != rv {
			rewrittenServices++
		}
	}
	for name, rv := range before.apps {
		if after.apps[name] != rv {
			rewrittenApps++
		}
	}
	newPodNames := []string{newPods[0].Name, newPods[1].Name}
	writes := auditEvents(g, func(e *auditv1.Event) bool {
		return sentBy(e, newPodNames...) && succeeded(e) && !isLeaderElection(e)
	})
	described := make([]string, 0, len(writes))
	for _, e := range writes {
		described = append(described, describe(e))
	}
	t.Logf("after the upgrade (old pods %s, %s): %d of %d Deployments with a new generation, %d ReplicaSets (was %d), "+
		"%d of %d Services rewritten, %d of %d DemoApplications rewritten, %d watch events, %d condition flips, %d writes by the new version besides leader election",
		oldPods[0].Name, oldPods[1].Name, changedDeployments, len(before.deploymentGenerations), len(after.replicaSets), len(before.replicaSets),
		rewrittenServices, len(before.services), rewrittenApps, len(before.apps), modified, len(flips), len(writes))
	g.Expect(after.replicaSets).To(Equal(before.replicaSets), "ReplicaSets: a Deployment rolled out")
	g.Expect(after.deploymentGenerations).To(Equal(before.deploymentGenerations), "Deployments' generations")
	g.Expect(after.services).To(Equal(before.services), "Services' resourceVersions")
	g.Expect(after.appGenerations).To(Equal(before.appGenerations), "DemoApplications' generations")
	g.Expect(flips).To(BeEmpty(), "conditions seen during the upgrade")
	if previousRevision() == "HEAD" {
		g.Expect(after.apps).To(Equal(before.apps), "DemoApplications' resourceVersions")
		g.Expect(described).To(BeEmpty(), "writes by the new version while nothing changed")
		return
	}
	// From an earlier release, the new one may report what that release did not (a status
	// field it adds): at most one status write per app, and nothing else.
	statusWrites := map[string]int{}
	var others []string
	for _, e := range writes {
		if ref := e.ObjectRef; ref != nil && ref.Resource == "demoapplications" && ref.Subresource == "status" {
			statusWrites[ref.Name]++
			continue
		}
		others = append(others, describe(e))
	}
	t.Logf("from %s: %d DemoApplications' status written once more", previousRevision(), len(statusWrites))
	g.Expect(others).To(BeEmpty(), "writes by the new version besides the DemoApplications' status")
	for name, n := range statusWrites {
		g.Expect(n).To(Equal(1), "status writes of %s", name)
	}
}

// reconcileCount is how many DemoApplication reconciles pod has run, from its metrics,
// read with the token of a ServiceAccount bound to the chart's metrics-reader ClusterRole.
func reconcileCount(g Gomega, namespace, pod string) int {
	ctx := context.Background()
	p := &corev1.Pod{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: pod}, p)).To(Succeed())
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "scraper"}}
	g.Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, sa))).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: namespace + "-scraper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: chartFullname + "-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: sa.Name}},
	}
	g.Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, binding))).To(Succeed())
	token, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("https://%s:8443/metrics", p.Status.PodIP), nil)
	g.Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+token.Status.Token)
	// The manager serves metrics with a self-signed certificate unless given one.
	https := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec
	resp, err := https.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
	total := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, `controller_runtime_reconcile_total{controller="demoapplication"`) {
			var n float64
			_, _ = fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &n)
			total += int(n)
		}
	}
	return total
}
