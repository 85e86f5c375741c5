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

// Package olm turns config/manifests into an OLM bundle and the bundle into a file-based
// catalog, the way `operator-sdk generate bundle` and `opm render` do, for machines without
// those binaries.
package olmbundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	opversion "github.com/operator-framework/api/pkg/lib/version"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Options describe one release of the operator.
type Options struct {
	// ManifestsDir is the kustomization the bundle is built from (config/manifests).
	ManifestsDir string
	// OutputDir receives manifests/, metadata/ and tests/ (bundle).
	OutputDir string
	// DockerfilePath receives the bundle's Dockerfile (bundle.Dockerfile).
	DockerfilePath string
	// Package is the OLM package name.
	Package string
	// Version is the operator's semantic version, without a leading v.
	Version string
	// Image is the manager's image.
	Image string
	// Channels the bundle is published in; DefaultChannel must be one of them.
	Channels       []string
	DefaultChannel string
}

// CSVName is the name OLM knows a release by: <package>.v<version>.
func (o Options) CSVName() string { return o.Package + ".v" + o.Version }

// The manager's container, whose image is the one the bundle releases.
const managerContainer = "manager"

// manifests are the kustomize output, sorted the way operator-sdk's collector does.
type manifests struct {
	csv          *operatorsv1alpha1.ClusterServiceVersion
	crds         []*unstructured.Unstructured
	deployments  []appsv1.Deployment
	roles        map[string]rbacv1.Role
	clusterRoles map[string]rbacv1.ClusterRole
	roleBindings []rbacv1.RoleBinding
	crBindings   []rbacv1.ClusterRoleBinding
	samples      []*unstructured.Unstructured
	scorecard    *unstructured.Unstructured
	others       []*unstructured.Unstructured
}

// GenerateBundle writes the bundle for o.
func GenerateBundle(o Options) error {
	m, err := collect(o.ManifestsDir)
	if err != nil {
		return err
	}
	csv, extra, err := m.buildCSV(o)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(o.OutputDir, "manifests")); err != nil {
		return err
	}
	files := map[string]any{filepath.Join("manifests", o.Package+".clusterserviceversion.yaml"): csv}
	for _, crd := range m.crds {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		files[filepath.Join("manifests", group+"_"+plural+".yaml")] = crd.Object
	}
	for _, obj := range extra {
		files[filepath.Join("manifests", manifestFileName(obj))] = obj.Object
	}
	if m.scorecard != nil {
		files[filepath.Join("tests", "scorecard", "config.yaml")] = m.scorecard.Object
	}
	annotations := annotationsOf(o)
	files[filepath.Join("metadata", "annotations.yaml")] = map[string]any{"annotations": annotations}
	for name, obj := range files {
		if err := writeYAML(filepath.Join(o.OutputDir, name), obj); err != nil {
			return err
		}
	}
	return os.WriteFile(o.DockerfilePath, bundleDockerfile(o.OutputDir, annotations, m.scorecard != nil), 0o644)
}

// annotationsOf are the bundle's metadata/annotations.yaml, and its image's labels.
func annotationsOf(o Options) map[string]string {
	return map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         o.Package,
		"operators.operatorframework.io.bundle.channels.v1":        strings.Join(o.Channels, ","),
		"operators.operatorframework.io.bundle.channel.default.v1": o.DefaultChannel,
		"operators.operatorframework.io.test.mediatype.v1":         "scorecard+v1",
		"operators.operatorframework.io.test.config.v1":            "tests/scorecard/",
	}
}

// bundleDockerfile builds the bundle image from dir, labelled exactly like annotations.yaml.
func bundleDockerfile(dir string, annotations map[string]string, scorecard bool) []byte {
	var b bytes.Buffer
	b.WriteString("FROM scratch\n\n# Labels copied from metadata/annotations.yaml by `make bundle`.\n")
	for _, k := range sortedKeys(annotations) {
		fmt.Fprintf(&b, "LABEL %s=%s\n", k, annotations[k])
	}
	dir = filepath.ToSlash(filepath.Clean(dir))
	fmt.Fprintf(&b, "\nCOPY %s/manifests /manifests/\nCOPY %s/metadata /metadata/\n", dir, dir)
	if scorecard {
		fmt.Fprintf(&b, "COPY %s/tests/scorecard /tests/scorecard/\n", dir)
	}
	return b.Bytes()
}

