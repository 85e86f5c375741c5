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

// Package olm holds what this repository does with Operator Lifecycle Manager's formats and
// APIs, on any cluster running OLM: the file-based catalog that make catalog writes, and what
// `operator-sdk run bundle`, `run bundle-upgrade` and `cleanup` do, for users without the CLI
// (cmd/olmrun).
//
// Runner does what `operator-sdk run bundle`, `run bundle-upgrade` and `cleanup` do,
// on any cluster running Operator Lifecycle Manager, for users without the CLI: a bundle image
// rendered into a file-based catalog, served from a ConfigMap by a registry pod of the opm
// (index) image, a CatalogSource at that pod, an OperatorGroup, a Subscription, its InstallPlan
// approved, the CSV Succeeded. It marks everything it creates and never deletes or replaces an
// object it did not create; unlike operator-sdk's cleanup it never deletes CRDs, so that users'
// custom resources survive.
package olm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

const (
	// DefaultIndexImage is the image of the registry pod, opm's, as operator-sdk's --index-image
	// defaults to (at the opm version the catalog image is built on).
	DefaultIndexImage = "quay.io/operator-framework/opm:v1.60.0"
	// DefaultTimeout bounds each command.
	DefaultTimeout = 5 * time.Minute

	// LabelManagedBy marks what this package creates, with ManagedBy; LabelPackage names the
	// package it was created for. Nothing without both is deleted or replaced.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "demo-operator-olmrun"
	LabelPackage   = "olmrun.cmft.com/package"

	// The CatalogSource's annotations, operator-sdk's: the index image, the bundle images in
	// the catalog (JSON), and the registry pod serving it.
	AnnotationIndexImage      = "operators.operatorframework.io/index-image"
	AnnotationInjectedBundles = "operators.operatorframework.io/injected-bundles"
	AnnotationRegistryPod     = "operators.operatorframework.io/registry-pod-name"

	grpcPort = 50051
)

// Options are the flags the commands share.
type Options struct {
	// Namespace is where the operator, its catalog and Subscription go.
	Namespace string
	// IndexImage runs the registry pod: if empty, DefaultIndexImage for RunBundle, and for
	// UpgradeBundle the one RunBundle used.
	IndexImage string
	// Timeout bounds each command; DefaultTimeout if zero.
	Timeout time.Duration
	// Registry says how to pull bundle images.
	Registry RegistryOptions
	// Logf reports progress, if set.
	Logf func(format string, args ...any)
}

// Runner runs the commands against a cluster.
type Runner struct {
	Client client.Client
	Options
}

// newScheme knows the kinds a Runner's client handles.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, operatorsv1.AddToScheme, operatorsv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// New returns a Runner on the cluster of cfg.
func New(cfg *rest.Config, opts Options) (*Runner, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	return &Runner{Client: c, Options: opts}, nil
}

// RunBundle is `operator-sdk run bundle <image> --install-mode <mode>`: it installs the
// bundle image and returns its CSV once Succeeded.
func (r *Runner) RunBundle(ctx context.Context, image string, mode InstallMode) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	bundle, err := r.render(ctx, image)
	if err != nil {
		return nil, err
	}
	csv, err := bundleCSV(bundle)
	if err != nil {
		return nil, err
	}
	if mode, err = resolveInstallMode(csv, mode, r.Namespace); err != nil {
		return nil, err
	}
	cfg, err := NewCatalog(*bundle)
	if err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{
		&operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: catalogName(bundle.Package)}},
		&operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: bundle.Package}},
	} {
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: obj.GetName()}, obj)
		if err == nil {
			return nil, fmt.Errorf("%T %s/%s already exists: run bundle-upgrade, or cleanup %s first", obj, r.Namespace, obj.GetName(), bundle.Package)
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	if err := r.ensureOperatorGroup(ctx, bundle.Package, mode); err != nil {
		return nil, err
	}
	source, err := r.createCatalog(ctx, cfg, image)
	if err != nil {
		return nil, err
	}
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: bundle.Package, Labels: r.labels(bundle.Package)},
		Spec: &operatorsv1alpha1.SubscriptionSpec{CatalogSource: source.Name, CatalogSourceNamespace: source.Namespace,
			Package: bundle.Package, Channel: Channel, StartingCSV: bundle.Name, InstallPlanApproval: operatorsv1alpha1.ApprovalManual},
	}
	if err := r.Client.Create(ctx, sub); err != nil {
		return nil, err
	}
	r.logf("created Subscription %s/%s to %s", sub.Namespace, sub.Name, bundle.Name)
	return r.install(ctx, sub, bundle.Name)
}

