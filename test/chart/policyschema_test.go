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

package chart_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// fieldClass is a kind of field the platform's applicationPolicy must hold to what the
// platform allows, recognised in the CRD's schema by its path.
type fieldClass struct {
	name    string
	matches func(path []string, schema apiextensionsv1.JSONSchemaProps) bool
	// forbidden is a value the CRD accepts and the walk's policy (walkValues) refuses.
	forbidden any
	// keys says the policy holds a map's keys, not its values (node labels in nodeSelector).
	keys bool
}

// fieldClasses recognise, by name, every field that picks what an app's pods run (an
// image), where they run (a ServiceAccount, node labels, tolerations, a priority), where
// their data lives (a storage class), or how they are reached (a host, an ingress class, a
// node port, a Service type). Left out on
// purpose: topologyKey (it spreads the app's own pods, it selects no node) and
// httpRoute.parentRefs (which Gateways take the route is theirs to admit, by allowedRoutes).
var fieldClasses = []fieldClass{
	{name: "image", matches: named("image"), forbidden: "docker.io/library/nginx:1.27"},
	{name: "host", matches: named("host", "hosts", "hostname", "hostnames"), forbidden: "shop.example.org"},
	{name: "ServiceAccount", matches: named("serviceAccountName"), forbidden: "deployer"},
	{name: "node selector", matches: named("nodeSelector"), forbidden: "kubernetes.io/hostname", keys: true},
	{name: "node affinity key", matches: keyUnder("nodeAffinity"), forbidden: "kubernetes.io/hostname"},
	{name: "toleration", matches: keyUnder("tolerations"), forbidden: "example.com/gpu"},
	{name: "priority class", matches: named("priorityClassName"), forbidden: "urgent"},
	{name: "ingress class", matches: named("className", "ingressClassName"), forbidden: "internal"},
	{name: "storage class", matches: named("storageClassName"), forbidden: "fast"},
	{name: "node port", matches: named("nodePort"), forbidden: int64(30500)},
	{name: "Service type", matches: enumHas("LoadBalancer", "NodePort"), forbidden: "LoadBalancer"},
}

// walkValues turn on every rule of the policy a field class needs, in the namespace "walk".
const walkValues = `{watchNamespaces: [walk], applicationPolicy: {nodePortRange: {min: 30100, max: 30199}, denyLoadBalancers: true,
	allowedImageRegistries: [registry.example.com], allowedServiceAccounts: [default, web], allowedTolerations: [dedicated],
	allowedPriorityClasses: [high], allowedNodeSelectors: [example.com/pool], defaultIngressHostSuffixes: [example.com],
	allowedIngressClasses: [public], allowedStorageClasses: [standard]}}`

// compliantApps are apps walkValues' policy admits that set, between them, every field of
// fieldClasses to an allowed value (an Ingress and an HTTPRoute cannot go together).
func compliantApps() []*paasv1.DemoApplication {
	pool := []paasv1.NodeSelectorRequirement{{Key: "example.com/pool", Operator: corev1.NodeSelectorOpExists}}
	ingress := builder.DemoApplication("walk", "ingress", builder.Image("registry.example.com/web:1"))
	s := &ingress.Spec
	s.Ports[0].NodePort = ptr.To[int32](30150)
	s.Service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeNodePort}
	s.PodServices = &paasv1.PodServices{Enabled: true, Type: corev1.ServiceTypeNodePort}
	s.ServiceAccountName, s.PriorityClassName = "web", "high"
	s.NodeSelector = map[string]paasv1.LabelValue{"example.com/pool": "shop"}
	s.Tolerations = []paasv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  &paasv1.NodeSelector{NodeSelectorTerms: []paasv1.NodeSelectorTerm{{MatchExpressions: pool}}},
		PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.PreferredSchedulingTerm{{Weight: 1, Preference: paasv1.NodeSelectorTerm{MatchExpressions: pool}}},
	}}
	s.InitContainers = []paasv1.Container{{Name: "init", Image: "registry.example.com/init:1"}}
	s.Sidecars = []paasv1.Sidecar{{Container: paasv1.Container{Name: "proxy", Image: "registry.example.com/proxy:1"}}}
	s.Ingress = &paasv1.Ingress{Hosts: []string{"shop.example.com"}, ClassName: "public"}

	route := builder.DemoApplication("walk", "route", builder.Image("registry.example.com/web:1"))
	route.Spec.HTTPRoute = &paasv1.HTTPRoute{ParentRefs: []paasv1.GatewayReference{{Name: "gateway"}}, Hostnames: []string{"shop.example.com"}}
	stateful := builder.DemoApplication("walk", "stateful", builder.Image("registry.example.com/web:1"))
	stateful.Spec.Workload = paasv1.WorkloadStatefulSet
	stateful.Spec.StatefulSet = &paasv1.StatefulSetSettings{VolumeClaimTemplates: []paasv1.VolumeClaimTemplate{
		{Name: "data", MountPath: "/data", Size: resource.MustParse("1Gi"), StorageClassName: ptr.To("standard")}}}
	return []*paasv1.DemoApplication{ingress, route, stateful}
}

