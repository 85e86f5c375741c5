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

// On the real node, OLM runs as pods, the way its upstream release deploys it: OLM's image (olm, catalog, package-server, copy-content, cpb, and busybox's cp, as
// OLM's Dockerfile assembles it) and opm's image, both from binaries hack/olm.sh builds from
// the Go module proxy, pushed to a registry the node pulls from; then OLM's Helm chart, rendered
// with the values of its upstream release (deploy/upstream/values.yaml) and those images, applied.

package localolm

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

const (
	// PackageServerCSV is the CSV through which the olm operator installs packageserver and
	// its APIService.
	PackageServerCSV = "packageserver"
	// PackagesAPIService serves packagemanifests, which `kubectl get packagemanifests`,
	// OperatorHub's UI and `kubectl operator` read.
	PackagesAPIService = "v1.packages.operators.coreos.com"
	// upstreamCatalogSource is the release's CatalogSource of operatorhub.io, whose image
	// lives on quay.io: left out, as nothing here may be pulled from outside.
	upstreamCatalogSource = "operatorhubio-catalog"

	// operatorsGroup is the API group of OLM's own kinds.
	operatorsGroup = "operators.coreos.com"
	// releaseName is the Helm release OLM's chart is rendered as.
	releaseName = "olm"
	// crdKind is the kind of the CRDs, which are applied first and must be established
	// before the objects of their kinds.
	crdKind = "CustomResourceDefinition"
)

// The images operator-sdk names with no flag to change them, which a node here cannot pull from
// their registries: a cluster whose node mirrors Mirrors to its own registry
// (localcluster.Cluster.Mirrors) pulls them from there, where they are pushed under the same
// repository and tag.
const (
	// SDKInitImage is the decompression image `operator-sdk run bundle-upgrade` puts in its
	// registry pod (fbcutil.DefaultInitImage).
	SDKInitImage = "registry.access.redhat.com/ubi9/ubi:9.8"
	// ScorecardRegistry is the registry of the scorecard-test image that
	// bundle/tests/scorecard/config.yaml names.
	ScorecardRegistry = "quay.io"
)

// Mirrors are the registries of SDKInitImage and of the scorecard-test image, for
// localcluster.Cluster.Mirrors: the OLM tests' cluster and make cluster-up-node's set them.
var Mirrors = []string{SDKInitImage[:strings.Index(SDKInitImage, "/")], ScorecardRegistry}

// Images are the references, in the node's registry, of the images OLM runs.
type Images struct {
	// OLM is OLM's own image: its Deployments, packageserver, and the util init container of
	// bundle unpack Jobs (--util-image).
	OLM string
	// OPM is opm's image: the extract container of bundle unpack Jobs (--opmImage).
	OPM string
	// Local names each reference's image in the builder's storage.
	Local map[string]string
}

// olmVersion is the OLM version hack/tools/olm pins, which hack/olm.sh builds.
func olmVersion(root string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/operator-framework/operator-lifecycle-manager")
	cmd.Dir = filepath.Join(root, "hack", "tools", "olm")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m operator-lifecycle-manager: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// olmImageSpec is OLM's image as its Dockerfile makes it: distroless static:debug with the
// binaries in /bin, /bin/cp (busybox's; bundle unpack Jobs run /bin/cp -Rv /bin/cpb), user
// 1001, entrypoint /bin/olm. Here distroless static's stand-in plus Debian's static busybox.
func olmImageSpec(name, assets string) (imagebuild.ImageSpec, error) {
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		return imagebuild.ImageSpec{}, fmt.Errorf("busybox is not installed (Debian: apt-get install busybox-static)")
	}
	if err := imagebuild.StaticELF(busybox); err != nil {
		return imagebuild.ImageSpec{}, fmt.Errorf("%s: %w (Debian: apt-get install busybox-static)", busybox, err)
	}
	files := []imagebuild.File{
		{Path: "/busybox/busybox", Source: busybox},
		{Path: "/bin/cp", Link: "/busybox/busybox"},
	}
	for _, bin := range []string{olmBinary, catalogBinary, "package-server", "copy-content", "cpb"} {
		files = append(files, imagebuild.File{Path: "/bin/" + bin, Source: filepath.Join(assets, bin)})
	}
	return imagebuild.ImageSpec{
		Name: name, Base: imagebuild.DistrolessStaticImage, Files: files,
		User: "1001", WorkingDir: "/", Entrypoint: []string{"/bin/olm"},
	}, nil
}