// collect builds dir with kustomize and sorts the objects by what the bundle does with them.
func collect(dir string) (*manifests, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), abs)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	m := &manifests{roles: map[string]rbacv1.Role{}, clusterRoles: map[string]rbacv1.ClusterRole{}}
	var objs []*unstructured.Unstructured
	crdKinds := map[string]bool{}
	for _, r := range resMap.Resources() {
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		objs = append(objs, u)
		if u.GetKind() == "CustomResourceDefinition" {
			group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
			crdKinds[group+"/"+kind] = true
		}
	}
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		var typed any
		switch {
		case gvk.Kind == operatorsv1alpha1.ClusterServiceVersionKind:
			m.csv = &operatorsv1alpha1.ClusterServiceVersion{}
			typed = m.csv
		case gvk.Kind == "CustomResourceDefinition":
			m.crds = append(m.crds, u)
		case gvk.Group == "apps" && gvk.Kind == "Deployment":
			m.deployments = append(m.deployments, appsv1.Deployment{})
			typed = &m.deployments[len(m.deployments)-1]
		case gvk.Group == rbacv1.GroupName && gvk.Kind == "Role":
			var role rbacv1.Role
			if err := fromUnstructured(u, &role); err != nil {
				return nil, err
			}
			m.roles[role.Name] = role
		case gvk.Group == rbacv1.GroupName && gvk.Kind == "ClusterRole":
			var role rbacv1.ClusterRole
			if err := fromUnstructured(u, &role); err != nil {
				return nil, err
			}
			m.clusterRoles[role.Name] = role
		case gvk.Group == rbacv1.GroupName && gvk.Kind == "RoleBinding":
			m.roleBindings = append(m.roleBindings, rbacv1.RoleBinding{})
			typed = &m.roleBindings[len(m.roleBindings)-1]
		case gvk.Group == rbacv1.GroupName && gvk.Kind == "ClusterRoleBinding":
			m.crBindings = append(m.crBindings, rbacv1.ClusterRoleBinding{})
			typed = &m.crBindings[len(m.crBindings)-1]
		case gvk.Group == "scorecard.operatorframework.io" && gvk.Kind == "Configuration":
			m.scorecard = u
		case crdKinds[gvk.Group+"/"+gvk.Kind]:
			m.samples = append(m.samples, u)
		case gvk.Group == "" && gvk.Kind == "Namespace":
			// OLM installs into the namespace of the Subscription.
		default:
			m.others = append(m.others, u)
		}
		if typed != nil {
			if err := fromUnstructured(u, typed); err != nil {
				return nil, err
			}
		}
	}
	if m.csv == nil {
		return nil, fmt.Errorf("%s has no ClusterServiceVersion base", dir)
	}
	return m, nil
}

