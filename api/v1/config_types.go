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
	"k8s.io/apimachinery/pkg/api/resource"
)

// ConfigRollout says which ConfigMaps and Secrets, changed, roll the app's pods: Env, All or
// None.
type ConfigRollout string

// EnvVar is an environment variable of a container.
// +kubebuilder:validation:XValidation:rule="!has(self.valueFrom) || !has(self.value) || size(self.value) == 0",message="value and valueFrom cannot both be set: keep one"
type EnvVar struct {
	// name of the variable: letters, digits, '_', '-' and '.', not starting with a digit.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z][-._a-zA-Z0-9]*$`
	Name string `json:"name"`

	// value of the variable; $(VAR) is an earlier variable's value, $$(VAR) escapes it.
	// +optional
	Value string `json:"value,omitempty"`

	// valueFrom takes the value from a pod field, a resource, or a ConfigMap or Secret key.
	// +optional
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where a variable's value comes from: exactly one of its fields.
// +kubebuilder:validation:XValidation:rule="[has(self.fieldRef), has(self.resourceFieldRef), has(self.configMapKeyRef), has(self.secretKeyRef)].filter(x, x).size() == 1",message="valueFrom takes exactly one of fieldRef, resourceFieldRef, configMapKeyRef and secretKeyRef"
type EnvVarSource struct {
	// fieldRef selects a field of the pod.
	// +optional
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty"`

	// resourceFieldRef selects a limit or request of the container.
	// +optional
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`

	// configMapKeyRef selects a key of a ConfigMap in the app's namespace.
	// +optional
	ConfigMapKeyRef *KeySelector `json:"configMapKeyRef,omitempty"`

	// secretKeyRef selects a key of a Secret in the app's namespace.
	// +optional
	SecretKeyRef *KeySelector `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod.
type ObjectFieldSelector struct {
	// apiVersion of the fieldPath: v1, the default.
	// +optional
	// +kubebuilder:default=v1
	// +kubebuilder:validation:Enum=v1
	APIVersion string `json:"apiVersion,omitempty"` // defaulted as the API server defaults a pod's: the operator owns the whole fieldRef, and would otherwise apply it on every pass

	// fieldPath is the pod's field, such as metadata.name or status.podIP.
	// +required
	// +kubebuilder:validation:MaxLength=341
	// +kubebuilder:validation:XValidation:rule="self in ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'] || (self.matches('^metadata[.](labels|annotations)[[]\\x27([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\\x27[]]$') && self.matches('^[^[]*[[]\\x27([^/]{1,253}/)?[^/]{1,63}\\x27[]]$'))",message="fieldPath must be metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP(s) or status.podIP(s)"
	FieldPath string `json:"fieldPath"`
}

// ResourceFieldSelector selects a limit or request of the application's container.
// +kubebuilder:validation:XValidation:rule="!has(self.divisor) || (self.resource.endsWith('cpu') ? self.divisor in ['1m', '1'] : self.divisor != '1m')",message="divisor must be 1m or 1 for cpu, and 1 or a power of 1k or 1Ki for memory and ephemeral-storage",fieldPath=".divisor"
type ResourceFieldSelector struct {
	// containerName is app (the app's container) or empty.
	// +optional
	// +kubebuilder:validation:Enum="";app
	ContainerName string `json:"containerName,omitempty"`

	// resource is the limit or request read, such as limits.cpu.
	// +required
	// +kubebuilder:validation:Enum=limits.cpu;limits.memory;limits.ephemeral-storage;requests.cpu;requests.memory;requests.ephemeral-storage
	Resource string `json:"resource"`

	// divisor of the value; default 1.
	// +optional
	// +kubebuilder:validation:Enum="1m";"1";"1k";"1M";"1G";"1T";"1P";"1E";"1Ki";"1Mi";"1Gi";"1Ti";"1Pi";"1Ei"
	Divisor string `json:"divisor,omitempty"`
}

// KeySelector selects a key of a ConfigMap or Secret in the app's namespace.
type KeySelector struct {
	// name of the ConfigMap or Secret.
	// +required
	Name ObjectName `json:"name"`

	// key in the ConfigMap or Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:XValidation:rule="self != '.' && !self.startsWith('..')",message="a key must not be '.' nor start with '..'"
	Key string `json:"key"`

	// optional lets the pod start when it or its key is missing.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// Volume is a volume of the pods: exactly one of its sources.
// +kubebuilder:validation:XValidation:rule="[has(self.configMap), has(self.secret), has(self.emptyDir), has(self.persistentVolumeClaim)].filter(x, x).size() == 1",message="a volume takes exactly one of configMap, secret, emptyDir and persistentVolumeClaim"
type Volume struct {
	// name of the volume, which volumeMounts use: a DNS label.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// configMap holds the keys of a ConfigMap as files.
	// +optional
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`

	// secret holds the keys of a Secret as files.
	// +optional
	Secret *SecretVolumeSource `json:"secret,omitempty"`

	// emptyDir is scratch space that lives as long as the pod.
	// +optional
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty"`

	// persistentVolumeClaim mounts an existing claim of the app's namespace.
	// +optional
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
}

// ConfigMapVolumeSource is a ConfigMap whose keys are files.
type ConfigMapVolumeSource struct {
	// name of the ConfigMap.
	// +required
	Name ObjectName `json:"name"`

	// items choose the keys and their files; empty, every key, as a file of its name.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Items []KeyToPath `json:"items,omitempty"`

	// defaultMode of the files, 0 to 0777 (octal); default 0644.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=511
	DefaultMode *int32 `json:"defaultMode,omitempty"`

	// optional lets the pods start when the ConfigMap or a key does not exist.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// SecretVolumeSource is a Secret whose keys are files.
type SecretVolumeSource struct {
	// secretName is the name of the Secret.
	// +required
	SecretName ObjectName `json:"secretName"`

	// items choose the keys and their files; empty, every key, as a file of its name.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Items []KeyToPath `json:"items,omitempty"`

	// defaultMode of the files, 0 to 0777 (octal); default 0644.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=511
	DefaultMode *int32 `json:"defaultMode,omitempty"`

	// optional lets the pods start when the Secret or a key does not exist.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// KeyToPath maps a key to a file.
type KeyToPath struct {
	// key in the ConfigMap or Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`

	// path of the file, relative to the mount, without '..'.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",message="path must be relative, without '..'"
	Path string `json:"path"`

	// mode of the file; default the volume's defaultMode.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=511
	Mode *int32 `json:"mode,omitempty"`
}

// EmptyDirVolumeSource is scratch space that lives as long as the pod.
type EmptyDirVolumeSource struct {
	// medium is "" (the node's disk) or Memory (a tmpfs, counted in the container's memory).
	// +optional
	// +kubebuilder:validation:Enum="";Memory
	Medium corev1.StorageMedium `json:"medium,omitempty"`

	// sizeLimit is the most the volume may hold: past it the pod is evicted.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self).startsWith('-')",message="sizeLimit must not be negative"
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts an existing PersistentVolumeClaim.
type PersistentVolumeClaimVolumeSource struct {
	// claimName is the name of the claim, in the app's namespace.
	// +required
	ClaimName ObjectName `json:"claimName"`

	// readOnly mounts the claim read-only.
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`
}

// VolumeMount mounts a volume into the container.
type VolumeMount struct {
	// name of the volume, one of spec.volumes.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// mountPath is the absolute path in the container.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.contains(':')",message="mountPath must be an absolute path, without ':'"
	MountPath string `json:"mountPath"`

	// subPath mounts this path of the volume rather than its root.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",message="subPath must be relative, without '..'"
	SubPath string `json:"subPath,omitempty"`

	// readOnly mounts the volume read-only.
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`
}

// EnvFromSource sets a variable for each key of a ConfigMap or Secret.
// +kubebuilder:validation:XValidation:rule="has(self.configMapRef) != has(self.secretRef)",message="envFrom takes exactly one of configMapRef and secretRef"
type EnvFromSource struct {
	// prefix is put before every key's name.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z][-._a-zA-Z0-9]*$`
	Prefix string `json:"prefix,omitempty"`

	// configMapRef names the ConfigMap.
	// +optional
	ConfigMapRef *OptionalObjectReference `json:"configMapRef,omitempty"`

	// secretRef names the Secret.
	// +optional
	SecretRef *OptionalObjectReference `json:"secretRef,omitempty"`
}

// OptionalObjectReference names a ConfigMap or Secret in the app's namespace.
type OptionalObjectReference struct {
	// name of the ConfigMap or Secret.
	// +required
	Name ObjectName `json:"name"`

	// optional lets the pods start when it does not exist.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}
