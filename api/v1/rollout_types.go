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
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DeploymentStrategy is how a rollout replaces the app's pods.
// +kubebuilder:validation:XValidation:rule="!has(self.rollingUpdate) || self.type == 'RollingUpdate'",message="rollingUpdate goes with type RollingUpdate only",fieldPath=".rollingUpdate"
type DeploymentStrategy struct {
	// type is RollingUpdate or Recreate.
	// +optional
	// +kubebuilder:default=RollingUpdate
	// +kubebuilder:validation:Enum=RollingUpdate;Recreate
	Type appsv1.DeploymentStrategyType `json:"type,omitempty"`

	// rollingUpdate bounds a rolling update; unset, each bound is 25%.
	// +optional
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update, each as a number of pods or a percentage
// of replicas.
// +kubebuilder:validation:XValidation:rule="!has(self.maxUnavailable) || !has(self.maxSurge) || !(type(self.maxUnavailable) == int ? self.maxUnavailable == 0 : self.maxUnavailable.matches('^0+%$')) || !(type(self.maxSurge) == int ? self.maxSurge == 0 : self.maxSurge.matches('^0+%$'))",message="maxUnavailable and maxSurge cannot both be 0: the rollout could never start"
type RollingUpdateDeployment struct {
	// maxUnavailable is how many pods may be unavailable during the update, at most 100%.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^0*(100|[0-9]{1,2})%$')",message="maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// maxSurge is how many pods may run above replica during the update.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]{1,7}%$')",message="maxSurge must be a number of pods (0 or more) or a percentage"
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}