// buildCSV fills the CSV base with this release and the install strategy, and returns the
// other objects the bundle carries as plain manifests.
func (m *manifests) buildCSV(o Options) (*operatorsv1alpha1.ClusterServiceVersion, []*unstructured.Unstructured, error) {
	csv := m.csv.DeepCopy()
	csv.Name = o.CSVName()
	ver, err := parseVersion(o.Version)
	if err != nil {
		return nil, nil, err
	}
	csv.Spec.Version = ver

	for i := range m.deployments {
		for j, c := range m.deployments[i].Spec.Template.Spec.Containers {
			if c.Name == managerContainer {
				m.deployments[i].Spec.Template.Spec.Containers[j].Image = o.Image
			}
		}
	}
	saNames := map[string]bool{}
	strategy := operatorsv1alpha1.StrategyDetailsDeployment{}
	for _, d := range m.deployments {
		saNames[serviceAccountOf(d)] = true
		strategy.DeploymentSpecs = append(strategy.DeploymentSpecs, operatorsv1alpha1.StrategyDeploymentSpec{
			Name: d.Name, Label: d.Labels, Spec: d.Spec,
		})
	}
	// A RoleBinding grants its Role's or ClusterRole's rules as permissions, which OLM
	// creates in the OperatorGroup's target namespaces only (cluster-wide for AllNamespaces);
	// a ClusterRoleBinding's rules become clusterPermissions, granted cluster-wide whatever
	// the install mode.
	bound := map[string]bool{}
	strategy.Permissions = permissions(saNames, m.roleBindings, func(b rbacv1.RoleBinding) (rbacv1.RoleRef, []rbacv1.Subject) {
		return b.RoleRef, b.Subjects
	}, m.rulesOf, bound)
	strategy.ClusterPermissions = permissions(saNames, m.crBindings, func(b rbacv1.ClusterRoleBinding) (rbacv1.RoleRef, []rbacv1.Subject) {
		return b.RoleRef, b.Subjects
	}, func(ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, bool) {
		if ref.Kind != "ClusterRole" {
			return nil, false
		}
		return m.rulesOf(ref)
	}, bound)
	csv.Spec.InstallStrategy = operatorsv1alpha1.NamedInstallStrategy{
		StrategyName: operatorsv1alpha1.InstallStrategyNameDeployment,
		StrategySpec: strategy,
	}

	csv.Spec.CustomResourceDefinitions.Owned = ownedCRDs(csv.Spec.CustomResourceDefinitions.Owned, m.crds)
	examples, err := almExamples(m.samples)
	if err != nil {
		return nil, nil, err
	}
	if csv.Annotations == nil {
		csv.Annotations = map[string]string{}
	}
	csv.Annotations["alm-examples"] = examples
	csv.Annotations["containerImage"] = o.Image
	csv.Spec.RelatedImages = []operatorsv1alpha1.RelatedImage{{Name: managerContainer, Image: o.Image}}

	// Everything OLM does not create from the CSV itself goes into the bundle as is; the
	// ServiceAccounts, Roles and bindings the CSV's permissions stand for do not.
	var extra []*unstructured.Unstructured
	for _, u := range m.others {
		if u.GetKind() == "ServiceAccount" && saNames[u.GetName()] {
			continue
		}
		extra = append(extra, u)
	}
	for _, b := range m.roleBindings {
		if !bindsAny(b.Subjects, saNames) {
			u, err := toUnstructured(&b, "RoleBinding")
			if err != nil {
				return nil, nil, err
			}
			extra = append(extra, u)
		}
	}
	for _, b := range m.crBindings {
		if !bindsAny(b.Subjects, saNames) {
			u, err := toUnstructured(&b, "ClusterRoleBinding")
			if err != nil {
				return nil, nil, err
			}
			extra = append(extra, u)
		}
	}
	for _, name := range sortedKeys(m.roles) {
		if !bound["Role/"+name] {
			role := m.roles[name]
			u, err := toUnstructured(&role, "Role")
			if err != nil {
				return nil, nil, err
			}
			extra = append(extra, u)
		}
	}
	for _, name := range sortedKeys(m.clusterRoles) {
		if !bound["ClusterRole/"+name] {
			role := m.clusterRoles[name]
			u, err := toUnstructured(&role, "ClusterRole")
			if err != nil {
				return nil, nil, err
			}
			extra = append(extra, u)
		}
	}
	// OLM creates these objects in the namespace the operator is installed in; like operator-sdk,
	// drop the one kustomize set, which `operator-sdk bundle validate` refuses.
	for _, u := range extra {
		u.SetNamespace("")
	}
	return csv, extra, nil
}

// rulesOf returns the rules of the Role or ClusterRole ref names, if the manifests hold it.
func (m *manifests) rulesOf(ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, bool) {
	switch ref.Kind {
	case "Role":
		role, ok := m.roles[ref.Name]
		return role.Rules, ok
	case "ClusterRole":
		role, ok := m.clusterRoles[ref.Name]
		return role.Rules, ok
	}
	return nil, false
}