// TestApplicationPolicyCoversTheSchema walks the CRD's schema, in each version it serves, for
// the fields of fieldClasses, and proves on a real API server that the chart's policy holds
// each: an app the policy admits, with that field alone set to what the platform forbids, is
// refused, the refusal naming the field. A field the CRD gains that carries an image, a host,
// or any other class fails here until the policy checks it and compliantApps sets it.
func TestApplicationPolicyCoversTheSchema(t *testing.T) {
	crd := testenv.DemoApplicationCRD(t)

	c := startCluster(t)
	ctx := context.Background()
	rel, err := renderRelease(t, loadChart(t), "walk", values(t, walkValues))
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	for key, obj := range parseManifest(t, rel.Manifest) {
		if obj.GetKind() == "CustomResourceDefinition" || obj.GetName() == "walk-demo-operator-application-policy" {
			NewWithT(t).Expect(c.admin.Create(ctx, obj)).To(Succeed(), key)
		}
	}
	c.namespace(t, "walk")

	for _, version := range crd.Spec.Versions {
		t.Run(version.Name, func(t *testing.T) {
			fields := policedFields(version.Schema.OpenAPIV3Schema.Properties["spec"], []string{"spec"})
			for _, class := range fieldClasses {
				NewWithT(t).Expect(slices.ContainsFunc(fields, func(f policedField) bool { return f.class.name == class.name })).To(BeTrue(),
					"no field of the schema is a %s: has the field been renamed? fieldClasses must find it", class.name)
			}
			compliant := compliantApps()
			apps := make([]*unstructured.Unstructured, 0, len(compliant))
			for _, app := range compliant {
				object, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
				NewWithT(t).Expect(err).NotTo(HaveOccurred())
				u := &unstructured.Unstructured{Object: object}
				u.SetAPIVersion(paasv1.GroupVersion.Group + "/" + version.Name)
				u.SetKind("DemoApplication")
				apps = append(apps, u)
			}
			// The API server serves the CRD, and loads a new policy, a moment after they are created.
			NewWithT(t).Eventually(func() error {
				return c.admin.Create(ctx, withField(apps[0], policedField{path: []string{"spec", "image"}, class: fieldClasses[0]}), client.DryRunAll)
			}, 30*time.Second, 100*time.Millisecond).Should(Satisfy(apierrors.IsForbidden))
			for _, app := range apps {
				NewWithT(t).Expect(c.admin.Create(ctx, app.DeepCopy(), client.DryRunAll)).To(Succeed(), "the compliant app %s", app.GetName())
			}

			for _, f := range fields {
				t.Run(f.name(), func(t *testing.T) {
					g := NewWithT(t)
					tried := 0
					for _, app := range apps {
						changed := withField(app, f)
						if changed == nil {
							continue
						}
						tried++
						err := c.admin.Create(ctx, changed, client.DryRunAll)
						g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the policy let %s (%s) be %v: %v", f.name(), f.class.name, f.class.forbidden, err)
						g.Expect(err).To(MatchError(ContainSubstring("denied request: " + f.name() + ": ")))
					}
					g.Expect(tried).NotTo(BeZero(), "no app of compliantApps sets %s, a %s: set it there, and have the policy check it", f.name(), f.class.name)
				})
			}
		})
	}
}

