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

// Package node installs the operator through Operator Lifecycle Manager the way users meet it:
// OLM itself deployed as pods on the local cluster's real node from its upstream chart, the
// manager, bundle and catalog images built from the shipped Dockerfiles and pushed to the
// cluster's registry, a CatalogSource of the catalog image served by a registry pod, bundles
// unpacked by OLM's Jobs, packagemanifests served by packageserver.
package node

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/pkg/registry"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/devtools/olm"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

var (
	cluster *localcluster.Cluster
	k8s     client.Client
	cs      kubernetes.Interface
	// steps are the install steps both OLM tiers take, on k8s.
	steps framework.OLMSteps
	// releases are the operator's versions the tests publish, oldest first.
	releases []release
	// catalogImage serves both releases on the stable and candidate channels.
	catalogImage string
	olmImages    localolm.Images
	// localImages maps each pushed image to its name in the builder's storage.
	localImages map[string]string
	// sdkImages are those operator-sdk runs: its index, decompression and scorecard images.
	sdkImages localolm.SDKImages
)

// release is one version of the operator as images in the cluster's registry.
type release struct {
	version, csv         string
	managerImage, bundle string
	// bundleDir holds the bundle, generated for managerImage.
	bundleDir string
}

func TestMain(m *testing.M) {
	assets := framework.Assets("make test-olm-node", "NODE_ASSETS", "OLM_ASSETS")
	testenv.RequireInMain("OLM real-node tests", localcluster.NodePrerequisites(assets[0]))
	scheme, err := framework.OLMScheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cluster = &localcluster.Cluster{BinDir: assets[0], Nodes: 1, RealNode: true, Mirrors: localolm.Mirrors,
		Progress: os.Stdout, DieWithParent: true}
	os.Exit(framework.Run(m, cluster, framework.Options{Scheme: scheme, Timeout: 25 * time.Minute,
		SetUp: func(ctx context.Context, s *framework.Suite) error { return setUp(ctx, s, assets[1]) }, Report: dumpOLM}))
}

// setUp deploys OLM from its images, and builds and pushes the operator's.
func setUp(ctx context.Context, s *framework.Suite, olmAssets string) error {
	k8s, cs = s.Client, s.Clientset
	cfg, dir := s.Config, s.Dir
	start := time.Now()
	var err error
	steps = framework.OLMSteps{Client: k8s, Timeout: olmTimeout}
	b := &imagebuild.Builder{}
	if olmImages, err = localolm.BuildImages(ctx, b, testenv.Root(), olmAssets, cluster); err != nil {
		return fmt.Errorf("OLM's images: %w", err)
	}
	if sdkImages, err = localolm.BuildSDKImages(ctx, b, testenv.Root(), cluster, olmImages); err != nil {
		return fmt.Errorf("operator-sdk's images: %w", err)
	}
	objs, err := localolm.Render(filepath.Join(olmAssets, "deploy"), olmImages)
	if err != nil {
		return err
	}
	if err := localolm.Deploy(ctx, cfg, objs); err != nil {
		return err
	}
	fmt.Printf("OLM's images built and its manifests applied %s after the start\n", time.Since(start).Round(100*time.Millisecond))
	// The operator's images build while OLM's pods start.
	local, err := buildOperatorImages(ctx, b, dir)
	if err != nil {
		return err
	}
	fmt.Printf("operator images built and pushed %s after the start\n", time.Since(start).Round(100*time.Millisecond))
	if err := localolm.WaitPodsReady(ctx, cfg); err != nil {
		return fmt.Errorf("OLM is not ready: %w", err)
	}
	fmt.Printf("OLM running as pods, packageserver serving, %s after the start\n", time.Since(start).Round(100*time.Millisecond))
	maps.Copy(local, olmImages.Local)
	maps.Copy(local, sdkImages.Local)
	localImages = local
	for _, ref := range slices.Sorted(maps.Keys(local)) {
		size, err := b.Size(ctx, local[ref])
		if err != nil {
			return err
		}
		fmt.Printf("image %s: %.1f MB unpacked\n", ref, float64(size)/1e6)
	}
	return nil
}