// BuildImages makes OLM's and opm's images from the binaries in assets (hack/olm.sh) and
// pushes them to the cluster's registry. root is the repository.
func BuildImages(ctx context.Context, b *imagebuild.Builder, root, assets string, c *localcluster.Cluster) (Images, error) {
	version, err := olmVersion(root)
	if err != nil {
		return Images{}, err
	}
	if err := b.EnsureBaseImages(ctx, root, imagebuild.DistrolessStaticImage, imagebuild.OPMImage); err != nil {
		return Images{}, err
	}
	opmTag := imagebuild.OPMImage[strings.LastIndex(imagebuild.OPMImage, ":"):]
	spec, err := olmImageSpec("localhost/demo-operator-olm/olm:"+version, assets)
	if err != nil {
		return Images{}, err
	}
	if _, err := b.Assemble(ctx, spec); err != nil {
		return Images{}, fmt.Errorf("OLM's image: %w", err)
	}
	images := Images{OLM: c.RegistryHost() + "/olm:" + version, OPM: c.RegistryHost() + "/opm" + opmTag}
	images.Local = map[string]string{images.OLM: spec.Name, images.OPM: imagebuild.OPMImage}
	for ref, local := range images.Local {
		if err := c.PushImage(ctx, b, local, ref); err != nil {
			return Images{}, err
		}
	}
	return images, nil
}

// Render renders OLM's chart (deployDir/chart: OLM's module's deploy/, which hack/olm.sh copies
// to its assets) as its upstream release does (helm template --include-crds with
// deployDir/upstream/values.yaml), with the images' references
// instead of quay.io's, and without the release's operatorhub.io CatalogSource, in applyOrder.
func Render(deployDir string, images Images) ([]*unstructured.Unstructured, error) {
	ch, err := loader.Load(filepath.Join(deployDir, "chart"))
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ReadValuesFile(filepath.Join(deployDir, "upstream", "values.yaml"))
	if err != nil {
		return nil, err
	}
	for _, component := range []string{"olm", "catalog", "package"} {
		vals[component].(map[string]any)["image"] = map[string]any{"ref": images.OLM, "pullPolicy": "IfNotPresent"}
	}
	catalog := vals["catalog"].(map[string]any)
	catalog["opmImageArgs"] = "--opmImage=" + images.OPM
	// --configmapServerImage serves CatalogSources of sourceType configmap, a deprecated kind
	// nothing here uses, from configmap-operator-registry's image, which is not built here: the
	// flag is left to its default rather than naming a quay.io image in the manifests.
	catalog["commandArgs"] = ""
	install := action.NewInstall(&action.Configuration{})
	install.DryRun, install.ClientOnly, install.Replace = true, true, true
	install.ReleaseName, install.Namespace = releaseName, Namespace
	rel, err := install.Run(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("rendering OLM's chart: %w", err)
	}
	manifest := rel.Manifest
	for _, crd := range ch.CRDObjects() {
		manifest = string(crd.File.Data) + "\n---\n" + manifest
	}
	var objs []*unstructured.Unstructured
	for _, doc := range releaseutil.SplitManifests(manifest) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return nil, fmt.Errorf("rendered OLM object: %w", err)
		}
		if len(obj.Object) == 0 || obj.GetName() == upstreamCatalogSource {
			continue
		}
		objs = append(objs, obj)
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int { return applyOrder(a) - applyOrder(b) })
	return objs, nil
}

// applyOrder ranks objects so that the types and namespace of each exist before it: CRDs,
// namespaces, built-in kinds, then OLM's own (the global OperatorGroup, packageserver's CSV).
func applyOrder(o *unstructured.Unstructured) int {
	switch {
	case o.GetKind() == crdKind:
		return 0
	case o.GetKind() == "Namespace":
		return 1
	case o.GroupVersionKind().Group == operatorsGroup:
		return 3
	}
	return 2
}

