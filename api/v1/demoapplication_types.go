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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DemoApplicationSpec is what the user declares: one container image, run as a Deployment
// and exposed by a Service.
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || size(self.ports) <= 1 || self.ports.all(p, has(p.name) && size(p.name) > 0)",message="every port needs a name when there is more than one port",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, !has(p.name) || self.ports.exists_one(q, has(q.name) && q.name == p.name))",message="port names must be unique",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, self.ports.exists_one(q, q.port == p.port && q.protocol == p.protocol))",message="port numbers must be unique for each protocol",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, !has(p.nodePort) || self.ports.exists_one(q, has(q.nodePort) && q.nodePort == p.nodePort))",message="nodePorts must be unique",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.podServices) || !self.podServices.enabled || (has(self.ports) && size(self.ports) > 0)",message="podServices needs at least one port to expose",fieldPath=".podServices"
// +kubebuilder:validation:XValidation:rule="!has(self.podServices) || !has(self.podServices.ports) || self.podServices.ports.all(n, has(self.ports) && self.ports.exists(p, has(p.name) && p.name == n))",message="podServices.ports must name ports of spec.ports",fieldPath=".podServices.ports"
type DemoApplicationSpec struct {
	// image is the container image to run, for example nginx:1.27.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.trim() == self",message="image must not have leading or trailing spaces"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image"`

	// replica is the number of pods to run.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replica *int32 `json:"replica,omitempty"`

	// ports are exposed by the application's Service. The Service is of type NodePort when
	// any port sets a nodePort, ClusterIP otherwise.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=24
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ports"
	Ports []DemoApplicationPort `json:"ports,omitempty"`

	// env lists environment variables set in the application's container.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Environment"
	Env []EnvVar `json:"env,omitempty"`

	// resources are the compute resources of the application's container.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements"}
	Resources *ResourceRequirements `json:"resources,omitempty"`

	// imagePullPolicy is when the kubelet pulls the image: Always, IfNotPresent or Never.
	// Unset, Kubernetes decides: Always for a :latest or untagged image, IfNotPresent otherwise.
	// +optional
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Pull Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:imagePullPolicy"}
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// imagePullSecrets name the Secrets (of type kubernetes.io/dockerconfigjson) in the app's
	// namespace that hold the credentials of a private registry.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Pull Secrets"
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// command replaces the image's entrypoint; $(VAR) names a variable of env.
	// +optional
	// +listType=atomic
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Command"
	Command []string `json:"command,omitempty"`

	// args replace the image's command (its CMD); $(VAR) names a variable of env.
	// +optional
	// +listType=atomic
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Arguments"
	Args []string `json:"args,omitempty"`

	// envFrom sets a variable for each key of a ConfigMap or Secret, before env, which wins.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Environment From"
	EnvFrom []EnvFromSource `json:"envFrom,omitempty"`

	// serviceAccountName is the ServiceAccount the pods run as, in the app's namespace; empty
	// means the namespace's default.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Account",xDescriptors={"urn:alm:descriptor:io.kubernetes:ServiceAccount"}
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// automountServiceAccountToken mounts the ServiceAccount's token in the pods; unset, the
	// ServiceAccount decides. An app that does not call the Kubernetes API should set false.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mount the Service Account Token",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`

	// podLabels are added to the pods' labels. They cannot set the labels the operator selects
	// the pods by (app.kubernetes.io/name, paas.cmft.com/demoapplication) or marks its objects
	// with (app.kubernetes.io/managed-by).
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="podLabels keys must be label keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k in ['app.kubernetes.io/name', 'paas.cmft.com/demoapplication', 'app.kubernetes.io/managed-by'])",message="podLabels cannot set app.kubernetes.io/name, paas.cmft.com/demoapplication or app.kubernetes.io/managed-by: the operator sets them"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Labels"
	PodLabels map[string]LabelValue `json:"podLabels,omitempty"`

	// podAnnotations are added to the pods' annotations.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="podAnnotations keys must be annotation keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Annotations"
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`

	// nodeSelector keeps the pods to nodes carrying all these labels.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="nodeSelector keys must be label keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Selector"
	NodeSelector map[string]LabelValue `json:"nodeSelector,omitempty"`

	// minReadySeconds is how long a new pod must be ready, without a container crashing, to
	// count as available.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Minimum Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// podServices gives each pod of the application a Service of its own, so that a client
	// can reach one chosen pod. Off unless enabled.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Per-pod Services"
	PodServices *PodServices `json:"podServices,omitempty"`
}

// EnvVar is an environment variable of the application's container: the fields of a pod's
// that a DemoApplication's container can use, each checked by the API server as a pod's are.
// +kubebuilder:validation:XValidation:rule="!has(self.valueFrom) || !has(self.value) || size(self.value) == 0",message="value and valueFrom cannot both be set"
type EnvVar struct {
	// name of the variable: letters, digits, '_', '-' and '.', not starting with a digit (the
	// rule of every Kubernetes the operator supports).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z][-._a-zA-Z0-9]*$`
	Name string `json:"name"`

	// value of the variable. $(VAR) names a variable defined before it, and is replaced by its
	// value; $$(VAR) escapes it.
	// +optional
	Value string `json:"value,omitempty"`

	// valueFrom takes the value from a field of the pod, a resource of the container, or a key
	// of a ConfigMap or a Secret.
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
	// apiVersion of the fieldPath: v1.
	// +optional
	// +kubebuilder:validation:Enum=v1
	APIVersion string `json:"apiVersion,omitempty"`

	// fieldPath is metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'],
	// metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP,
	// status.hostIPs, status.podIP or status.podIPs.
	// +required
	// +kubebuilder:validation:MaxLength=341
	// +kubebuilder:validation:XValidation:rule="self in ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'] || (self.matches('^metadata[.](labels|annotations)[[]\\x27([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\\x27[]]$') && self.matches('^[^[]*[[]\\x27([^/]{1,253}/)?[^/]{1,63}\\x27[]]$'))",message="fieldPath must be metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP(s) or status.podIP(s)"
	FieldPath string `json:"fieldPath"`
}

