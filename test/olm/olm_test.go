//go:build olm

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

package olm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/test/framework"
)

// OLM works through several reconciles and resolutions per install; on two shared cores with
// the control plane next to it, each step takes seconds.
const olmTimeout = 3 * time.Minute

// bundleCSV reads the ClusterServiceVersion in bundle/.
func bundleCSV(t *testing.T, bundleDir string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(bundleDir, "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one CSV in %s/manifests, got %v (%v)", bundleDir, files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	if err := yaml.Unmarshal(data, csv); err != nil {
		t.Fatal(err)
	}
	return csv
}

// bundleAnnotations reads bundle/metadata/annotations.yaml.
func bundleAnnotations(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bundleDir, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Annotations
}

// loadPackage reads the one package of a file-based catalog.
func loadPackage(t *testing.T, catalogDir string) packageInfo {
	t.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(catalogDir))
	if err != nil {
		t.Fatal(err)
	}
	m, err := declcfg.ConvertToModel(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 {
		t.Fatalf("want one package in %s, got %d", catalogDir, len(m))
	}
	var p *model.Package
	for _, p = range m {
	}
	head, err := p.DefaultChannel.Head()
	if err != nil {
		t.Fatal(err)
	}
	return packageInfo{Name: p.Name, DefaultChannel: p.DefaultChannel.Name, Head: head.Name}
}

// withoutBundleImages copies a file-based catalog with the image of every olm.bundle blanked.
// The simulated nodes of this tier run no pods, so OLM could not unpack a bundle image; with no
// image it installs the manifests the catalog embeds. test/olm/node unpacks the real images.
func withoutBundleImages(t *testing.T, catalogDir string) string {
	t.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(catalogDir))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cfg.Bundles {
		cfg.Bundles[i].Image = ""
	}
	dir := filepath.Join(t.TempDir(), "catalog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := declcfg.WriteYAML(*cfg, f); err != nil {
		t.Fatal(err)
	}
	return dir
}

// packageInfo is what a Subscription needs to know of a package.
type packageInfo struct {
	Name, DefaultChannel string
	// Head is the newest CSV of the default channel.
	Head string
}

// serveCatalog serves a file-based catalog with opm until the test ends and points a
// CatalogSource in namespace at it, by address: OLM creates no registry pod for it. It returns
// the CatalogSource's name once OLM reports the connection READY.
func serveCatalog(t *testing.T, namespace, catalogDir string) string {
	t.Helper()
	ctx := context.Background()
	name := "opm-" + namespace
	addr, err := localolm.ServeCatalog(ctx, cluster, olmAssets, name, catalogDir)
	if err != nil {
		t.Fatal(err)
	}
	framework.LogsOnFailure(t, cluster, 30, name)
	t.Cleanup(func() { _ = cluster.Stop(name) })
	source := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo-operator-catalog"},
		Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, Address: addr,
			DisplayName: "demo-operator", Publisher: "cmft"},
	}
	if err := k8s.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), source) })
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(source), source)).To(Succeed())
		g.Expect(source.Status.GRPCConnectionState).NotTo(BeNil())
		g.Expect(source.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	}, olmTimeout, 250*time.Millisecond).Should(Succeed())
	return source.Name
}

func subscribe(t *testing.T, namespace, source, sourceNamespace, pkg, channel, startingCSV string) *operatorsv1alpha1.Subscription {
	t.Helper()
	return steps.Subscribe(t, namespace, operatorsv1alpha1.SubscriptionSpec{CatalogSource: source,
		CatalogSourceNamespace: sourceNamespace, Package: pkg, Channel: channel, StartingCSV: startingCSV})
}

// serviceAccountOf is the ServiceAccount the CSV's Deployment runs as.
func serviceAccountOf(csv *operatorsv1alpha1.ClusterServiceVersion) string {
	return csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.ServiceAccountName
}

// targetNamespaces is what OLM annotates the operator's pods with, and what the Downward API
// passes to the manager as WATCH_NAMESPACE: the OperatorGroup's namespaces, "" for all.
func targetNamespaces(deploy *appsv1.Deployment) string {
	return deploy.Spec.Template.Annotations[operatorsv1.OperatorGroupTargetsAnnotationKey]
}

// uninstall deletes the Subscription and the CSV, as `operator-sdk cleanup` does without
// deleting CRDs, and waits until OLM's Deployment and ServiceAccount are gone.
func uninstall(t *testing.T, sub *operatorsv1alpha1.Subscription, csv *operatorsv1alpha1.ClusterServiceVersion) {
	t.Helper()
	ctx := context.Background()
	deploy := steps.OperatorDeployment(NewWithT(t), csv)
	if err := k8s.Delete(ctx, sub); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	// The garbage collector deletes the Subscription's InstallPlans; the CSV goes after them.
	NewWithT(t).Eventually(func(g Gomega) {
		plans := &operatorsv1alpha1.InstallPlanList{}
		g.Expect(k8s.List(ctx, plans, client.InNamespace(csv.Namespace))).To(Succeed())
		g.Expect(plans.Items).To(BeEmpty())
	}, olmTimeout, 250*time.Millisecond).Should(Succeed())
	if err := k8s.Delete(ctx, csv); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	// OLM v0.38.0 races here: the catalog operator may still be executing an InstallPlan from a
	// stale copy that predates its completion, and create the CSV again a moment after it was
	// deleted. A user deletes it again; so does the test, and says so.
	NewWithT(t).Eventually(func(g Gomega) {
		again := &operatorsv1alpha1.ClusterServiceVersion{}
		err := k8s.Get(ctx, client.ObjectKeyFromObject(csv), again)
		if err == nil && again.UID != csv.UID && again.DeletionTimestamp == nil {
			t.Logf("CSV %s created again by a late InstallPlan execution; deleting it again", csv.Name)
			g.Expect(client.IgnoreNotFound(k8s.Delete(ctx, again))).To(Succeed())
		}
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "CSV %s still there: %v", csv.Name, err)
	}, olmTimeout, 250*time.Millisecond).Should(Succeed())
	NewWithT(t).Eventually(func(g Gomega) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(deploy), deploy)
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "Deployment %s still there: %v", deploy.Name, err)
		err = k8s.Get(ctx, client.ObjectKey{Namespace: csv.Namespace, Name: serviceAccountOf(csv)}, &corev1.ServiceAccount{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "ServiceAccount still there: %v", err)
	}, olmTimeout, 250*time.Millisecond).Should(Succeed())
}

// ownedByCSV lists the objects OLM labels as the CSV's.
func ownedByCSV(csv *operatorsv1alpha1.ClusterServiceVersion) client.MatchingLabels {
	return client.MatchingLabels{"olm.owner": csv.Name, "olm.owner.namespace": csv.Namespace,
		"olm.owner.kind": operatorsv1alpha1.ClusterServiceVersionKind}
}