// UpgradeBundle is `operator-sdk run bundle-upgrade <image>`: image's bundle becomes the head
// of the catalog RunBundle made for its package, the registry pod is replaced by one serving
// it, and the upgrade's InstallPlan approved. It returns the new CSV once Succeeded.
func (r *Runner) UpgradeBundle(ctx context.Context, image string) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	bundle, err := r.render(ctx, image)
	if err != nil {
		return nil, err
	}
	source := &operatorsv1alpha1.CatalogSource{}
	if err := r.getOwned(ctx, catalogName(bundle.Package), bundle.Package, source); err != nil {
		return nil, fmt.Errorf("the catalog of run bundle: %w", err)
	}
	sub := &operatorsv1alpha1.Subscription{}
	if err := r.getOwned(ctx, bundle.Package, bundle.Package, sub); err != nil {
		return nil, fmt.Errorf("the Subscription of run bundle: %w", err)
	}
	cm := &corev1.ConfigMap{}
	if err := r.getOwned(ctx, source.Name, bundle.Package, cm); err != nil {
		return nil, err
	}
	cfg, err := unmarshalCatalog(cm.Data[catalogFile])
	if err != nil {
		return nil, fmt.Errorf("the catalog in ConfigMap %s: %w", cm.Name, err)
	}
	if err := AddHead(cfg, *bundle); err != nil {
		return nil, err
	}
	// The new registry pod runs the index image of run bundle's, unless told otherwise.
	index := r.IndexImage
	if index == "" {
		index = source.Annotations[AnnotationIndexImage]
	}
	if err := r.serve(ctx, source, cm, cfg, image, index); err != nil {
		return nil, err
	}
	return r.install(ctx, sub, bundle.Name)
}

// Cleanup is `operator-sdk cleanup <package>` without deleting CRDs: the Subscription, the
// package's CSVs (the installed one and those of the catalog), the CatalogSource, its ConfigMap
// and registry pod, and the OperatorGroup if RunBundle created it and no other Subscription
// uses it. It deletes only what carries RunBundle's labels for pkg, and waits until it is gone.
func (r *Runner) Cleanup(ctx context.Context, pkg string) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	source := &operatorsv1alpha1.CatalogSource{}
	if err := r.getOwned(ctx, catalogName(pkg), pkg, source); client.IgnoreNotFound(err) != nil {
		return err
	}
	var csvs []string
	subs := &operatorsv1alpha1.SubscriptionList{}
	if err := r.Client.List(ctx, subs, client.InNamespace(r.Namespace), client.MatchingLabels(r.labels(pkg))); err != nil {
		return err
	}
	for _, s := range subs.Items {
		csvs = append(csvs, s.Status.InstalledCSV, s.Status.CurrentCSV)
	}
	cm := &corev1.ConfigMap{}
	if err := r.getOwned(ctx, catalogName(pkg), pkg, cm); client.IgnoreNotFound(err) != nil {
		return err
	} else if err == nil {
		if cfg, err := unmarshalCatalog(cm.Data[catalogFile]); err == nil {
			for _, b := range cfg.Bundles {
				csvs = append(csvs, b.Name)
			}
		}
	}
	var deleted []client.Object
	for i := range subs.Items {
		deleted = append(deleted, &subs.Items[i])
	}
	for _, name := range slices.Compact(slices.Sorted(slices.Values(csvs))) {
		if name != "" {
			deleted = append(deleted, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: name}})
		}
	}
	if source.Name != "" {
		deleted = append(deleted, source)
	}
	if cm.Name != "" {
		deleted = append(deleted, cm)
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(r.Namespace), client.MatchingLabels(r.labels(pkg))); err != nil {
		return err
	}
	for i := range pods.Items {
		deleted = append(deleted, &pods.Items[i])
	}
	og, err := r.operatorGroupToDelete(ctx, pkg, len(subs.Items))
	if err != nil {
		return err
	}
	if og != nil {
		deleted = append(deleted, og)
	}
	for _, obj := range deleted {
		err := r.Client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %T %s: %w", obj, obj.GetName(), err)
		}
		if err == nil {
			r.logf("deleting %T %s/%s", obj, r.Namespace, obj.GetName())
		}
	}
	return r.waitGone(ctx, deleted)
}

