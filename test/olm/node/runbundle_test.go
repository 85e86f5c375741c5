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
	"crypto/x509"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/olm"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRunBundle runs `operator-sdk run bundle <bundle-image> --install-mode <mode>`, `run
// bundle-upgrade <newer-bundle-image>` and `cleanup demo-operator` as users without the CLI do:
// OwnNamespace through make run-bundle, run-bundle-upgrade and cleanup-bundle, AllNamespaces
// through internal/devtools/olm, which they run. The bundle image is rendered into a file-based
// catalog served by a registry pod of the opm image, a CatalogSource points at that pod, an
// OperatorGroup for the install mode, a Subscription, its InstallPlan approved; the upgrade makes
// the newer bundle the channel's head and replaces the registry pod; cleanup removes all that
// and the operator, and keeps the CRD and the DemoApplications.
//
// Side by side, each mode runs the real operator-sdk too (sdkRunBundle).
func TestRunBundle(t *testing.T) {
	for _, mode := range []operatorsv1alpha1.InstallModeType{operatorsv1alpha1.InstallModeTypeAllNamespaces, operatorsv1alpha1.InstallModeTypeOwnNamespace} {
		t.Run(string(mode)+"/olmrun", func(t *testing.T) { runBundle(t, mode) })
		t.Run(string(mode)+"/operator-sdk", func(t *testing.T) { sdkRunBundle(t, mode) })
	}
}

// expectRunBundleInstalled checks what run bundle leaves in namespace: the CSV csvName
// Succeeded, and one OperatorGroup, targeting what mode needs.
func expectRunBundleInstalled(t *testing.T, namespace, csvName string,
	mode operatorsv1alpha1.InstallModeType) (*operatorsv1alpha1.ClusterServiceVersion, *operatorsv1.OperatorGroup) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: csvName}, csv)).To(Succeed())
	g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
	ogs := &operatorsv1.OperatorGroupList{}
	g.Expect(k8s.List(ctx, ogs, client.InNamespace(namespace))).To(Succeed())
	g.Expect(ogs.Items).To(HaveLen(1))
	if mode == operatorsv1alpha1.InstallModeTypeOwnNamespace {
		g.Expect(ogs.Items[0].Spec.TargetNamespaces).To(ConsistOf(namespace))
	} else {
		g.Expect(ogs.Items[0].Spec.TargetNamespaces).To(BeEmpty())
	}
	return csv, &ogs.Items[0]
}

