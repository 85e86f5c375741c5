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
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/docblock"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestHelmUpgradeAndUninstall: helm upgrade to the chart's next version, pulled from the OCI
// registry, rolls the manager over and it leads again; helm uninstall removes the release and
// keeps the CRD (crds.keep), so that DemoApplications survive it. The tests below replace the
// release.
func TestHelmUpgradeAndUninstall(t *testing.T) {
	g := NewWithT(t)
	ns := installOperator(t)
	start := time.Now()
	_, err := helm("upgrade", releaseName, chartRef, "--version", nextChartVersion, "--ca-file", cluster.RegistryCAFile(),
		"--namespace", ns, "--reuse-values", "--wait", "--timeout", "3m")
	g.Expect(err).NotTo(HaveOccurred())
	t.Logf("helm upgrade to %s from the registry, manager rolled out: %s", nextChartVersion, time.Since(start).Round(10*time.Millisecond))
	out, err := helm("get", "metadata", releaseName, "--namespace", ns, "--output", "json")
	g.Expect(err).NotTo(HaveOccurred())
	var metadata struct {
		Version  string
		Revision int
	}
	g.Expect(json.Unmarshal([]byte(out), &metadata)).To(Succeed())
	g.Expect(metadata.Revision).To(Equal(2), "release revision")
	g.Expect(metadata.Version).To(Equal(nextChartVersion), "chart version")
	pods := framework.ExpectManagerPods(t, k8s, ns, chartFullname, managerImage, 2, 3*time.Minute)
	g.Eventually(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, ns)).To(BeElementOf(pods[0].Name, pods[1].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())

	uninstallRelease(t, ns)
	g.Expect(apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: chartFullname}, &appsv1.Deployment{}))).
		To(BeTrue(), "the manager's Deployment after helm uninstall")
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Name: demoApplicationsCRD}, demoApplicationsCRDMeta())).
		To(Succeed(), "the CRD after helm uninstall")
}

// demoApplicationsCRD is the name of the CRD every install path installs.
const demoApplicationsCRD = "demoapplications.paas.cmft.com"

// demoApplicationsCRDMeta is the CRD's metadata, which the tests' client reads without the
// apiextensions types in its scheme.
func demoApplicationsCRDMeta() *metav1.PartialObjectMetadata {
	crd := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: demoApplicationsCRD}}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return crd
}

// uninstallRelease removes the chart's release, if installed, and waits for its objects to go.
func uninstallRelease(t *testing.T, namespace string) {
	t.Helper()
	_, err := helm("uninstall", releaseName, "--namespace", namespace, "--ignore-not-found", "--wait", "--timeout", "3m")
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
}

// TestKustomizeDeploy: make deploy with the built image runs the operator as the chart
// does, and make undeploy removes it. It replaces the Helm release, whose CRD config/default
// shares.
func TestKustomizeDeploy(t *testing.T) {
	g := NewWithT(t)
	uninstallRelease(t, installOperator(t))

	root := testenv.Root()
	// make deploy sets the image in config/manager, as a user's would; the test puts it back.
	kustomization := filepath.Join(root, "config", "manager", "kustomization.yaml")
	original, err := os.ReadFile(kustomization)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = os.WriteFile(kustomization, original, 0o644) })
	makeTarget := func(target string, vars ...string) {
		out, err := runMake(context.Background(), target, vars...)
		g.Expect(err).NotTo(HaveOccurred(), "make %s:\n%s", target, out)
	}
	makeTarget("deploy", "IMG="+managerImage)
	const deployNS, deployment = "demo-operator-system", "demo-operator-controller-manager"
	pods := framework.ExpectManagerPods(t, k8s, deployNS, deployment, managerImage, 1, 3*time.Minute)
	g.Eventually(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, deployNS)).To(Equal(pods[0].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())

	makeTarget("undeploy")
	g.Eventually(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Name: deployNS}, &corev1.Namespace{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace %s still there: %v", deployNS, err)
	}, 3*time.Minute, time.Second).Should(Succeed())
}