func (r *Runner) render(ctx context.Context, image string) (*declcfg.Bundle, error) {
	bundle, err := RenderBundleImage(ctx, image, r.Registry)
	if err != nil {
		return nil, err
	}
	r.logf("rendered %s: bundle %s of package %s", image, bundle.Name, bundle.Package)
	return bundle, nil
}

// ensureOperatorGroup creates the OperatorGroup of mode unless the namespace has one, which
// must then target what mode needs: a namespace has at most one.
func (r *Runner) ensureOperatorGroup(ctx context.Context, pkg string, mode InstallMode) error {
	targets := operatorGroupTargets(mode, r.Namespace)
	groups := &operatorsv1.OperatorGroupList{}
	if err := r.Client.List(ctx, groups, client.InNamespace(r.Namespace)); err != nil {
		return err
	}
	switch len(groups.Items) {
	case 0:
		og := &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: "operator-sdk-og", Labels: r.labels(pkg)},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
		}
		r.logf("creating OperatorGroup %s/%s for %s", og.Namespace, og.Name, mode)
		return r.Client.Create(ctx, og)
	case 1:
		og := groups.Items[0]
		if og.Spec.Selector != nil || !slices.Equal(slices.Sorted(slices.Values(og.Spec.TargetNamespaces)), slices.Sorted(slices.Values(targets))) {
			return fmt.Errorf("namespace %s has OperatorGroup %s targeting %v, install mode %s needs %v", r.Namespace, og.Name,
				og.Spec.TargetNamespaces, mode, targets)
		}
		r.logf("using OperatorGroup %s/%s", og.Namespace, og.Name)
		return nil
	}
	return fmt.Errorf("namespace %s has %d OperatorGroups: OLM installs nothing there", r.Namespace, len(groups.Items))
}

// operatorGroupToDelete is the OperatorGroup RunBundle created for pkg, unless Subscriptions
// other than the ownSubs of pkg use it.
func (r *Runner) operatorGroupToDelete(ctx context.Context, pkg string, ownSubs int) (*operatorsv1.OperatorGroup, error) {
	groups := &operatorsv1.OperatorGroupList{}
	if err := r.Client.List(ctx, groups, client.InNamespace(r.Namespace), client.MatchingLabels(r.labels(pkg))); err != nil {
		return nil, err
	}
	if len(groups.Items) == 0 {
		return nil, nil
	}
	all := &operatorsv1alpha1.SubscriptionList{}
	if err := r.Client.List(ctx, all, client.InNamespace(r.Namespace)); err != nil {
		return nil, err
	}
	if len(all.Items) > ownSubs {
		r.logf("keeping OperatorGroup %s: other Subscriptions of %s use it", groups.Items[0].Name, r.Namespace)
		return nil, nil
	}
	return &groups.Items[0], nil
}

// createCatalog creates the CatalogSource and the ConfigMap of cfg, and serves it.
func (r *Runner) createCatalog(ctx context.Context, cfg *declcfg.DeclarativeConfig, image string) (*operatorsv1alpha1.CatalogSource, error) {
	pkg := cfg.Packages[0].Name
	source := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: catalogName(pkg), Labels: r.labels(pkg)},
		// The address comes with the registry pod.
		Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, DisplayName: pkg, Publisher: "operator-sdk"},
	}
	if err := r.Client.Create(ctx, source); err != nil {
		return nil, err
	}
	// The ConfigMap and pods go with the CatalogSource.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: source.Name, Labels: r.labels(pkg)}}
	if err := controllerutil.SetOwnerReference(source, cm, r.Client.Scheme()); err != nil {
		return nil, err
	}
	return source, r.serve(ctx, source, cm, cfg, image, r.IndexImage)
}