// policedField is a field of the CRD's schema of one of fieldClasses.
type policedField struct {
	// path holds property names, "[]" for a list's items and "{}" for a map's values.
	path  []string
	class fieldClass
}

// name is the field as the policy's messages name it: spec.ports[].nodePort, and a list of
// values or a map by its own name (spec.ingress.hosts, spec.nodeSelector).
func (f policedField) name() string {
	var b strings.Builder
	for i, p := range f.path {
		rest := f.path[i:]
		if !slices.ContainsFunc(rest, func(s string) bool { return s != "[]" && s != "{}" }) {
			break
		}
		if i > 0 && p != "[]" {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// policedFields returns the leaves of schema, at path, that one of fieldClasses matches.
func policedFields(schema apiextensionsv1.JSONSchemaProps, path []string) []policedField {
	var out []policedField
	switch {
	case len(schema.Properties) > 0:
		for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
			out = append(out, policedFields(schema.Properties[name], append(slices.Clone(path), name))...)
		}
	case schema.Items != nil && schema.Items.Schema != nil:
		out = policedFields(*schema.Items.Schema, append(slices.Clone(path), "[]"))
	case schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
		out = policedFields(*schema.AdditionalProperties.Schema, append(slices.Clone(path), "{}"))
	default:
		for _, class := range fieldClasses {
			if class.matches(path, schema) {
				out = append(out, policedField{path: path, class: class})
			}
		}
	}
	return out
}

// withField returns a copy of app with every value at f's path set to f's forbidden value,
// or nil when app has nothing there.
func withField(app *unstructured.Unstructured, f policedField) *unstructured.Unstructured {
	changed := app.DeepCopy()
	if set(changed.Object, f.path, f.class.forbidden, f.class.keys) == 0 {
		return nil
	}
	return changed
}

// set changes what obj holds at path to value (with keys, the keys of the map there) and
// returns how many it changed.
func set(obj any, path []string, value any, keys bool) int {
	last := len(path) == 1
	switch o := obj.(type) {
	case map[string]any:
		if path[0] != "{}" {
			child, ok := o[path[0]]
			switch {
			case !ok:
				return 0
			case last:
				o[path[0]] = value
				return 1
			}
			return set(child, path[1:], value, keys)
		}
		n := 0
		for _, k := range slices.Sorted(maps.Keys(o)) {
			switch {
			case last && keys:
				o[value.(string)] = o[k]
				if k != value {
					delete(o, k)
				}
				n++
			case last:
				o[k] = value
				n++
			default:
				n += set(o[k], path[1:], value, keys)
			}
		}
		return n
	case []any:
		if path[0] != "[]" {
			return 0
		}
		n := 0
		for i := range o {
			if last {
				o[i] = value
				n++
			} else {
				n += set(o[i], path[1:], value, keys)
			}
		}
		return n
	}
	return 0
}

// propertyName returns the last property name of path, past a list's items or a map's values.
func propertyName(path []string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] != "[]" && path[i] != "{}" {
			return path[i]
		}
	}
	return ""
}

// named matches a field whose property has one of names.
func named(names ...string) func([]string, apiextensionsv1.JSONSchemaProps) bool {
	return func(path []string, _ apiextensionsv1.JSONSchemaProps) bool {
		return slices.Contains(names, propertyName(path))
	}
}

// keyUnder matches a field key anywhere under a property named parent.
func keyUnder(parent string) func([]string, apiextensionsv1.JSONSchemaProps) bool {
	return func(path []string, _ apiextensionsv1.JSONSchemaProps) bool {
		return propertyName(path) == "key" && slices.Contains(path, parent)
	}
}

// enumHas matches a field whose enum holds one of values.
func enumHas(values ...string) func([]string, apiextensionsv1.JSONSchemaProps) bool {
	return func(_ []string, schema apiextensionsv1.JSONSchemaProps) bool {
		return slices.ContainsFunc(schema.Enum, func(v apiextensionsv1.JSON) bool {
			return slices.Contains(values, strings.Trim(string(v.Raw), `"`))
		})
	}
}
