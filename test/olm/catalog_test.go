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
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/devtools/olm"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const catalogDir = "../../catalog"

// TestCatalogSubscription is the OperatorHub path: opm serves catalog/, a global
// CatalogSource in OLM's namespace points at it, and a Subscription that names no channel gets
// the package's default one; its InstallPlan, approved, installs the channel's head.
func TestCatalogSubscription(t *testing.T) {
	framework.LogsOnFailure(t, cluster, 30, localolm.OLMOperator, localolm.CatalogOperator)
	pkg := loadPackage(t, catalogDir)
	source := serveCatalog(t, localolm.Namespace, withoutBundleImages(t, catalogDir))
	ns := testenv.NewNamespace(t, k8s, "olm-subscription-", testenv.ControllersRun)
	steps.CreateOperatorGroup(t, ns, ns)
	sub := subscribe(t, ns, source, localolm.Namespace, pkg.Name, "", "")
	steps.Approve(t, ns, pkg.Head)
	csv := steps.WaitSucceeded(t, ns, pkg.Head)

	g := NewWithT(t)
	steps.ExpectInstalled(t, sub, pkg.Head)
	deploy := steps.OperatorDeployment(NewWithT(t), csv)
	g.Expect(targetNamespaces(deploy)).To(Equal(ns))
	uninstall(t, sub, csv)
}

// TestUpgradeAndUninstall subscribes to the head of the default channel in catalog/, with a
// DemoApplication served by the installed operator, then publishes a newer release (generated
// from config/manifests as `make bundle catalog` would) on the same channel: OLM upgrades
// along the channel's edge, and the CRD and the DemoApplication live through it. Deleting the
// Subscription and the CSV then removes the operator and leaves the DemoApplication and its
// workload alone.
func TestUpgradeAndUninstall(t *testing.T) {
	framework.LogsOnFailure(t, cluster, 30, localolm.OLMOperator, localolm.CatalogOperator)
	ctx := context.Background()
	current := loadPackage(t, catalogDir)
	upgradeCatalog, next := withNextRelease(t, current)
	source := serveCatalog(t, localolm.Namespace, upgradeCatalog)
	ns := testenv.NewNamespace(t, k8s, "olm-upgrade-", testenv.ControllersRun)
	steps.CreateOperatorGroup(t, ns)

	sub := subscribe(t, ns, source, localolm.Namespace, current.Name, current.DefaultChannel, current.Head)
	steps.Approve(t, ns, current.Head)
	old := steps.WaitSucceeded(t, ns, current.Head)
	sa := serviceAccountOf(old)
	startManagerAs(t, "manager-"+old.Name, ns, sa, []string{"WATCH_NAMESPACE=" + targetNamespaces(steps.OperatorDeployment(NewWithT(t), old))})
	app := createDemoApp(t, ns, "survivor")
	steps.ExpectServed(t, app)
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(app), app); err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: "demoapplications." + paasv1.GroupVersion.Group}, crd); err != nil {
		t.Fatal(err)
	}

	t.Run("upgrade", func(t *testing.T) {
		g := NewWithT(t)
		plan := steps.Approve(t, ns, next)
		g.Expect(plan.Spec.ClusterServiceVersionNames).To(ConsistOf(next))
		csv := steps.WaitSucceeded(t, ns, next)
		g.Expect(csv.Spec.Replaces).To(Equal(current.Head))
		steps.ExpectReplaced(t, sub, old, next)
		after := steps.ExpectKept(t, crd, app)

		// The new release's operator takes over the DemoApplication: scaled, it converges.
		if err := cluster.Stop("manager-" + old.Name); err != nil {
			t.Fatal(err)
		}
		startManagerAs(t, "manager-"+next, ns, serviceAccountOf(csv), []string{"WATCH_NAMESPACE=" + targetNamespaces(steps.OperatorDeployment(NewWithT(t), csv))})
		patch := client.MergeFrom(after.DeepCopy())
		after.Spec.Replica = ptr.To[int32](3)
		g.Expect(k8s.Patch(ctx, after, patch)).To(Succeed())
		steps.ExpectServed(t, after)
	})

	t.Run("uninstall", func(t *testing.T) {
		g := NewWithT(t)
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: next}, csv)).To(Succeed())
		if err := cluster.Stop("manager-" + next); err != nil {
			t.Fatal(err)
		}
		uninstall(t, sub, csv)
		// OLM never deletes a CRD, so nothing the operator served is lost; the garbage collector
		// has nothing to collect, the workloads being owned by the DemoApplication.
		g.Consistently(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(crd), &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
			kept := &paasv1.DemoApplication{}
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), kept)).To(Succeed())
			g.Expect(kept.UID).To(Equal(app.UID))
			for _, child := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}} {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), child)).To(Succeed())
			}
		}, 5*time.Second, 250*time.Millisecond).Should(Succeed())
	})
}

// withNextRelease copies catalog/ and adds a release one patch version above the default
// channel's head, generated from config/manifests by `make bundle catalog` (operator-sdk) on a copy of the repository.
// It returns the new catalog and the new release's CSV name.
func withNextRelease(t *testing.T, current packageInfo) (string, string) {
	t.Helper()
	csv := bundleCSV(t, bundleDir)
	if csv.Name != current.Head {
		t.Fatalf("bundle/ is %s, but catalog/'s %s channel leads to %s: run make bundle catalog", csv.Name, current.DefaultChannel, current.Head)
	}
	version := csv.Spec.Version.Version
	version.Patch++
	version.Pre, version.Build = nil, nil
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "catalog")
	if err := os.CopyFS(dir, os.DirFS(catalogDir)); err != nil {
		t.Fatal(err)
	}
	annotations := bundleAnnotations(t)
	bundleContext := filepath.Join(tmp, "repository")
	if err := sdkbundle.Generate(context.Background(), bundleContext, sdkbundle.Options{Version: version.String(),
		Image: "ghcr.io/cmft/demo-operator:" + version.String(), Package: current.Name,
		Channels: annotations["operators.operatorframework.io.bundle.channels.v1"], DefaultChannel: current.DefaultChannel}); err != nil {
		t.Fatal(err)
	}
	if err := olm.GenerateCatalog(olm.CatalogOptions{BundleDir: filepath.Join(bundleContext, "bundle"), CatalogDir: filepath.Join(dir, current.Name),
		BundleImage: "ghcr.io/cmft/demo-operator-bundle:v" + version.String()}); err != nil {
		t.Fatal(err)
	}
	return withoutBundleImages(t, dir), current.Name + ".v" + version.String()
}