// serve stores cfg in the ConfigMap, starts a registry pod of index (DefaultIndexImage if empty)
// serving it, points the CatalogSource at the pod, records image among its bundles, and deletes
// the pod it pointed at before.
func (r *Runner) serve(ctx context.Context, source *operatorsv1alpha1.CatalogSource, cm *corev1.ConfigMap,
	cfg *declcfg.DeclarativeConfig, image, index string) error {
	if index == "" {
		index = DefaultIndexImage
	}
	data, err := marshalCatalog(cfg)
	if err != nil {
		return err
	}
	cm.Data = map[string]string{catalogFile: data}
	if cm.ResourceVersion == "" {
		err = r.Client.Create(ctx, cm)
	} else {
		err = r.Client.Update(ctx, cm)
	}
	if err != nil {
		return fmt.Errorf("storing the catalog in ConfigMap %s: %w", cm.Name, err)
	}
	pod := registryPod(source, cm.Name, index)
	if err := controllerutil.SetOwnerReference(source, pod, r.Client.Scheme()); err != nil {
		return err
	}
	if err := r.Client.Create(ctx, pod); err != nil {
		return err
	}
	r.logf("created registry pod %s/%s of %s", pod.Namespace, pod.Name, index)
	if err := r.waitPodReady(ctx, pod); err != nil {
		return err
	}
	old := source.Annotations[AnnotationRegistryPod]
	injected, err := appendInjected(source.Annotations[AnnotationInjectedBundles], image)
	if err != nil {
		return err
	}
	patch := client.MergeFrom(source.DeepCopy())
	source.Spec.Address = fmt.Sprintf("%s:%d", pod.Status.PodIP, grpcPort)
	metav1.SetMetaDataAnnotation(&source.ObjectMeta, AnnotationIndexImage, index)
	metav1.SetMetaDataAnnotation(&source.ObjectMeta, AnnotationInjectedBundles, injected)
	metav1.SetMetaDataAnnotation(&source.ObjectMeta, AnnotationRegistryPod, pod.Name)
	if err := r.Client.Patch(ctx, source, patch); err != nil {
		return err
	}
	if old != "" {
		prev := &corev1.Pod{}
		if err := r.getOwned(ctx, old, source.Labels[LabelPackage], prev); client.IgnoreNotFound(err) != nil {
			return err
		} else if err == nil {
			r.logf("deleting the previous registry pod %s", old)
			if err := r.Client.Delete(ctx, prev); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
	}
	return r.waitCatalogReady(ctx, source)
}

// install approves the InstallPlan the Subscription makes for csvName, and waits until the CSV
// is Succeeded.
func (r *Runner) install(ctx context.Context, sub *operatorsv1alpha1.Subscription, csvName string) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	plan := &operatorsv1alpha1.InstallPlan{}
	err := r.poll(ctx, func(ctx context.Context) (string, error) {
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(sub), sub); err != nil {
			return "", err
		}
		if sub.Status.CurrentCSV != csvName || sub.Status.InstallPlanRef == nil {
			return fmt.Sprintf("Subscription %s: state %q, current CSV %q, conditions %s", sub.Name, sub.Status.State,
				sub.Status.CurrentCSV, subscriptionConditions(sub)), nil
		}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: sub.Namespace, Name: sub.Status.InstallPlanRef.Name}, plan); err != nil {
			return "", client.IgnoreNotFound(err)
		}
		if !slices.Contains(plan.Spec.ClusterServiceVersionNames, csvName) {
			return fmt.Sprintf("InstallPlan %s installs %v", plan.Name, plan.Spec.ClusterServiceVersionNames), nil
		}
		if plan.Spec.Approved {
			return "", nil
		}
		if plan.Status.Phase != operatorsv1alpha1.InstallPlanPhaseRequiresApproval {
			return fmt.Sprintf("InstallPlan %s: phase %q", plan.Name, plan.Status.Phase), nil
		}
		patch := client.MergeFrom(plan.DeepCopy())
		plan.Spec.Approved = true
		r.logf("approving InstallPlan %s for %v", plan.Name, plan.Spec.ClusterServiceVersionNames)
		return "", r.Client.Patch(ctx, plan, patch)
	})
	if err != nil {
		return nil, err
	}
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	err = r.poll(ctx, func(ctx context.Context) (string, error) {
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: csvName}, csv); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Sprintf("CSV %s not created yet; InstallPlan %s phase %q", csvName, plan.Name, r.planPhase(ctx, plan)), nil
			}
			return "", err
		}
		if csv.Status.Phase != operatorsv1alpha1.CSVPhaseSucceeded {
			return fmt.Sprintf("CSV %s: phase %q, reason %q: %s", csvName, csv.Status.Phase, csv.Status.Reason, csv.Status.Message), nil
		}
		return "", nil
	})
	if err != nil {
		return nil, err
	}
	r.logf("CSV %s/%s Succeeded", r.Namespace, csvName)
	return csv, nil
}