// TestInstaller runs docs/install/kustomize.md's one-file installer block as written: make
// build-installer with the release's image, kubectl apply --server-side, the manager Available;
// before the block's kubectl delete, the manager leads and serves a DemoApplication; kubectl
// delete -f then removes everything it installed, the CRD included. It replaces the Helm
// release.
func TestInstaller(t *testing.T) {
	g := NewWithT(t)
	uninstallRelease(t, installOperator(t))
	const deployNS, deployment = "demo-operator-system", "demo-operator-controller-manager"
	shell := docShell(t)
	for _, command := range docCommands(t, "install/kustomize.md") {
		if strings.HasPrefix(command, "kubectl delete ") {
			pods := framework.ExpectManagerPods(t, k8s, deployNS, deployment, releaseImage, 1, time.Minute)
			g.Eventually(func(g Gomega) {
				g.Expect(framework.LeaseHolder(g, cs, deployNS)).To(Equal(pods[0].Name))
			}, time.Minute, 250*time.Millisecond).Should(Succeed())
			ns := testenv.NewNamespace(t, k8s, "e2e-installer-", testenv.ControllersRun)
			app := builder.DemoApplication(ns, "installed", builder.Image(appImage), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)))
			g.Expect(k8s.Create(context.Background(), app)).To(Succeed())
			expectServing(t, app, 1)
		}
		shell.Step(context.Background(), t, "docs/install/kustomize.md", command)
	}
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: deployNS}},
		demoApplicationsCRDMeta(),
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "demo-operator-manager-role"}},
	} {
		g.Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
		}, 3*time.Minute, time.Second).Should(BeTrue(), "%T %s after kubectl delete -f", obj, obj.GetName())
	}
}

// TestHelmFromCheckout runs docs/install/helm.md's block as written: the chart from the
// checkout with its default values (the release's image), its two manager pods Ready, helm
// test, and helm uninstall, which keeps the CRD. It runs after TestInstaller deleted the CRD
// the other installs shared, so that the release installs it anew.
func TestHelmFromCheckout(t *testing.T) {
	g := NewWithT(t)
	const ns, deployment = "demo-operator-system", "demo-operator"
	shell := docShell(t)
	for _, command := range docCommands(t, "install/helm.md") {
		shell.Step(context.Background(), t, "docs/install/helm.md", command)
		switch {
		case strings.HasPrefix(command, "helm install "):
			framework.ExpectManagerPods(t, k8s, ns, deployment, releaseImage, 2, time.Minute)
		case strings.HasPrefix(command, "helm uninstall "):
			g.Expect(apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: deployment}, &appsv1.Deployment{}))).
				To(BeTrue(), "the manager's Deployment after helm uninstall")
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Name: demoApplicationsCRD}, demoApplicationsCRDMeta())).
				To(Succeed(), "the CRD after helm uninstall")
		}
	}
}

// docMarker precedes the blocks of docs/ that this package runs.
const docMarker = "<!-- commands: test/e2e/node"

// docCommands reads the commands of the block of docs/page that this package runs.
func docCommands(t *testing.T, page string) []string {
	t.Helper()
	commands, err := docblock.Commands(filepath.Join(testenv.Root(), "docs", page), docMarker)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return commands
}

// docShell is a reader's shell on the cluster: KUBECONFIG set, kubectl and helm on the PATH,
// and a helm configuration of the test's own.
func docShell(t *testing.T) *docblock.Shell {
	t.Helper()
	helmBin, err := testenv.Tool("helm")
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	home := t.TempDir()
	path := strings.Join([]string{cluster.BinDir, filepath.Dir(helmBin), os.Getenv("PATH")}, string(os.PathListSeparator))
	return &docblock.Shell{Dir: testenv.Root(), Env: []string{"KUBECONFIG=" + cluster.Kubeconfig(), "PATH=" + path,
		"HELM_CACHE_HOME=" + home + "/cache", "HELM_CONFIG_HOME=" + home + "/config", "HELM_DATA_HOME=" + home + "/data"}}
}
