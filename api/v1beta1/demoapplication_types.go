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

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/cmft/demo-operator/api/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replica,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:deprecatedversion:warning="paas.cmft.com/v1beta1 DemoApplication is deprecated: use paas.cmft.com/v1, which has the same schema"
// +kubebuilder:resource:shortName=demoapp;demoapps,categories=all
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Demo Application (v1beta1)",resources={{Deployment,v1},{Event,v1},{HTTPRoute,v1},{HorizontalPodAutoscaler,v2},{Ingress,v1},{NetworkPolicy,v1},{PodDisruptionBudget,v1},{Service,v1},{StatefulSet,v1}}
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))",optionalOldSelf=true,message="metadata.name must be at most 63 characters, start with a letter and hold only lowercase letters, digits and '-': it names the app's Service and is the value of its pods' labels"
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || self.spec.?workload.orValue('Deployment') != 'StatefulSet' || size(self.metadata.name) <= 52",optionalOldSelf=true,message="metadata.name must be at most 52 characters for a StatefulSet app: its pods' controller-revision-hash label adds 11 to the name"

// DemoApplication runs a container image as a Deployment, or a StatefulSet, exposed by a Service.
type DemoApplication struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec and Status are v1's types: v1beta1 serves the same schema, so the API server
	// converts between the versions by changing apiVersion alone, and operator-sdk's CSV
	// generator lists v1's spec and status descriptors for v1beta1 too.

	// spec is what the user declares.
	// +required
	Spec v1.DemoApplicationSpec `json:"spec"`

	// status is what the operator observed.
	// +optional
	Status v1.DemoApplicationStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DemoApplicationList is a list of DemoApplications.
type DemoApplicationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DemoApplication `json:"items"`
}