func (r *Runner) planPhase(ctx context.Context, plan *operatorsv1alpha1.InstallPlan) operatorsv1alpha1.InstallPlanPhase {
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(plan), plan); err != nil {
		return operatorsv1alpha1.InstallPlanPhase(err.Error())
	}
	return plan.Status.Phase
}

func subscriptionConditions(sub *operatorsv1alpha1.Subscription) string {
	var out []string
	for _, c := range sub.Status.Conditions {
		if c.Status == corev1.ConditionTrue {
			out = append(out, fmt.Sprintf("%s (%s: %s)", c.Type, c.Reason, c.Message))
		}
	}
	return fmt.Sprint(out)
}

func (r *Runner) waitPodReady(ctx context.Context, pod *corev1.Pod) error {
	return r.poll(ctx, func(ctx context.Context) (string, error) {
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return "", err
		}
		if pod.Status.PodIP != "" && slices.ContainsFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
		}) {
			return "", nil
		}
		return fmt.Sprintf("registry pod %s: phase %s, containers %+v", pod.Name, pod.Status.Phase, pod.Status.ContainerStatuses), nil
	})
}

// waitCatalogReady waits until OLM's connection to the CatalogSource's address is READY.
func (r *Runner) waitCatalogReady(ctx context.Context, source *operatorsv1alpha1.CatalogSource) error {
	return r.poll(ctx, func(ctx context.Context) (string, error) {
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(source), source); err != nil {
			return "", err
		}
		state := source.Status.GRPCConnectionState
		if state != nil && state.Address == source.Spec.Address && state.LastObservedState == "READY" {
			return "", nil
		}
		return fmt.Sprintf("CatalogSource %s: connection %+v", source.Name, state), nil
	})
}

// waitGone waits until the objects are deleted.
func (r *Runner) waitGone(ctx context.Context, objs []client.Object) error {
	return r.poll(ctx, func(ctx context.Context) (string, error) {
		for _, obj := range objs {
			err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			if err == nil {
				return fmt.Sprintf("%T %s is still there", obj, obj.GetName()), nil
			}
			if !apierrors.IsNotFound(err) {
				return "", err
			}
		}
		return "", nil
	})
}

// poll calls cond until it reports nothing to wait for (""), fails, or ctx ends; then the error
// says what it was still waiting for.
func (r *Runner) poll(ctx context.Context, cond func(context.Context) (string, error)) error {
	var waiting string
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		state, err := cond(ctx)
		if err != nil {
			return false, err
		}
		waiting = state
		return state == "", nil
	})
	// A request the deadline cut short fails too: the last state says what was awaited.
	if err != nil && waiting != "" && ctx.Err() != nil {
		return fmt.Errorf("timed out after %s: %s", r.timeout(), waiting)
	}
	return err
}

// getOwned reads name in the namespace into obj, and fails unless it carries the labels this
// package puts on what it creates for pkg.
func (r *Runner) getOwned(ctx context.Context, name, pkg string, obj client.Object) error {
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: name}, obj); err != nil {
		return err
	}
	labels := obj.GetLabels()
	if labels[LabelManagedBy] != ManagedBy || labels[LabelPackage] != pkg {
		return fmt.Errorf("%T %s/%s was not created by run bundle for %s (labels %s=%s, %s=%s): left alone",
			obj, r.Namespace, name, pkg, LabelManagedBy, ManagedBy, LabelPackage, pkg)
	}
	return nil
}

func (r *Runner) labels(pkg string) map[string]string {
	return map[string]string{LabelManagedBy: ManagedBy, LabelPackage: pkg}
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout == 0 {
		return DefaultTimeout
	}
	return r.Timeout
}

func (r *Runner) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// catalogName is the CatalogSource of pkg, operator-sdk's name for it.
func catalogName(pkg string) string { return pkg + "-catalog" }

// bundleCSV is the ClusterServiceVersion of a rendered bundle.
func bundleCSV(b *declcfg.Bundle) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	if b.CsvJSON == "" {
		return nil, errors.New("bundle " + b.Name + " has no ClusterServiceVersion")
	}
	return csv, json.Unmarshal([]byte(b.CsvJSON), csv)
}