// permissions merges the rules of every role bound to each of the deployments' service
// accounts, one entry per account, as operator-sdk does; bound records the roles it used.
func permissions[B any](saNames map[string]bool, bindings []B, ref func(B) (rbacv1.RoleRef, []rbacv1.Subject),
	rules func(rbacv1.RoleRef) ([]rbacv1.PolicyRule, bool), bound map[string]bool) []operatorsv1alpha1.StrategyDeploymentPermissions {
	var out []operatorsv1alpha1.StrategyDeploymentPermissions
	for _, sa := range sortedKeys(saNames) {
		p := operatorsv1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa}
		for _, b := range bindings {
			roleRef, subjects := ref(b)
			roleRules, ok := rules(roleRef)
			if !ok || !hasServiceAccount(subjects, sa) {
				continue
			}
			p.Rules = append(p.Rules, roleRules...)
			bound[roleRef.Kind+"/"+roleRef.Name] = true
		}
		if len(p.Rules) > 0 {
			out = append(out, p)
		}
	}
	return out
}

func hasServiceAccount(subjects []rbacv1.Subject, name string) bool {
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Name == name {
			return true
		}
	}
	return false
}

// bindsAny tells whether a binding grants to one of the deployments' service accounts, which
// the CSV's permissions stand for.
func bindsAny(subjects []rbacv1.Subject, saNames map[string]bool) bool {
	for sa := range saNames {
		if hasServiceAccount(subjects, sa) {
			return true
		}
	}
	return false
}

func serviceAccountOf(d appsv1.Deployment) string {
	if sa := d.Spec.Template.Spec.ServiceAccountName; sa != "" {
		return sa
	}
	return "default"
}

// ownedCRDs keeps the base's description of every version the CRDs serve and adds a bare
// entry for a version the base does not describe, sorted newest version first.
func ownedCRDs(base []operatorsv1alpha1.CRDDescription, crds []*unstructured.Unstructured) []operatorsv1alpha1.CRDDescription {
	described := map[string]operatorsv1alpha1.CRDDescription{}
	for _, d := range base {
		described[d.Name+"/"+d.Version+"/"+d.Kind] = d
	}
	var out []operatorsv1alpha1.CRDDescription
	for _, crd := range crds {
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			name, _, _ := unstructured.NestedString(v.(map[string]any), "name")
			d, ok := described[crd.GetName()+"/"+name+"/"+kind]
			if !ok {
				d = operatorsv1alpha1.CRDDescription{Name: crd.GetName(), Version: name, Kind: kind}
			}
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return version.CompareKubeAwareVersionStrings(out[i].Version, out[j].Version) > 0
	})
	return out
}

func almExamples(samples []*unstructured.Unstructured) (string, error) {
	examples := make([]json.RawMessage, 0, len(samples))
	for _, s := range samples {
		data, err := s.MarshalJSON()
		if err != nil {
			return "", err
		}
		examples = append(examples, data)
	}
	out, err := json.MarshalIndent(examples, "", "  ")
	return string(out), err
}

// manifestFileName names a bundle manifest as operator-sdk does: name_group_version_kind.yaml.
func manifestFileName(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	parts := []string{u.GetName()}
	if gvk.Group != "" {
		parts = append(parts, gvk.Group)
	}
	parts = append(parts, gvk.Version, strings.ToLower(gvk.Kind))
	return strings.Join(parts, "_") + ".yaml"
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}

func toUnstructured(obj any, kind string) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(rbacv1.SchemeGroupVersion.String())
	u.SetKind(kind)
	return u, nil
}

// writeYAML writes obj without the empty status and creation timestamps that typed objects
// carry, so that the files look like the ones operator-sdk writes.
func writeYAML(path string, obj any) error {
	m, ok := obj.(map[string]any)
	if !ok {
		var err error
		if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return err
		}
	}
	delete(m, "status")
	unstructured.RemoveNestedField(m, "metadata", "creationTimestamp")
	data, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func parseVersion(v string) (opversion.OperatorVersion, error) {
	sv, err := semver.Parse(v)
	if err != nil {
		return opversion.OperatorVersion{}, fmt.Errorf("version %q: %w", v, err)
	}
	return opversion.OperatorVersion{Version: sv}, nil
}
