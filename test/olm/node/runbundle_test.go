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
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestRunBundle replays `operator-sdk run bundle <bundle-image> --install-mode <mode>` and
// `operator-sdk run bundle-upgrade <newer-bundle-image>` step by step (the CLI is not
// installable here): opm renders the bundle image into a file-based catalog, a registry pod
// of the opm image serves it from a ConfigMap, a CatalogSource points at that pod, an
// OperatorGroup for the install mode, a Subscription, its InstallPlan approved; the upgrade
// renders the newer bundle into the same catalog as the channel's new head, the registry pod
// is replaced, and the new InstallPlan approved.
func TestRunBundle(t *testing.T) {
	for _, mode := range []operatorsv1alpha1.InstallModeType{operatorsv1alpha1.InstallModeTypeAllNamespaces, operatorsv1alpha1.InstallModeTypeOwnNamespace} {
		t.Run(string(mode), func(t *testing.T) { runBundle(t, mode) })
	}
}

func runBundle(t *testing.T, mode operatorsv1alpha1.InstallModeType) {
	g := NewWithT(t)
	first, second := releases[0], releases[1]
	ns := newNamespace(t, "olm-run-bundle-")
	// run bundle: the catalog of the one bundle, served by a registry pod.
	cfg := renderBundle(t, first.bundle)
	cfg.Packages = []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: "demo-operator", DefaultChannel: "operator-sdk-run-bundle"}}
	cfg.Channels = []declcfg.Channel{{Schema: declcfg.SchemaChannel, Package: "demo-operator", Name: "operator-sdk-run-bundle",
		Entries: []declcfg.ChannelEntry{{Name: first.csv}}}}
	source := serveRunBundleCatalog(t, ns, cfg)
	if mode == operatorsv1alpha1.InstallModeTypeOwnNamespace {
		createOperatorGroup(t, ns, ns)
	} else {
		createOperatorGroup(t, ns)
	}
	sub := subscribe(t, ns, source, ns, "operator-sdk-run-bundle", first.csv)
	approve(t, ns, first.csv)
	csv := waitSucceeded(t, ns, first.csv)
	expectUnpacked(t, first.bundle)
	expectOperatorPods(t, csv, first.managerImage)
	watched := ns
	if mode == operatorsv1alpha1.InstallModeTypeAllNamespaces {
		watched = newNamespace(t, "olm-any-")
	}
	expectServed(t, createDemoApp(t, watched, "web"))

	// run bundle-upgrade: the newer bundle replaces the head of the channel.
	next := renderBundle(t, second.bundle)
	cfg.Bundles = append(cfg.Bundles, next.Bundles...)
	cfg.Channels[0].Entries = append(cfg.Channels[0].Entries, declcfg.ChannelEntry{Name: second.csv, Replaces: first.csv})
	updateRunBundleCatalog(t, ns, cfg)
	approve(t, ns, second.csv)
	upgraded := waitSucceeded(t, ns, second.csv)
	g.Expect(upgraded.Spec.Replaces).To(Equal(first.csv))
	expectUnpacked(t, second.bundle)
	expectOperatorPods(t, upgraded, second.managerImage)
	expectInstalled(t, sub, second.csv)
	// operator-sdk cleanup: the Subscription and CSV go; the CRD stays.
	g.Expect(k8s.Delete(context.Background(), sub)).To(Succeed())
	g.Expect(k8s.Delete(context.Background(), upgraded)).To(Succeed())
}

// renderBundle is `opm render <bundle-image>`: the bundle image pulled from the cluster's
// registry and rendered into an olm.bundle with its manifests and image.
func renderBundle(t *testing.T, image string) *declcfg.DeclarativeConfig {
	t.Helper()
	cmd := exec.Command(filepath.Join(os.Getenv("OLM_ASSETS"), "opm"), "render", image, "--use-http", "-o", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("opm render %s: %v: %s", image, err, stderr.String())
	}
	cfg, err := declcfg.LoadReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	NewWithT(t).Expect(cfg.Bundles).To(HaveLen(1))
	NewWithT(t).Expect(cfg.Bundles[0].Image).To(Equal(image))
	return cfg
}

