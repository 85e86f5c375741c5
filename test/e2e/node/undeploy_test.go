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
	"os/exec"
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
	pods := expectManagerPods(t, ns, chartFullname, 2, 3*time.Minute)
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
	pods := expectManagerPods(t, deployNS, deployment, 1, 3*time.Minute)
	g.Eventually(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, deployNS)).To(Equal(pods[0].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())

	makeTarget("undeploy")
	g.Eventually(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Name: deployNS}, &corev1.Namespace{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace %s still there: %v", deployNS, err)
	}, 3*time.Minute, time.Second).Should(Succeed())
}

// TestInstaller: dist/install.yaml, which make build-installer writes, installs the operator
// with kubectl alone (apply --server-side), the operator serves a DemoApplication, and kubectl
// delete -f removes everything it installed. It runs last: it deletes the CRD.
func TestInstaller(t *testing.T) {
	g := NewWithT(t)
	uninstallRelease(t, installOperator(t))
	out, err := runMake(context.Background(), "build-installer", "IMG="+managerImage)
	g.Expect(err).NotTo(HaveOccurred(), "make build-installer:\n%s", out)
	installer := filepath.Join(testenv.Root(), "dist", "install.yaml")
	kubectl := func(args ...string) {
		cmd := exec.Command(filepath.Join(cluster.BinDir, "kubectl"), append(args, "--kubeconfig", cluster.Kubeconfig())...)
		out, err := cmd.CombinedOutput()
		g.Expect(err).NotTo(HaveOccurred(), "kubectl %s:\n%s", strings.Join(args, " "), out)
	}

	start := time.Now()
	kubectl("apply", "--server-side", "-f", installer)
	const deployNS, deployment = "demo-operator-system", "demo-operator-controller-manager"
	pods := expectManagerPods(t, deployNS, deployment, 1, 3*time.Minute)
	t.Logf("kubectl apply --server-side -f dist/install.yaml to the manager Ready: %s", time.Since(start).Round(10*time.Millisecond))
	g.Eventually(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, deployNS)).To(Equal(pods[0].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
	ns := framework.NewNamespace(t, k8s, metav1.ObjectMeta{GenerateName: "e2e-installer-"})
	app := builder.DemoApplication(ns, "installed", builder.Image(appImage), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)))
	g.Expect(k8s.Create(context.Background(), app)).To(Succeed())
	expectServing(t, app, 1)

	kubectl("delete", "-f", installer, "--wait", "--timeout", "3m")
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
