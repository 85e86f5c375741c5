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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Autoscaling scales the app's pods with their resource use.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
// +kubebuilder:validation:XValidation:rule="has(self.targetCPUUtilizationPercentage) || has(self.targetMemoryUtilizationPercentage)",message="autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage"
type Autoscaling struct {
	// minReplicas is the fewest pods the autoscaler keeps.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Minimum Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the most pods the autoscaler runs.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Maximum Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MaxReplicas int32 `json:"maxReplicas"`

	// targetCPUUtilizationPercentage is the average CPU use aimed at, as a percentage of the
	// CPU request.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`

	// targetMemoryUtilizationPercentage is the average memory use aimed at, as a percentage of
	// the memory request.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	TargetMemoryUtilizationPercentage *int32 `json:"targetMemoryUtilizationPercentage,omitempty"`

	// behavior is how fast the autoscaler scales down and up; unset, its defaults.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaling Behavior"
	Behavior *AutoscalingBehavior `json:"behavior,omitempty"`
}

// AutoscalingBehavior is how fast the autoscaler scales down and up: a curated part of a
// HorizontalPodAutoscaler's behavior.
// +kubebuilder:validation:MinProperties=1
type AutoscalingBehavior struct {
	// scaleDown bounds scaling down; unset, the autoscaler's own.
	// +optional
	ScaleDown *ScalingRules `json:"scaleDown,omitempty"`

	// scaleUp bounds scaling up; unset, the autoscaler's own.
	// +optional
	ScaleUp *ScalingRules `json:"scaleUp,omitempty"`
}

// ScalingRules bound scaling in one direction.
// +kubebuilder:validation:MinProperties=1
type ScalingRules struct {
	// stabilizationWindowSeconds is how far back the autoscaler looks, so that replicas do not
	// flap.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty"`

	// selectPolicy picks among policies: Max (the default), Min, or Disabled.
	// +optional
	// +kubebuilder:validation:Enum=Max;Min;Disabled
	SelectPolicy *autoscalingv2.ScalingPolicySelect `json:"selectPolicy,omitempty"`

	// policies each bound the change over a period.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	Policies []ScalingPolicy `json:"policies,omitempty"`
}

// ScalingPolicy bounds the change over a period.
type ScalingPolicy struct {
	// type is Pods or Percent.
	// +required
	// +kubebuilder:validation:Enum=Pods;Percent
	Type autoscalingv2.HPAScalingPolicyType `json:"type"`

	// value is the number of pods, or the percentage, the change may reach.
	// +required
	// +kubebuilder:validation:Minimum=1
	Value int32 `json:"value"`

	// periodSeconds is the period.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1800
	PeriodSeconds int32 `json:"periodSeconds"`
}

// DisruptionBudget bounds the app's pods a voluntary disruption may take down: exactly one
// of minAvailable and maxUnavailable, each a number of pods or a percentage of them.
// +kubebuilder:validation:XValidation:rule="has(self.minAvailable) != has(self.maxUnavailable)",message="spec.disruptionBudget takes exactly one of minAvailable and maxUnavailable"
type DisruptionBudget struct {
	// minAvailable is how many pods must stay available: fewer than the app's fewest pods (a
	// percentage is rounded up), so that a drain can always take one.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^0*(100|[0-9]{1,2})%$')",message="spec.disruptionBudget.minAvailable must be a number of pods (0 or more) or a percentage up to 100%"
	// +kubebuilder:validation:XValidation:rule="type(self) == int || !self.matches('^0*100%$')",message="spec.disruptionBudget.minAvailable cannot be 100%: a budget that keeps every pod refuses every eviction, and node drains wait forever; lower it, or set maxUnavailable instead"
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`

	// maxUnavailable is how many pods may be unavailable: 1 or more, or above 0%.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^0*(100|[0-9]{1,2})%$')",message="spec.disruptionBudget.maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%"
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self != 0 : !self.matches('^0+%$')",message="spec.disruptionBudget.maxUnavailable cannot be 0 or 0%: a budget that lets no pod go refuses every eviction, and node drains wait forever; set 1 or more, or remove disruptionBudget for the default of 1"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}