func runBundle(t *testing.T, mode operatorsv1alpha1.InstallModeType) {
	g := NewWithT(t)
	ctx := context.Background()
	// The images by the registry's TLS endpoint, as a user's registry serves them; the
	// cluster's CA is trusted through SSL_CERT_DIR by make, through RootCAs in process.
	first, second := releases[0], releases[1]
	firstBundle, secondBundle := cluster.SecureImage(first.bundle), cluster.SecureImage(second.bundle)
	ns := testenv.NewNamespace(t, k8s, "olm-run-bundle-", testenv.ControllersRun)
	roots, err := x509.SystemCertPool()
	g.Expect(err).NotTo(HaveOccurred())
	ca, err := os.ReadFile(cluster.CAFile())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(roots.AppendCertsFromPEM(ca)).To(BeTrue())
	runner := &olm.Runner{Client: k8s, Options: olm.Options{Namespace: ns, IndexImage: cluster.SecureImage(olmImages.OPM), Timeout: olmTimeout,
		Registry: olm.RegistryOptions{RootCAs: roots}, Logf: t.Logf}}
	viaMake := mode == operatorsv1alpha1.InstallModeTypeOwnNamespace

	start := time.Now()
	if viaMake {
		runMake(t, "run-bundle", "BUNDLE_IMG="+firstBundle, "NAMESPACE="+ns, "INSTALL_MODE="+string(mode),
			"INDEX_IMG="+cluster.SecureImage(olmImages.OPM))
	} else {
		_, err := runner.RunBundle(ctx, firstBundle, olm.InstallMode{Type: mode})
		g.Expect(err).NotTo(HaveOccurred())
	}
	t.Logf("run bundle %s (%s) → CSV Succeeded in %s", firstBundle, mode, time.Since(start).Round(100*time.Millisecond))
	csv, og := expectRunBundleInstalled(t, ns, first.csv, mode)
	firstPod := expectRunBundleCatalog(t, ns, firstBundle)
	expectUnpacked(t, firstBundle)
	expectOperatorPods(t, csv, first.managerImage)
	watched := ns
	if mode == operatorsv1alpha1.InstallModeTypeAllNamespaces {
		watched = testenv.NewNamespace(t, k8s, "olm-any-", testenv.ControllersRun)
	}
	app := createDemoApp(t, watched, "web")
	steps.ExpectServed(t, app)

	start = time.Now()
	if viaMake {
		runMake(t, "run-bundle-upgrade", "BUNDLE_IMG="+secondBundle, "NAMESPACE="+ns)
	} else {
		_, err := runner.UpgradeBundle(ctx, secondBundle)
		g.Expect(err).NotTo(HaveOccurred())
	}
	t.Logf("run bundle-upgrade %s → CSV Succeeded in %s", secondBundle, time.Since(start).Round(100*time.Millisecond))
	upgraded := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: second.csv}, upgraded)).To(Succeed())
	g.Expect(upgraded.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
	g.Expect(upgraded.Spec.Replaces).To(Equal(first.csv))
	g.Expect(expectRunBundleCatalog(t, ns, firstBundle, secondBundle)).NotTo(Equal(firstPod))
	g.Expect(apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: firstPod}, &corev1.Pod{}))).To(BeTrue(),
		"the first registry pod %s is still there", firstPod)
	expectUnpacked(t, secondBundle)
	expectOperatorPods(t, upgraded, second.managerImage)
	sub := &operatorsv1alpha1.Subscription{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "demo-operator"}, sub)).To(Succeed())
	steps.ExpectInstalled(t, sub, second.csv)
	steps.ExpectServed(t, app)

	// cleanup: the operator and all run bundle made go; the CRD and DemoApplications stay.
	deploy := steps.OperatorDeployment(g, upgraded)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
	workload := &appsv1.Deployment{}
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), workload)).To(Succeed())
	if viaMake {
		runMake(t, "cleanup-bundle", "PACKAGE=demo-operator", "NAMESPACE="+ns)
	} else {
		g.Expect(runner.Cleanup(ctx, "demo-operator")).To(Succeed())
	}
	for _, obj := range []client.Object{sub, upgraded, csv, &operatorsv1alpha1.CatalogSource{}, &corev1.ConfigMap{}, og} {
		if obj.GetName() == "" {
			obj.SetNamespace(ns)
			obj.SetName("demo-operator-catalog")
		}
		err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s after cleanup: %v", obj, obj.GetName(), err)
	}
	pods := &corev1.PodList{}
	g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{olm.LabelPackage: "demo-operator"})).To(Succeed())
	g.Expect(pods.Items).To(BeEmpty(), "registry pods after cleanup")
	expectUninstalled(t, deploy, app, workload)
}

// expectRunBundleCatalog checks the CatalogSource of run bundle: it records the bundle images
// injected so far and the registry pod it points at, a pod of the opm image on the real node
// whose address it has; it returns the pod's name.
func expectRunBundleCatalog(t *testing.T, namespace string, bundles ...string) string {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	source := &operatorsv1alpha1.CatalogSource{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "demo-operator-catalog"}, source)).To(Succeed())
	var injected []struct{ ImageTag string }
	g.Expect(json.Unmarshal([]byte(source.Annotations[olm.AnnotationInjectedBundles]), &injected)).To(Succeed())
	images := make([]string, 0, len(injected))
	for _, b := range injected {
		images = append(images, b.ImageTag)
	}
	g.Expect(images).To(Equal(bundles))
	g.Expect(source.Annotations).To(HaveKeyWithValue(olm.AnnotationIndexImage, cluster.SecureImage(olmImages.OPM)))
	pod := &corev1.Pod{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: source.Annotations[olm.AnnotationRegistryPod]}, pod)).To(Succeed())
	g.Expect(pod.Spec.Containers[0].Image).To(Equal(cluster.SecureImage(olmImages.OPM)))
	g.Expect(framework.PodReady(pod)).To(BeTrue())
	g.Expect(source.Spec.Address).To(Equal(pod.Status.PodIP + ":50051"))
	g.Expect(source.Status.GRPCConnectionState).NotTo(BeNil())
	g.Expect(source.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	return pod.Name
}

// runMake runs a make target of the repository, as a user would, on the cluster's kubeconfig.
func runMake(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-C", testenv.Root()}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig(), "SSL_CERT_DIR=/etc/ssl/certs:"+cluster.RegistryCertDir())
	out, err := cmd.CombinedOutput()
	t.Logf("make %s:\n%s", args[0], out)
	if err != nil {
		t.Fatalf("make %s: %v", args[0], err)
	}
}