// Deploy applies objs (Render's) with server-side apply, waiting for the CRDs to be
// established before the objects they define.
func Deploy(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured) error {
	k8s, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	var crds []string
	for i, obj := range objs {
		if obj.GetKind() != crdKind && len(crds) > 0 {
			if err := localcluster.WaitEstablished(ctx, cfg, crds...); err != nil {
				return err
			}
			crds = nil
			// The client maps kinds to resources once; the CRDs' kinds are new.
			if k8s, err = client.New(cfg, client.Options{}); err != nil {
				return err
			}
		}
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s (object %d): %w", obj.GetKind(), obj.GetName(), i, err)
		}
		if obj.GetKind() == crdKind {
			crds = append(crds, obj.GetName())
		}
	}
	return nil
}

// Remove deletes what Deploy applied, in reverse order, and the packages APIService that OLM
// made for packageserver, waiting until each is gone: deleting OLM's CRDs deletes every
// Subscription, CatalogSource and ClusterServiceVersion, and with them the operators OLM
// installed, whose Deployments the CSVs own.
func Remove(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured) error {
	k8s, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	api := &unstructured.Unstructured{}
	api.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"})
	api.SetName(PackagesAPIService)
	// The olm operator would make the APIService again while packageserver's CSV exists; the
	// release's own kinds come first in the reversed order, so it is deleted after them.
	objs = slices.Clone(objs)
	slices.Reverse(objs)
	i := slices.IndexFunc(objs, func(o *unstructured.Unstructured) bool { return applyOrder(o) < 3 })
	objs = slices.Insert(objs, max(i, 0), api)
	for _, obj := range objs {
		err := k8s.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationForeground))
		if client.IgnoreNotFound(err) != nil && !meta.IsNoMatchError(err) {
			return fmt.Errorf("deleting %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopy())
			return apierrors.IsNotFound(err) || meta.IsNoMatchError(err), nil
		})
		if err != nil {
			return fmt.Errorf("%s %s is not gone: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// WaitPodsReady waits until OLM runs: its two operators' Deployments available, packageserver's
// CSV Succeeded (the olm operator installed it) and its APIService available, which is when
// kube-apiserver serves packagemanifests.
func WaitPodsReady(ctx context.Context, cfg *rest.Config) error {
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	var waiting string
	err = wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range []string{"olm-operator", "catalog-operator", PackageServerCSV} {
			d := &appsv1.Deployment{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, d); err != nil {
				waiting = fmt.Sprintf("Deployment %s: %v", name, err)
				return false, client.IgnoreNotFound(err)
			}
			if d.Status.AvailableReplicas == 0 || d.Status.AvailableReplicas < ptr.Deref(d.Spec.Replicas, 1) {
				waiting = fmt.Sprintf("Deployment %s: %d of %d replicas available", name, d.Status.AvailableReplicas, ptr.Deref(d.Spec.Replicas, 1))
				return false, nil
			}
		}
		csv := &unstructured.Unstructured{}
		csv.SetGroupVersionKind(schema.GroupVersionKind{Group: operatorsGroup, Version: "v1alpha1", Kind: "ClusterServiceVersion"})
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: PackageServerCSV}, csv); err != nil {
			waiting = fmt.Sprintf("CSV %s: %v", PackageServerCSV, err)
			return false, client.IgnoreNotFound(err)
		}
		if phase, _, _ := unstructured.NestedString(csv.Object, "status", "phase"); phase != "Succeeded" {
			msg, _, _ := unstructured.NestedString(csv.Object, "status", "message")
			waiting = fmt.Sprintf("CSV %s: %s %s", PackageServerCSV, phase, msg)
			return false, nil
		}
		api := &unstructured.Unstructured{}
		api.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"})
		if err := k8s.Get(ctx, client.ObjectKey{Name: PackagesAPIService}, api); err != nil {
			waiting = fmt.Sprintf("APIService %s: %v", PackagesAPIService, err)
			return false, client.IgnoreNotFound(err)
		}
		conditions, _, _ := unstructured.NestedSlice(api.Object, "status", "conditions")
		for _, c := range conditions {
			c, _ := c.(map[string]any)
			if c["type"] == "Available" {
				waiting = fmt.Sprintf("APIService %s: Available=%v %v: %v", PackagesAPIService, c["status"], c["reason"], c["message"])
				return c["status"] == "True", nil
			}
		}
		waiting = fmt.Sprintf("APIService %s: no Available condition", PackagesAPIService)
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("%w; still waiting for %s", err, waiting)
	}
	return nil
}