// ResourceFieldSelector selects a limit or request of the application's container.
// +kubebuilder:validation:XValidation:rule="!has(self.divisor) || (self.resource.endsWith('cpu') ? self.divisor in ['1m', '1'] : self.divisor != '1m')",message="divisor must be 1m or 1 for cpu, and 1 or a power of 1k or 1Ki for memory and ephemeral-storage",fieldPath=".divisor"
type ResourceFieldSelector struct {
	// containerName is the application's container, app; empty means the same.
	// +optional
	// +kubebuilder:validation:Enum="";app
	ContainerName string `json:"containerName,omitempty"`

	// resource is limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu,
	// requests.memory or requests.ephemeral-storage.
	// +required
	// +kubebuilder:validation:Enum=limits.cpu;limits.memory;limits.ephemeral-storage;requests.cpu;requests.memory;requests.ephemeral-storage
	Resource string `json:"resource"`

	// divisor of the value: 1m or 1 for cpu; 1, 1k, 1M, …, 1Ki, 1Mi, … otherwise. Default 1.
	// +optional
	// +kubebuilder:validation:Enum="1m";"1";"1k";"1M";"1G";"1T";"1P";"1E";"1Ki";"1Mi";"1Gi";"1Ti";"1Pi";"1Ei"
	Divisor string `json:"divisor,omitempty"`
}