// serveRunBundleCatalog stores cfg in a ConfigMap, serves it from a registry pod of the opm
// image, and points a CatalogSource at the pod's address, as operator-sdk run bundle does.
func serveRunBundleCatalog(t *testing.T, namespace string, cfg *declcfg.DeclarativeConfig) string {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo-operator-run-bundle-fbc"}}
	cm.Data = map[string]string{"catalog.yaml": catalogYAML(t, cfg)}
	if err := k8s.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	source := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo-operator-catalog"},
		Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc,
			Address: startRegistryPod(t, namespace, cm.Name), DisplayName: "demo-operator", Publisher: "operator-sdk"},
	}
	if err := k8s.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	expectCatalogReady(t, source)
	return source.Name
}

// updateRunBundleCatalog rewrites the catalog and replaces the registry pod, as
// operator-sdk run bundle-upgrade does, and points the CatalogSource at the new pod.
func updateRunBundleCatalog(t *testing.T, namespace string, cfg *declcfg.DeclarativeConfig) {
	t.Helper()
	ctx := context.Background()
	g := NewWithT(t)
	cm := &corev1.ConfigMap{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "demo-operator-run-bundle-fbc"}, cm)).To(Succeed())
	cm.Data["catalog.yaml"] = catalogYAML(t, cfg)
	g.Expect(k8s.Update(ctx, cm)).To(Succeed())
	old := &corev1.Pod{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "demo-operator-run-bundle"}, old)).To(Succeed())
	g.Expect(k8s.Delete(ctx, old, client.GracePeriodSeconds(0))).To(Succeed())
	g.Eventually(func() error {
		return k8s.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Pod{})
	}, olmTimeout, time.Second).ShouldNot(Succeed())
	address := startRegistryPod(t, namespace, cm.Name)
	source := &operatorsv1alpha1.CatalogSource{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "demo-operator-catalog"}, source)).To(Succeed())
	patch := client.MergeFrom(source.DeepCopy())
	source.Spec.Address = address
	g.Expect(k8s.Patch(ctx, source, patch)).To(Succeed())
	expectCatalogReady(t, source)
}

// startRegistryPod runs opm serve on the ConfigMap's catalog in a pod of the opm image and
// returns its address once Ready.
func startRegistryPod(t *testing.T, namespace, configMap string) string {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo-operator-run-bundle"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "registry-grpc", Image: olmImages.OPM,
				// No --cache-dir: opm builds its cache afresh in a temporary directory at each start.
				Command: []string{"/bin/opm", "serve", "/configs"},
				Ports:   []corev1.ContainerPort{{Name: "grpc", ContainerPort: 50051}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
					Exec: &corev1.ExecAction{Command: []string{"grpc_health_probe", "-addr=:50051"}}}},
				// The file alone: opm would read the ConfigMap volume's ..data directory as a catalog.
				VolumeMounts: []corev1.VolumeMount{{Name: "fbc", MountPath: "/configs/catalog.yaml", SubPath: "catalog.yaml"},
					{Name: "cache", MountPath: "/tmp"}}}},
			Volumes: []corev1.Volume{
				{Name: "fbc", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
	if err := k8s.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		g.Expect(podReady(pod)).To(BeTrue(), "registry pod not Ready: %+v", pod.Status.ContainerStatuses)
	}, olmTimeout, time.Second).Should(Succeed())
	return pod.Status.PodIP + ":50051"
}

func expectCatalogReady(t *testing.T, source *operatorsv1alpha1.CatalogSource) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(source), source)).To(Succeed())
		g.Expect(source.Status.GRPCConnectionState).NotTo(BeNil())
		g.Expect(source.Status.GRPCConnectionState.Address).To(Equal(source.Spec.Address))
		g.Expect(source.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	}, olmTimeout, time.Second).Should(Succeed())
}

func catalogYAML(t *testing.T, cfg *declcfg.DeclarativeConfig) string {
	t.Helper()
	var out bytes.Buffer
	if err := declcfg.WriteYAML(*cfg, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
