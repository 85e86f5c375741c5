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

package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceRequirements are the compute resources of the application's container: cpu,
// memory, ephemeral-storage and extended resources (a domain-qualified name such as
// example.com/gpu, a whole number, limited, and requested as much as limited), each request at
// most its limit.
// +kubebuilder:validation:XValidation:rule="[has(self.requests) ? self.requests : {}, has(self.limits) ? self.limits : {}].all(m, m.all(k, k in ['cpu', 'memory', 'ephemeral-storage'] || (k.contains('/') && !k.startsWith('kubernetes.io/') && !k.startsWith('requests.'))))",message="resources may name cpu, memory, ephemeral-storage and domain-qualified extended resources (example.com/gpu)"
// +kubebuilder:validation:XValidation:rule="[has(self.requests) ? self.requests : {}, has(self.limits) ? self.limits : {}].all(m, m.all(k, !string(m[k]).startsWith('-')))",message="resource quantities must not be negative"
// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || self.requests.all(k, !(k in self.limits) || quantity(string(self.requests[k])).compareTo(quantity(string(self.limits[k]))) <= 0)",message="a resource's request must not exceed its limit"
// +kubebuilder:validation:XValidation:rule="[has(self.requests) ? self.requests : {}, has(self.limits) ? self.limits : {}].all(m, m.all(k, !k.contains('/') || (quantity(string(m[k])).isInteger() && has(self.limits) && k in self.limits && (!has(self.requests) || !(k in self.requests) || quantity(string(self.requests[k])).compareTo(quantity(string(self.limits[k]))) == 0))))",message="an extended resource must be a whole number, limited, and requested as much as limited"
type ResourceRequirements struct {
	// limits are the most the container may use.
	// +optional
	// +kubebuilder:validation:MaxProperties=6
	Limits corev1.ResourceList `json:"limits,omitempty"`

	// requests are what the container is scheduled with; a request left out is its limit.
	// +optional
	// +kubebuilder:validation:MaxProperties=6
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// ObjectName is the name of an object in the app's namespace (a ConfigMap, a Secret, a
// ServiceAccount, a PersistentVolumeClaim): a DNS subdomain.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
type ObjectName string

// LabelValue is the value of a label.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// LocalObjectReference names an object in the app's namespace.
type LocalObjectReference struct {
	// name of the object.
	// +required
	Name ObjectName `json:"name"`
}

// LabelSelector selects objects by their labels: all of matchLabels and matchExpressions
// must hold; empty, it selects everything.
type LabelSelector struct {
	// matchLabels are labels the objects must carry, with these values.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="matchLabels keys must be label keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`

	// matchExpressions are requirements on the objects' labels.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is a requirement on one label.
// +kubebuilder:validation:XValidation:rule="self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0 : !has(self.values) || size(self.values) == 0",message="operator In and NotIn need values; Exists and DoesNotExist take none"
type LabelSelectorRequirement struct {
	// key of the label.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Key string `json:"key"`

	// operator: In, NotIn, Exists or DoesNotExist.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator metav1.LabelSelectorOperator `json:"operator"`

	// values of the label, for In and NotIn.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	Values []LabelValue `json:"values,omitempty"`
}
