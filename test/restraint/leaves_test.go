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

package restraint

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// leaf says where a field the operator writes gets its value, and so what must hold it.
type leaf struct {
	pattern string
	kind    leafKind
	// from is the DemoApplication field a tenant leaf copies; why says why a free leaf may
	// take any value.
	from, why string
	// by is the value an attacker writes instead of the operator's, when the generic change
	// (a suffix, a negation, one more) would be refused by the API server's own validation.
	by any
}

type leafKind int

const (
	// pinnedLeaf: the operator writes one value; the restraint refuses any other.
	pinnedLeaf leafKind = iota
	// apiLeaf: the operator writes one value, and the API server's own validation refuses any
	// other before admission (a Deployment's template labels must match its selector, which
	// the restraint pins).
	apiLeaf
	// tenantLeaf: copied from a field of the DemoApplication, which a tenant may set to what
	// the CRD admits.
	tenantLeaf
	// freeLeaf: the operator's bookkeeping, whose value gives nobody anything.
	freeLeaf
)

func pinned(pattern string, by ...any) leaf {
	l := leaf{pattern: pattern, kind: pinnedLeaf}
	if len(by) > 0 {
		l.by = by[0]
	}
	return l
}
func heldByAPI(pattern string) leaf    { return leaf{pattern: pattern, kind: apiLeaf} }
func tenant(pattern, from string) leaf { return leaf{pattern: pattern, kind: tenantLeaf, from: from} }
func free(pattern, why string) leaf    { return leaf{pattern: pattern, kind: freeLeaf, why: why} }

// leaves classifies every field the operator writes, by kind, in order: the first pattern that
// matches a field's path (list keys as [], * for any map key or rest of a path) says what it is.
// A field the operator writes that no pattern matches fails TestEveryLeafIsHeld: a builder that
// grows one must say whether it is pinned (and config/restraint must then refuse any other
// value) or the app's (naming the spec field it copies).
var leaves = map[string][]leaf{
	"Deployment": append(workload(),
		tenant(".spec.strategy*", "spec.strategy"),
	),
	// The selector, the claim templates, the governing Service and the pod management a
	// StatefulSet keeps as it was made: the API server refuses a change of them, and
	// config/restraint holds them on a create (TestStatefulSets).
	"StatefulSet": append(workload(),
		heldByAPI(".spec.serviceName"),
		tenant(".spec.volumeClaimTemplates*", "spec.statefulSet.volumeClaimTemplates"),
		tenant(".spec.podManagementPolicy", "spec.statefulSet.podManagementPolicy"),
		tenant(".spec.persistentVolumeClaimRetentionPolicy*", "spec.statefulSet.persistentVolumeClaimRetentionPolicy"),
		tenant(".spec.updateStrategy.rollingUpdate.partition", "spec.statefulSet.partition"),
		// OnDelete, the other type, goes without the rollingUpdate the operator writes beside it.
		heldByAPI(".spec.updateStrategy.type"),
	),
	"Service": append(objectMeta(),
		pinned(".metadata.labels.paas.cmft.com/pod-service"),
		tenant(".metadata.annotations.*", "spec.service.annotations"),
		pinned(".spec.selector.*"),
		// A governing Service's None: a Service's cluster IP cannot change.
		heldByAPI(".spec.clusterIP"),
		tenant(".spec.type", "spec.service.type"),
		tenant(".spec.ports*", "spec.ports"),
	),
	"Ingress": append(objectMeta(),
		tenant(".metadata.annotations.*", "spec.ingress.annotations"),
		tenant(".spec.ingressClassName", "spec.ingress.className"),
		tenant(".spec.tls*", "spec.ingress.tlsSecretName"),
		tenant(".spec.rules[].host", "spec.ingress.hosts"),
		pinned(".spec.rules[].http.paths[].backend.service.name"),
		tenant(".spec.rules[].http.paths[].*", "spec.ingress.paths"),
		tenant(".spec.rules[].http*", "spec.ingress.paths"),
	),
	"HTTPRoute": append(objectMeta(),
		tenant(".spec.parentRefs*", "spec.httpRoute.parentRefs"),
		tenant(".spec.hostnames*", "spec.httpRoute.hostnames"),
		pinned(".spec.rules[].backendRefs[].name"),
		pinned(".spec.rules[].backendRefs[].kind", "Gateway"),
		pinned(".spec.rules[].backendRefs[].group", "example.com"),
		tenant(".spec.rules[].backendRefs[].port", "spec.httpRoute.paths"),
		tenant(".spec.rules[].*", "spec.httpRoute.paths"),
	),
	"HorizontalPodAutoscaler": append(objectMeta(),
		pinned(".spec.scaleTargetRef.apiVersion", "apps/v1beta2"),
		pinned(".spec.scaleTargetRef.kind", "ReplicaSet"),
		pinned(".spec.scaleTargetRef.name"),
		tenant(".spec.minReplicas", "spec.autoscaling.minReplicas"),
		tenant(".spec.maxReplicas", "spec.autoscaling.maxReplicas"),
		tenant(".spec.metrics*", "spec.autoscaling.targetCPUUtilizationPercentage"),
		tenant(".spec.behavior*", "spec.autoscaling.behavior"),
	),
	"PodDisruptionBudget": append(objectMeta(),
		pinned(".spec.selector.*"),
		pinned(".spec.unhealthyPodEvictionPolicy", "IfHealthyBudget"),
		tenant(".spec.minAvailable", "spec.disruptionBudget.minAvailable"),
		tenant(".spec.maxUnavailable", "spec.disruptionBudget.maxUnavailable"),
	),
	"NetworkPolicy": append(objectMeta(),
		pinned(".spec.podSelector.*"),
		pinned(".spec.policyTypes*", "Egress"),
		tenant(".spec.ingress[].from*", "spec.networkPolicy.from"),
		tenant(".spec.ingress[].ports*", "spec.ports"),
	),
}