// buildOperatorImages builds, from the shipped Dockerfiles, the manager's image, a bundle for
// each release (generated as make bundle IMG=<the manager image in the registry> does), and a
// catalog of both (make catalog CATALOG_BUNDLE_IMG=<each bundle image>), and pushes them. It
// returns the storage name of each reference.
func buildOperatorImages(ctx context.Context, b *imagebuild.Builder, dir string) (map[string]string, error) {
	root := testenv.Root()
	registryHost := cluster.RegistryHost()
	local := map[string]string{}
	const managerLocal = "localhost/demo-operator-olm-node/manager:e2e"
	if _, err := b.BuildLocally(ctx, root, imagebuild.BuildOptions{ContextDir: root, Tag: managerLocal}); err != nil {
		return nil, fmt.Errorf("building the manager image: %w", err)
	}

	csv, annotations, err := committedBundle(root)
	if err != nil {
		return nil, err
	}
	current := csv.Spec.Version.String()
	next := csv.Spec.Version.Version
	next.Patch++
	catalogContext := filepath.Join(dir, "catalog-context")
	for _, version := range []string{current, next.String()} {
		r := release{version: version, csv: csv.Name[:strings.LastIndex(csv.Name, ".v")] + ".v" + version,
			managerImage: registryHost + "/demo-operator:" + version, bundle: registryHost + "/demo-operator-bundle:v" + version}
		// make bundle with operator-sdk, on a copy of the repository.
		bundleContext := filepath.Join(dir, "bundle-"+version)
		r.bundleDir = filepath.Join(bundleContext, "bundle")
		if err := sdkbundle.Generate(ctx, bundleContext, sdkbundle.Options{Version: version, Image: r.managerImage,
			Package: annotations.PackageName, Channels: annotations.Channels, DefaultChannel: annotations.DefaultChannelName}); err != nil {
			return nil, err
		}
		bundleLocal := "localhost/demo-operator-olm-node/bundle:v" + version
		if _, err := b.BuildLocally(ctx, root, imagebuild.BuildOptions{ContextDir: bundleContext, Dockerfile: filepath.Join(root, "bundle.Dockerfile"),
			Tag: bundleLocal}); err != nil {
			return nil, fmt.Errorf("building the bundle image: %w", err)
		}
		if err := olm.GenerateCatalog(olm.CatalogOptions{BundleDir: r.bundleDir, BundleImage: r.bundle,
			CatalogDir: filepath.Join(catalogContext, "catalog", annotations.PackageName)}); err != nil {
			return nil, err
		}
		// Each release's manager image is an image of its own, as a release's would be: the
		// node would otherwise report an upgraded pod's image by the first tag it pulled.
		releaseManager := "localhost/demo-operator-olm-node/manager:" + version
		if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: releaseManager, Base: managerLocal,
			Labels: map[string]string{"org.opencontainers.image.version": version}}); err != nil {
			return nil, err
		}
		local[r.managerImage], local[r.bundle] = releaseManager, bundleLocal
		releases = append(releases, r)
	}
	catalogImage = registryHost + "/demo-operator-catalog:v" + next.String()
	local[catalogImage] = "localhost/demo-operator-olm-node/catalog:v" + next.String()
	if _, err := b.BuildLocally(ctx, root, imagebuild.BuildOptions{ContextDir: catalogContext, Dockerfile: filepath.Join(root, "catalog.Dockerfile"),
		Tag: local[catalogImage]}); err != nil {
		return nil, fmt.Errorf("building the catalog image: %w", err)
	}
	for _, ref := range slices.Sorted(maps.Keys(local)) {
		if err := cluster.PushImage(ctx, b, local[ref], ref); err != nil {
			return nil, err
		}
	}
	return local, nil
}

// committedBundle reads bundle/'s CSV and annotations: the release the tests start from.
func committedBundle(root string) (*operatorsv1alpha1.ClusterServiceVersion, *registry.Annotations, error) {
	files, err := filepath.Glob(filepath.Join(root, "bundle", "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(files) != 1 {
		return nil, nil, fmt.Errorf("want one CSV in bundle/manifests, got %v (%v)", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, nil, err
	}
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	if err := yaml.Unmarshal(data, csv); err != nil {
		return nil, nil, err
	}
	data, err = os.ReadFile(filepath.Join(root, "bundle", "metadata", "annotations.yaml"))
	if err != nil {
		return nil, nil, err
	}
	var file registry.AnnotationsFile
	if err := yaml.Unmarshal(data, &file); err != nil {
		return nil, nil, err
	}
	return csv, &file.Annotations, nil
}

// dumpOLM prints the state of OLM's namespace and its operators' logs, for a failed run.
func dumpOLM() {
	if cs == nil {
		return
	}
	ctx := context.Background()
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for _, p := range pods.Items {
		fmt.Fprintf(os.Stderr, "pod %s/%s: %s\n", p.Namespace, p.Name, p.Status.Phase)
		for _, c := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			fmt.Fprintf(os.Stderr, "  %s %s ready=%v restarts=%d %+v\n", c.Name, c.Image, c.Ready, c.RestartCount, c.State)
		}
	}
	for _, name := range []string{"olm-operator", "catalog-operator", localolm.PackageServerCSV} {
		for _, p := range pods.Items {
			if p.Namespace != localolm.Namespace || !strings.HasPrefix(p.Name, name+"-") {
				continue
			}
			logs, _ := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{TailLines: ptr.To[int64](30)}).DoRaw(ctx)
			fmt.Fprintf(os.Stderr, "--- %s log:\n%s\n", p.Name, logs)
		}
	}
}
