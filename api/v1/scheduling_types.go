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
)

// Toleration lets the pods run on nodes with a matching taint.
// +kubebuilder:validation:XValidation:rule="!has(self.operator) || self.operator != 'Exists' || !has(self.value) || size(self.value) == 0",message="a toleration with operator Exists takes no value"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",message="tolerationSeconds goes with effect NoExecute only"
type Toleration struct {
	// key of the taint; required (see tolerations).
	// +optional
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Key string `json:"key,omitempty"`

	// operator is Equal (the default) or Exists (any value).
	// +optional
	// +kubebuilder:validation:Enum=Equal;Exists
	Operator corev1.TolerationOperator `json:"operator,omitempty"`

	// value of the taint, with operator Equal.
	// +optional
	Value LabelValue `json:"value,omitempty"`

	// effect of the taint tolerated; empty, all.
	// +optional
	// +kubebuilder:validation:Enum="";NoSchedule;PreferNoSchedule;NoExecute
	Effect corev1.TaintEffect `json:"effect,omitempty"`

	// tolerationSeconds is how long a pod stays once a NoExecute taint appears; unset, forever.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// TopologySpreadConstraint spreads the app's pods over the domains of a topology key.
// +kubebuilder:validation:XValidation:rule="!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",message="minDomains goes with whenUnsatisfiable DoNotSchedule only"
type TopologySpreadConstraint struct {
	// maxSkew is the most the app's pods may differ between two domains.
	// +required
	// +kubebuilder:validation:Minimum=1
	MaxSkew int32 `json:"maxSkew"`

	// topologyKey is the node label whose values are the domains.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="topologyKey must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	TopologyKey string `json:"topologyKey"`

	// whenUnsatisfiable is DoNotSchedule (a pod waits) or ScheduleAnyway.
	// +required
	// +kubebuilder:validation:Enum=DoNotSchedule;ScheduleAnyway
	WhenUnsatisfiable corev1.UnsatisfiableConstraintAction `json:"whenUnsatisfiable"`

	// minDomains is the fewest domains to spread over, with DoNotSchedule.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinDomains *int32 `json:"minDomains,omitempty"`
}

// Affinity is the scheduling affinity of the app's pods: a curated part of a pod's.
// +kubebuilder:validation:MinProperties=1
type Affinity struct {
	// nodeAffinity keeps the pods to nodes, or prefers some, by the nodes' labels.
	// +optional
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty"`

	// podAntiAffinity keeps the app's pods apart over topology domains.
	// +optional
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// NodeAffinity selects the nodes the pods run on by the nodes' labels.
// +kubebuilder:validation:MinProperties=1
type NodeAffinity struct {
	// requiredDuringSchedulingIgnoredDuringExecution: a node must match a term.
	// +optional
	RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// preferredDuringSchedulingIgnoredDuringExecution: the scheduler favours matching nodes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeSelector is a set of node selector terms, ORed.
type NodeSelector struct {
	// nodeSelectorTerms: a node matches when it matches any.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm is a set of requirements on a node's labels, ANDed.
type NodeSelectorTerm struct {
	// matchExpressions a node's labels must all meet.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions"`
}

// NodeSelectorRequirement is a requirement on a node label.
// +kubebuilder:validation:XValidation:rule="self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0 : true",message="operator In and NotIn need values"
// +kubebuilder:validation:XValidation:rule="self.operator in ['Exists', 'DoesNotExist'] ? !has(self.values) || size(self.values) == 0 : true",message="operator Exists and DoesNotExist take no values"
// +kubebuilder:validation:XValidation:rule="self.operator in ['Gt', 'Lt'] ? has(self.values) && size(self.values) == 1 && self.values[0].matches('^[0-9]{1,18}$') : true",message="operator Gt and Lt take one value, a whole number (a label value cannot start with a sign)"
type NodeSelectorRequirement struct {
	// key is the label's key.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Key string `json:"key"`

	// operator relates the label's value to values.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist;Gt;Lt
	Operator corev1.NodeSelectorOperator `json:"operator"`

	// values of the label, for In, NotIn, Gt and Lt.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Values []LabelValue `json:"values,omitempty"`
}

// PreferredSchedulingTerm is a weighted node selector term.
type PreferredSchedulingTerm struct {
	// weight of the term, from 1 to 100.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight"`

	// preference is the term a node matches.
	// +required
	Preference NodeSelectorTerm `json:"preference"`
}

// PodAntiAffinity keeps the app's own pods apart. Each term selects the app's pods: the
// operator sets its labelSelector.
// +kubebuilder:validation:MinProperties=1
type PodAntiAffinity struct {
	// requiredDuringSchedulingIgnoredDuringExecution: no two of the app's pods in one domain.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// preferredDuringSchedulingIgnoredDuringExecution: the scheduler keeps them apart by weight.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm names the domain the app's pods are kept apart in.
type PodAffinityTerm struct {
	// topologyKey is the node label whose value is the domain, such as kubernetes.io/hostname.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="topologyKey must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	TopologyKey string `json:"topologyKey"`
}

// WeightedPodAffinityTerm is a weighted PodAffinityTerm.
type WeightedPodAffinityTerm struct {
	// weight of the term, from 1 to 100.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight"`

	// podAffinityTerm names the topology domain.
	// +required
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}