// workload is what a Deployment and a StatefulSet carry alike: their name, labels and
// controller, and their pods, replicas and history.
func workload() []leaf {
	return append(objectMeta(),
		heldByAPI(".spec.selector.*"),
		heldByAPI(".spec.template.metadata.labels.app.kubernetes.io/name"),
		heldByAPI(".spec.template.metadata.labels.paas.cmft.com/demoapplication"),
		free(".metadata.annotations.paas.cmft.com/defaults", "which defaults the pod template has: another value makes the operator rebuild it"),
		free(".metadata.labels.paas.cmft.com/configmaps-hash", "the ConfigMaps' hash of the template's config hash: another rolls the pods once at most"),
		free(".spec.template.metadata.annotations.paas.cmft.com/config-hash", "a hash of what the pods read: another value rolls them once"),
		free(".spec.template.metadata.annotations.padok.fr/add-pod-name-label",
			"the pods' opt-in to their per-pod Services: another value only takes those away"),
		tenant(".spec.template.metadata.labels.*", "spec.podLabels"),
		tenant(".spec.template.metadata.annotations.*", "spec.podAnnotations"),
		tenant(".spec.replicas", "spec.replica"),
		tenant(".spec.revisionHistoryLimit", "spec.revisionHistoryLimit"),
		pinned(".spec.template.spec.containers[].name", "miner"),
		tenant(".spec.template.spec.containers[].image", "spec.image"),
		tenant(".spec.template.spec.containers[].securityContext*", "spec.securityContext"),
		tenant(".spec.template.spec.containers[].*", "spec"),
		tenant(".spec.template.spec.initContainers[].securityContext*", "spec.sidecars"),
		tenant(".spec.template.spec.initContainers[].*", "spec.initContainers"),
		tenant(".spec.template.spec.volumes*", "spec.volumes"),
		tenant(".spec.template.spec.serviceAccountName", "spec.serviceAccountName"),
		tenant(".spec.template.spec.serviceAccount", "spec.serviceAccountName"),
		tenant(".spec.template.spec.nodeSelector*", "spec.nodeSelector"),
		tenant(".spec.template.spec.tolerations*", "spec.tolerations"),
		pinned(".spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.labelSelector.*"),
		pinned(".spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].labelSelector.*"),
		tenant(".spec.template.spec.affinity*", "spec.affinity"),
		pinned(".spec.template.spec.topologySpreadConstraints[].labelSelector.*"),
		tenant(".spec.template.spec.topologySpreadConstraints*", "spec.topologySpreadConstraints"),
		tenant(".spec.template.spec.imagePullSecrets*", "spec.imagePullSecrets"),
		tenant(".spec.template.spec.automountServiceAccountToken", "spec.automountServiceAccountToken"),
		tenant(".spec.minReadySeconds", "spec.minReadySeconds"),
		tenant(".spec.template.spec.priorityClassName", "spec.priorityClassName"),
		tenant(".spec.template.spec.terminationGracePeriodSeconds", "spec.terminationGracePeriodSeconds"),
		tenant(".spec.template.spec.securityContext*", "spec.podSecurityContext"),
	)
}

