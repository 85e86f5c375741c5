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
	"k8s.io/apimachinery/pkg/api/resource"
)

// Container is an init container: the app container's fields that a helper needs.
type Container struct {
	// name of the container, unique in the pod and not app.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'app'",message="a container's name cannot be app: the app's container has it"
	Name string `json:"name"`

	// image is the container image to run.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.trim() == self",message="image must not have leading or trailing spaces"
	Image string `json:"image"`

	// command replaces the image's entrypoint; $(VAR) names a variable of env.
	// +optional
	// +listType=atomic
	Command []string `json:"command,omitempty"`

	// args replace the image's command (its CMD); $(VAR) names a variable of env.
	// +optional
	// +listType=atomic
	Args []string `json:"args,omitempty"`

	// env lists environment variables set in the container.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	Env []EnvVar `json:"env,omitempty"`

	// envFrom sets a variable for each key of a ConfigMap or Secret, before env, which wins.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	EnvFrom []EnvFromSource `json:"envFrom,omitempty"`

	// resources of the container: cpu, memory and ephemeral-storage.
	// +optional
	Resources *ContainerResources `json:"resources,omitempty"`

	// securityContext is the container's, defaulted as the app's container's is.
	// +optional
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`

	// volumeMounts mount volumes of spec.volumes, each at its own path.
	// +optional
	// +listType=map
	// +listMapKey=mountPath
	// +kubebuilder:validation:MaxItems=16
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty"`
}

// ContainerResources are the compute resources of an init container or a sidecar: cpu,
// memory and ephemeral-storage (extended resources are for the app's container), each
// request at most its limit.
// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || !has(self.requests.cpu) || !has(self.limits.cpu) || quantity(string(self.requests.cpu)).compareTo(quantity(string(self.limits.cpu))) <= 0",message="requests.cpu must not exceed limits.cpu"
// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || !has(self.requests.memory) || !has(self.limits.memory) || quantity(string(self.requests.memory)).compareTo(quantity(string(self.limits.memory))) <= 0",message="requests.memory must not exceed limits.memory"
// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || !has(self.requests.ephemeral__dash__storage) || !has(self.limits.ephemeral__dash__storage) || quantity(string(self.requests.ephemeral__dash__storage)).compareTo(quantity(string(self.limits.ephemeral__dash__storage))) <= 0",message="requests.ephemeral-storage must not exceed limits.ephemeral-storage"
type ContainerResources struct {
	// limits are the most the container may use.
	// +optional
	Limits *ResourceAmounts `json:"limits,omitempty"`

	// requests are what the container is scheduled with; a request left out is its limit.
	// +optional
	Requests *ResourceAmounts `json:"requests,omitempty"`
}

// ResourceAmounts are amounts of cpu, memory and ephemeral-storage, none negative.
type ResourceAmounts struct {
	// cpu, in cores: 500m is half a core.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self).startsWith('-')",message="cpu must not be negative"
	CPU *resource.Quantity `json:"cpu,omitempty"`

	// memory, in bytes: 128Mi.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self).startsWith('-')",message="memory must not be negative"
	Memory *resource.Quantity `json:"memory,omitempty"`

	// ephemeral-storage, in bytes: writable layer and logs.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self).startsWith('-')",message="ephemeral-storage must not be negative"
	EphemeralStorage *resource.Quantity `json:"ephemeral-storage,omitempty"`
}

// Sidecar is a Container with probes; having no ports, its probes give ports by number.
type Sidecar struct {
	Container `json:",inline"`

	// readinessProbe tells when the sidecar is ready, which the pod's readiness needs.
	// +optional
	// +kubebuilder:validation:XValidation:rule="(!has(self.httpGet) || type(self.httpGet.port) == int) && (!has(self.tcpSocket) || type(self.tcpSocket.port) == int)",message="a sidecar's readinessProbe must give its port by number: a sidecar has no named ports"
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`

	// livenessProbe tells when the sidecar must be restarted.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.successThreshold) || self.successThreshold <= 1",message="a livenessProbe's successThreshold must be 1",fieldPath=".successThreshold"
	// +kubebuilder:validation:XValidation:rule="(!has(self.httpGet) || type(self.httpGet.port) == int) && (!has(self.tcpSocket) || type(self.tcpSocket.port) == int)",message="a sidecar's livenessProbe must give its port by number: a sidecar has no named ports"
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`

	// startupProbe holds the sidecar's other probes, and the containers after it, back until
	// it succeeds.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.successThreshold) || self.successThreshold <= 1",message="a startupProbe's successThreshold must be 1",fieldPath=".successThreshold"
	// +kubebuilder:validation:XValidation:rule="(!has(self.httpGet) || type(self.httpGet.port) == int) && (!has(self.tcpSocket) || type(self.tcpSocket.port) == int)",message="a sidecar's startupProbe must give its port by number: a sidecar has no named ports"
	StartupProbe *Probe `json:"startupProbe,omitempty"`
}
