//go:build olmnode

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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// Pulls, unpack Jobs and pod starts on two shared cores take tens of seconds each.
const olmTimeout = 5 * time.Minute

// TestOperatorHubPath is what OperatorHub does: a CatalogSource of the catalog image in OLM's
// namespace, whose registry pod OLM runs; packageserver lists the package; a Subscription to
// stable; its InstallPlan; a Job that pulls and unpacks the bundle image; the CSV Succeeded;
// the operator's pods Running from the manager image, serving a DemoApplication.
func TestOperatorHubPath(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	first := releases[0]
	source := createCatalogSource(t, localolm.Namespace, "demo-operator-catalog", catalogImage)

	// kubectl get packagemanifests demo-operator
	pm := &unstructured.Unstructured{}
	pm.SetGroupVersionKind(schema.GroupVersionKind{Group: "packages.operators.coreos.com", Version: "v1", Kind: "PackageManifest"})
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: localolm.Namespace, Name: "demo-operator"}, pm)).To(Succeed())
		channels, _, _ := unstructured.NestedSlice(pm.Object, "status", "channels")
		names := make([]string, 0, len(channels))
		for _, c := range channels {
			names = append(names, c.(map[string]any)["name"].(string))
		}
		g.Expect(names).To(ConsistOf("stable", "candidate"))
		catalog, _, _ := unstructured.NestedString(pm.Object, "status", "catalogSource")
		g.Expect(catalog).To(Equal(source))
	}, olmTimeout, time.Second).Should(Succeed())
	defaultChannel, _, _ := unstructured.NestedString(pm.Object, "status", "defaultChannel")
	g.Expect(defaultChannel).To(Equal("stable"))

	ns := testenv.NewNamespace(t, k8s, "olm-hub-", testenv.ControllersRun)
	steps.CreateOperatorGroup(t, ns, ns)
	start := time.Now()
	sub := subscribe(t, ns, source, localolm.Namespace, "stable", first.csv)
	steps.Approve(t, ns, first.csv)
	csv := steps.WaitSucceeded(t, ns, first.csv)
	succeeded := time.Since(start)
	expectUnpacked(t, first.bundle)
	pods := expectOperatorPods(t, csv, first.managerImage)
	t.Logf("Subscription → CSV Succeeded %s, → operator pods Ready %s", succeeded.Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond))
	g.Expect(pods).NotTo(BeEmpty())
	steps.ExpectInstalled(t, sub, first.csv)
	steps.ExpectServed(t, createDemoApp(t, ns, "web"))
}

// createCatalogSource makes a grpc CatalogSource of image and waits until its registry pod,
// which OLM creates from the image, is Ready and OLM's connection to it READY.
func createCatalogSource(t *testing.T, namespace, name, image string) string {
	t.Helper()
	ctx := context.Background()
	source := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: image,
			DisplayName: "demo-operator", Publisher: "cmft"},
	}
	if err := k8s.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), source) })
	NewWithT(t).Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8s.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"olm.catalogSource": name})).To(Succeed())
		g.Expect(pods.Items).NotTo(BeEmpty(), "no registry pod yet")
		p := pods.Items[0]
		g.Expect(p.Spec.NodeName).To(Equal(localcluster.NodeName))
		g.Expect(p.Spec.Containers[0].Image).To(Equal(image))
		g.Expect(framework.PodReady(&p)).To(BeTrue(), "registry pod %s not Ready: %+v", p.Name, p.Status.ContainerStatuses)
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(source), source)).To(Succeed())
		g.Expect(source.Status.GRPCConnectionState).NotTo(BeNil())
		g.Expect(source.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	}, olmTimeout, time.Second).Should(Succeed())
	return name
}

// expectUnpacked checks that a Job of OLM's pulled bundle and copied it out: its pull init
// container ran the bundle image on the real node and the Job completed.
func expectUnpacked(t *testing.T, bundle string) {
	t.Helper()
	ctx := context.Background()
	NewWithT(t).Eventually(func(g Gomega) {
		jobs := &batchv1.JobList{}
		g.Expect(k8s.List(ctx, jobs, client.HasLabels{"operatorframework.io/bundle-unpack-ref"})).To(Succeed())
		i := slices.IndexFunc(jobs.Items, func(j batchv1.Job) bool {
			return slices.ContainsFunc(j.Spec.Template.Spec.InitContainers, func(c corev1.Container) bool { return c.Image == bundle })
		})
		g.Expect(i).To(BeNumerically(">=", 0), "no unpack Job for %s", bundle)
		job := jobs.Items[i]
		g.Expect(job.Status.Succeeded).To(BeNumerically(">=", 1))
		t.Logf("unpack Job %s/%s: util %s, pull %s, extract %s", job.Namespace, job.Name,
			job.Spec.Template.Spec.InitContainers[0].Image, bundle, job.Spec.Template.Spec.Containers[0].Image)
	}, olmTimeout, time.Second).Should(Succeed())
}

// expectOperatorPods waits until the CSV's Deployment has its pods Running and Ready on the
// real node from managerImage, and returns them.
func expectOperatorPods(t *testing.T, csv *operatorsv1alpha1.ClusterServiceVersion, managerImage string) []corev1.Pod {
	t.Helper()
	var ready []corev1.Pod
	NewWithT(t).Eventually(func(g Gomega) {
		d := steps.OperatorDeployment(g, csv)
		pods := &corev1.PodList{}
		g.Expect(k8s.List(context.Background(), pods, client.InNamespace(csv.Namespace), client.MatchingLabels(d.Spec.Selector.MatchLabels))).To(Succeed())
		ready = nil
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			g.Expect(p.Spec.NodeName).To(Equal(localcluster.NodeName))
			g.Expect(p.Status.ContainerStatuses).NotTo(BeEmpty())
			g.Expect(p.Status.ContainerStatuses[0].Image).To(Equal(managerImage))
			g.Expect(framework.PodReady(&p)).To(BeTrue(), "pod %s not Ready", p.Name)
			ready = append(ready, p)
		}
		g.Expect(ready).To(HaveLen(int(ptr.Deref(d.Spec.Replicas, 1))))
	}, olmTimeout, time.Second).Should(Succeed())
	return ready
}

// subscribe subscribes namespace to demo-operator's channel from source, at startingCSV.
func subscribe(t *testing.T, namespace, source, sourceNamespace, channel, startingCSV string) *operatorsv1alpha1.Subscription {
	t.Helper()
	return steps.Subscribe(t, namespace, operatorsv1alpha1.SubscriptionSpec{CatalogSource: source,
		CatalogSourceNamespace: sourceNamespace, Package: "demo-operator", Channel: channel, StartingCSV: startingCSV})
}

// createDemoApp creates a DemoApplication of two replicas of the pause image, which the node
// pulls from the cluster's registry, behind a Service on port 80.
func createDemoApp(t *testing.T, namespace, name string) *paasv1.DemoApplication {
	return steps.CreateDemoApp(t, namespace, name, builder.Image(cluster.PauseImage()), builder.Ports(builder.Port("", 80, 0)))
}