// objectMeta is what every object the operator writes carries: its name, labels and controller.
func objectMeta() []leaf {
	return []leaf{
		pinned(".metadata.name"),
		pinned(".metadata.namespace"),
		pinned(".apiVersion", "v1beta1"),
		pinned(".kind"),
		pinned(".metadata.labels.app.kubernetes.io/managed-by"),
		pinned(".metadata.labels.app.kubernetes.io/name"),
		pinned(".metadata.labels.paas.cmft.com/demoapplication"),
		pinned(".metadata.ownerReferences[].apiVersion", "paas.cmft.com/v1beta1"),
		pinned(".metadata.ownerReferences[].kind", "ConfigMap"),
		pinned(".metadata.ownerReferences[].name"),
		pinned(".metadata.ownerReferences[].uid", "00000000-0000-0000-0000-000000000001"),
		pinned(".metadata.ownerReferences[].controller"),
		free(".metadata.ownerReferences[].blockOwnerDeletion", "it only orders the garbage collector's foreground deletion"),
	}
}

var listKey = regexp.MustCompile(`\[[^\]]*\]`)

// classify returns the leaf that says what the field at path is, for an object of kind.
func classify(kind string, path fieldpath.Path) (leaf, bool) {
	p := listKey.ReplaceAllString(path.String(), "[]")
	for _, l := range leaves[kind] {
		if prefix, ok := strings.CutSuffix(l.pattern, "*"); ok && strings.HasPrefix(p, prefix) || p == l.pattern {
			return l, true
		}
	}
	return leaf{}, false
}

// TestEveryLeafIsHeld takes every field the running operator wrote, under its field manager, for
// the DemoApplications that ask for every feature, and for each one it pins writes another
// value with the operator's token: the restraint must refuse each. The fields that copy the
// app's spec must name a field the CRD has. A builder that writes a field no entry of leaves
// knows fails here, until the field is classified and, when pinned, held by config/restraint.
func TestEveryLeafIsHeld(t *testing.T) {
	ns := testenv.NewNamespace(t, admin, "leaves-")
	w := newWeb(t, ns)
	// Past OwnerReferencesPermissionEnforcement, which refuses a change of owners to a writer that
	// may not delete the object (the operator never deletes Deployments nor StatefulSets), where it runs.
	grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets"}, Verbs: []string{"delete"}})
	schema := crdSchema(t)
	counts := map[string]int{}
	var held int
	for _, obj := range w.objects() {
		u := &unstructured.Unstructured{}
		var err error
		u.Object, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		if kind == "" {
			kind = strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
			kind = kind[strings.LastIndex(kind, ".")+1:]
		}
		u.SetKind(kind)
		for _, path := range scalarLeaves(u.Object, operatorFields(t, obj)) {
			counts[kind]++
			name := fmt.Sprintf("%s %s %s", kind, obj.GetName(), path)
			l, ok := classify(kind, path)
			switch {
			case !ok:
				t.Errorf("%s: the operator writes a field that TestEveryLeafIsHeld's leaves do not classify: "+
					"pin it (and hold it in config/restraint) or name the spec field it copies", name)
				continue
			case l.pattern == ".apiVersion" || l.pattern == ".kind":
				// The request's kind and version route it to the policy: another is another object.
				continue
			case l.kind == tenantLeaf:
				if !hasField(schema, l.from) {
					t.Errorf("%s: copies %s, which the CRD does not have", name, l.from)
				}
				continue
			case l.kind == freeLeaf:
				continue
			}
			held++
			t.Run(name, func(t *testing.T) {
				g := NewWithT(t)
				changed := u.DeepCopy()
				g.Expect(mutate(changed.Object, path, l.by)).To(Succeed())
				typed := obj.DeepCopyObject().(client.Object)
				g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(changed.Object, typed)).To(Succeed())
				err := write(typed, asOperator)
				g.Expect(err).To(HaveOccurred(), "admitted: the operator's token wrote another value of a field the operator pins")
				if l.kind == pinnedLeaf {
					g.Expect(err.Error()).To(ContainSubstring("ValidatingAdmissionPolicy"),
						"refused by the API server's own validation: give the leaf a valid value (by) that proves the restraint holds it")
				}
			})
		}
	}
	// The table of owned kinds is what the operator writes: a kind added there must be written
	// above, by an app that asks for it, and its fields classified in leaves.
	for _, k := range demoapplication.OwnedKinds() {
		if _, ok := leaves[k.Kind]; !ok || counts[k.Kind] == 0 {
			t.Errorf("%s, a kind the operator owns (demoapplication.OwnedKinds), has no leaves or no object written here: "+
				"give newWeb's apps one and classify its fields", k.Kind)
		}
	}
	t.Logf("fields the operator writes, by kind: %v; %d pinned, each written with another value", counts, held)
}