// KeySelector selects a key of a ConfigMap or Secret in the app's namespace.
type KeySelector struct {
	// name of the ConfigMap or Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// key in it: letters, digits, '-', '_' and '.', other than '.' and not starting with '..'.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:XValidation:rule="self != '.' && !self.startsWith('..')",message="a key must not be '.' nor start with '..'"
	Key string `json:"key"`

	// optional lets the pod start when the ConfigMap or Secret or its key does not exist.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

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

// LabelValue is the value of a label: at most 63 letters, digits, '-', '_' and '.', starting
// and ending with a letter or digit, or empty.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// LocalObjectReference names an object in the app's namespace.
type LocalObjectReference struct {
	// name of the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// EnvFromSource sets a variable for each key of a ConfigMap or a Secret: exactly one of them.
// +kubebuilder:validation:XValidation:rule="has(self.configMapRef) != has(self.secretRef)",message="envFrom takes exactly one of configMapRef and secretRef"
type EnvFromSource struct {
	// prefix is put before every key's name; the result must be a valid variable name.
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
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// optional lets the pods start when it does not exist.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// PodServices configures the per-pod Services: the pods are annotated for the pod labeler,
// and each pod that carries its pod-name label gets a Service named after it that selects
// it alone. The Service is owned by its pod, so it goes when the pod goes.
type PodServices struct {
	// enabled turns the per-pod Services on; turning it off deletes them.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// type of each per-pod Service: ClusterIP, NodePort (node ports are allocated by the
	// cluster, never copied from spec.ports, where they would collide) or LoadBalancer.
	// +optional
	// +kubebuilder:default=ClusterIP
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	Type corev1.ServiceType `json:"type,omitempty"`

	// ports names the ports of spec.ports the per-pod Services expose; empty means all.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=24
	// +kubebuilder:validation:items:MaxLength=15
	Ports []string `json:"ports,omitempty"`
}

// DemoApplicationPort is one port of the application's Service.
type DemoApplicationPort struct {
	// name of the port; required when there is more than one port. It names the container's
	// port too, so it is an IANA service name: at most 15 lowercase letters, digits and single
	// hyphens, with at least one letter.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="a port name must hold a letter and no '--' (an IANA service name: it names the container's port)"
	Name string `json:"name,omitempty"`

	// protocol of the port: TCP, UDP or SCTP.
	// +optional
	// +kubebuilder:default=TCP
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	Protocol corev1.Protocol `json:"protocol,omitempty"`

	// port the Service listens on.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// targetPort is the container port traffic goes to, a number or a port name; it
	// defaults to port.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) == string || (self >= 1 && self <= 65535)",message="targetPort must be between 1 and 65535"
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == int || self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="a named targetPort must be an IANA service name: at most 15 lowercase letters, digits and single hyphens, with at least one letter"
	TargetPort *intstr.IntOrString `json:"targetPort,omitempty"`

	// nodePort exposes the port on every node; setting it on any port makes the Service
	// a NodePort Service.
	// +optional
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	NodePort *int32 `json:"nodePort,omitempty"`
}

// DemoApplicationStatus is what the operator observed, rebuilt from the owned Deployment on
// every reconcile, failed or not; it is never read back as input. What a reconcile could not
// observe stays as the previous one wrote it.
type DemoApplicationStatus struct {
	// observedGeneration is the generation of the spec the conditions describe: behind
	// metadata.generation until the operator has acted on a change; Ready, Reconciling and
	// Stalled then say whether it is in place.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// replicas is the number of pods the Deployment runs.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of pods that are ready.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas"
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of pods ready for at least the Deployment's minReadySeconds.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Available Replicas"
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// podServices is the number of per-pod Services in place, each selecting a pod that
	// carries its pod-name label.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Per-pod Services"
	PodServices int32 `json:"podServices,omitempty"`

	// conditions are Available, Progressing and Degraded, which follow the Deployment and its
	// pods (Degraded's reason says why pods are missing or failing, in the cluster's words),
	// and Ready, Reconciling and Stalled, which sum them up as kstatus (Flux, kubectl wait)
	// and Argo CD's health check read.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// Condition types of a DemoApplication.
const (
	// ConditionAvailable is True when the Deployment has its minimum of available pods.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while the Deployment rolls out a change.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the operator cannot make the cluster match the spec
	// until someone acts: a name held by someone else, or a write the API server refuses
	// (forbidden by RBAC, a quota, an admission webhook or policy; invalid), its reason
	// naming the failing step; when the ReplicaSet cannot create pods, or a pod cannot be
	// scheduled, pull its image, or start or keep its container running, in the cluster's
	// words; or when the rollout stalled. A transient failure (a timeout,
	// throttling, the API server unavailable) is retried and leaves Degraded as it was.
	ConditionDegraded = "Degraded"

	// ConditionReady is True when the spec is in place: every object applied, the rollout
	// complete and the pods available. kubectl wait --for=condition=Ready waits for it.
	ConditionReady = "Ready"
	// ConditionReconciling is present, True, while the spec is not yet in place and the
	// operator or the cluster is working on it (kstatus: InProgress).
	ConditionReconciling = "Reconciling"
	// ConditionStalled is present, True, when the spec cannot be put in place until someone
	// acts: Degraded's reason and message (kstatus: Failed).
	ConditionStalled = "Stalled"
)

// Condition reasons of a DemoApplication.
const (
	// ReasonMinimumReplicasAvailable: the Deployment has its minimum of available pods.
	ReasonMinimumReplicasAvailable = "MinimumReplicasAvailable"
	// ReasonReplicasUnavailable: fewer pods are available than the Deployment requires.
	ReasonReplicasUnavailable = "ReplicasUnavailable"
	// ReasonDeploymentMissing: the Deployment does not exist (yet).
	ReasonDeploymentMissing = "DeploymentMissing"
	// ReasonRollingOut: the Deployment has not finished rolling out the current spec.
	ReasonRollingOut = "RollingOut"
	// ReasonRolloutComplete: every pod runs the current spec.
	ReasonRolloutComplete = "RolloutComplete"
	// ReasonProgressDeadlineExceeded: the Deployment's rollout is stuck.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonResourceConflict: an object the DemoApplication needs is held by someone else;
	// the message says who.
	ReasonResourceConflict = "ResourceConflict"
	// ReasonDeploymentFailed: the API server refused to let the operator read or write the
	// Deployment.
	ReasonDeploymentFailed = "DeploymentFailed"
	// ReasonServiceFailed: the API server refused to let the operator read, write or delete
	// the Service (a nodePort in use, a quota).
	ReasonServiceFailed = "ServiceFailed"
	// ReasonPodServicesFailed: the API server refused to let the operator list, write or
	// delete per-pod Services.
	ReasonPodServicesFailed = "PodServicesFailed"
	// ReasonAsExpected: nothing is wrong.
	ReasonAsExpected = "AsExpected"
	// ReasonFailedCreate: the Deployment's ReplicaSet cannot create pods; the message is the
	// API server's refusal (Pod Security, an admission webhook or policy, a quota).
	ReasonFailedCreate = "FailedCreate"
	// ReasonUnschedulable: a pod cannot be scheduled on any node; the message is the
	// scheduler's (resources, node selectors, taints).
	ReasonUnschedulable = "Unschedulable"
	// ReasonImagePullBackOff: a pod's image cannot be pulled (no such image, no access to
	// the registry); the message is the kubelet's.
	ReasonImagePullBackOff = "ImagePullBackOff"
	// ReasonCreateContainerError: a pod's container cannot be created or started (a
	// ConfigMap or Secret it reads is missing, a command that does not exist); the
	// message is the kubelet's.
	ReasonCreateContainerError = "CreateContainerError"
	// ReasonCrashLoopBackOff: a pod's container keeps exiting; the message says how it last
	// ended.
	ReasonCrashLoopBackOff = "CrashLoopBackOff"
	// ReasonRetrying: a step failed transiently (a timeout, throttling, the API server
	// unavailable) and is retried.
	ReasonRetrying = "Retrying"
)

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=demoapp;demoapps,categories=all
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replica`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Demo Application",resources={{Deployment,v1},{Event,v1},{Service,v1}}
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))",optionalOldSelf=true,message="metadata.name must be at most 63 characters, start with a letter and hold only lowercase letters, digits and '-': it names the app's Service and is the value of its pods' labels"

// DemoApplication runs a container image as a Deployment exposed by a Service.
type DemoApplication struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the user declares.
	// +required
	Spec DemoApplicationSpec `json:"spec"`

	// status is what the operator observed.
	// +optional
	Status DemoApplicationStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DemoApplicationList is a list of DemoApplications.
type DemoApplicationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DemoApplication `json:"items"`
}