// scalarLeaves returns the path of every scalar under the leaves of written in obj: the fields
// of an atomic struct or list (a label selector, an Ingress's rules) each count, by index in a list.
func scalarLeaves(obj map[string]any, written *fieldpath.Set) []fieldpath.Path {
	var out []fieldpath.Path
	var walk func(path fieldpath.Path, v any)
	walk = func(path fieldpath.Path, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, item := range v {
				walk(append(path.Copy(), fieldpath.PathElement{FieldName: &k}), item)
			}
		case []any:
			for i, item := range v {
				walk(append(path.Copy(), fieldpath.PathElement{Index: &i}), item)
			}
		default:
			out = append(out, path)
		}
	}
	written.Iterate(func(path fieldpath.Path) {
		if v, err := at(obj, path); err == nil {
			walk(path.Copy(), v)
		} else {
			out = append(out, path)
		}
	})
	return out
}

// operatorFields returns the leaves obj's operator-owned managedFields entry names.
func operatorFields(t *testing.T, obj client.Object) *fieldpath.Set {
	for _, e := range obj.GetManagedFields() {
		if e.Manager == wellknown.FieldManager && e.Subresource == "" && e.FieldsV1 != nil {
			set := &fieldpath.Set{}
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
				t.Fatal(err)
			}
			return set.Leaves()
		}
	}
	t.Fatalf("%s %s: no managedFields entry of %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), wellknown.FieldManager)
	return nil
}

// at returns the value at path in obj.
func at(obj map[string]any, path fieldpath.Path) (any, error) {
	v, _, err := locate(obj, path)
	return v, err
}

// mutate changes the value at path in obj: to by when set, else in the generic way.
func mutate(obj map[string]any, path fieldpath.Path, by any) error {
	current, set, err := locate(obj, path)
	if err != nil {
		return err
	}
	if by != nil {
		set(by)
		return nil
	}
	switch v := current.(type) {
	case string:
		set(v + "-x")
	case bool:
		set(!v)
	case int64:
		set(v + 1)
	case float64:
		set(v + 1)
	case map[string]any:
		v["x"] = "y"
	case []any:
		set(append(slices.Clone(v), v[0]))
	default:
		return fmt.Errorf("%s: no change for a %T", path, current)
	}
	return nil
}

// locate returns the value at path in obj and a function that replaces it.
func locate(obj map[string]any, path fieldpath.Path) (any, func(any), error) {
	var set func(any)
	var current any = obj
	for _, pe := range path {
		switch {
		case pe.FieldName != nil:
			m, ok := current.(map[string]any)
			if !ok {
				return nil, nil, fmt.Errorf("%s: not a map at %s", path, pe)
			}
			name := *pe.FieldName
			set = func(v any) { m[name] = v }
			current = m[name]
		case pe.Key != nil || pe.Value != nil || pe.Index != nil:
			list, ok := current.([]any)
			if !ok {
				return nil, nil, fmt.Errorf("%s: not a list at %s", path, pe)
			}
			i := slices.IndexFunc(list, func(item any) bool { return matches(pe, item) })
			if pe.Index != nil {
				i = *pe.Index
			}
			if i < 0 || i >= len(list) {
				return nil, nil, fmt.Errorf("%s: no item %s", path, pe)
			}
			set = func(v any) { list[i] = v }
			current = list[i]
		}
	}
	return current, set, nil
}

// matches says whether item is the list element pe names, by its key fields or its value.
func matches(pe fieldpath.PathElement, item any) bool {
	if pe.Value != nil {
		return value.Equals(*pe.Value, value.NewValueInterface(item))
	}
	m, ok := item.(map[string]any)
	if !ok || pe.Key == nil {
		return false
	}
	for _, f := range *pe.Key {
		if !value.Equals(f.Value, value.NewValueInterface(m[f.Name])) {
			return false
		}
	}
	return true
}

// crdSchema is the storage version's schema of the DemoApplication CRD that config/ installs.
func crdSchema(t *testing.T) *apiextensionsv1.JSONSchemaProps {
	for _, v := range testenv.DemoApplicationCRD(t).Spec.Versions {
		if v.Storage {
			return v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatal("no storage version in the CRD")
	return nil
}

// hasField says whether the dotted path names a field of schema.
func hasField(schema *apiextensionsv1.JSONSchemaProps, path string) bool {
	for _, name := range strings.Split(path, ".") {
		for schema.Items != nil && schema.Items.Schema != nil {
			schema = schema.Items.Schema
		}
		next, ok := schema.Properties[name]
		if !ok {
			return false
		}
		schema = &next
	}
	return true
}
