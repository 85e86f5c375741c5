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
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Ingress routes HTTP requests for the app's hosts and paths to its Service.
// +kubebuilder:validation:XValidation:rule="!has(self.tlsSecretName) || (has(self.hosts) && size(self.hosts) > 0)",message="spec.ingress.tlsSecretName needs spec.ingress.hosts: an Ingress controller serves a certificate for the hosts named with it, and with none, its own default certificate",fieldPath=".tlsSecretName"
type Ingress struct {
	// className names the IngressClass; empty, the cluster's default.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress Class"
	ClassName ObjectName `json:"className,omitempty"`

	// hosts the Ingress answers for (a DNS name, or *.example.com); empty, every host.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^([*][.])?[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') && self.split('.').all(l, size(l) <= 63) && !self.matches('^[0-9.]+$')",message="a host must be a lowercase DNS name, optionally starting with '*.', and not an IP address"
	Hosts []string `json:"hosts,omitempty"`

	// paths routed to the app's Service on every host; unset, "/" to the first TCP port.
	// +optional
	// +listType=map
	// +listMapKey=path
	// +kubebuilder:validation:MaxItems=16
	Paths []IngressPath `json:"paths,omitempty"`

	// tlsSecretName names the kubernetes.io/tls Secret with the hosts' certificate; unset, HTTP.
	// +optional
	TLSSecretName ObjectName `json:"tlsSecretName,omitempty"`

	// annotations of the Ingress, which Ingress controllers read as settings.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="ingress annotations keys must be annotation keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Annotations map[string]string `json:"annotations,omitempty"`
}

// IngressPath routes one path to a port of the app's Service.
type IngressPath struct {
	// path is the URL path, absolute.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.matches('//|/[.]/|/[.][.]/|%2[fF]|/[.][.]?$')",message="path must start with '/' and hold no '//', '/./', '/../', '%2F', nor end in '/.' or '/..'"
	Path string `json:"path"`

	// pathType is how the path matches: Prefix (by segments; the default), Exact, or as the
	// controller says.
	// +optional
	// +kubebuilder:default=Prefix
	// +kubebuilder:validation:Enum=Prefix;Exact;ImplementationSpecific
	PathType networkingv1.PathType `json:"pathType,omitempty"`

	// port of spec.ports the path goes to; unset, the first TCP port.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	Port *intstr.IntOrString `json:"port,omitempty"`
}

// HTTPRoute routes HTTP requests for the app's hostnames and paths, as received by the
// Gateways it attaches to, to its Service.
type HTTPRoute struct {
	// parentRefs are the Gateways, and optionally listeners, the route attaches to.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q.name == p.name && (has(q.__namespace__) ? q.__namespace__ : '') == (has(p.__namespace__) ? p.__namespace__ : '') && (has(q.sectionName) ? q.sectionName : '') == (has(p.sectionName) ? p.sectionName : '')))",message="spec.httpRoute.parentRefs must be unique"
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.all(q, q.name != p.name || (has(q.__namespace__) ? q.__namespace__ : '') != (has(p.__namespace__) ? p.__namespace__ : '') || has(q.sectionName) == has(p.sectionName)))",message="spec.httpRoute.parentRefs naming one Gateway twice must each name a sectionName"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Gateways"
	ParentRefs []GatewayReference `json:"parentRefs"`

	// hostnames the route answers for (a DNS name, or *.example.com); empty, the listeners'.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^([*][.])?[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') && self.split('.').all(l, size(l) <= 63) && !self.matches('^[0-9.]+$')",message="a spec.httpRoute.hostnames entry must be a lowercase DNS name, optionally starting with '*.', and not an IP address"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Hostnames"
	Hostnames []string `json:"hostnames,omitempty"`

	// paths routed to the app's Service; unset, "/" to the first TCP port.
	// +optional
	// +listType=map
	// +listMapKey=path
	// +kubebuilder:validation:MaxItems=16
	Paths []HTTPRoutePath `json:"paths,omitempty"`
}

// GatewayReference names a Gateway an HTTPRoute attaches to.
type GatewayReference struct {
	// name of the Gateway.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the Gateway; unset, the app's.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// sectionName names one listener of the Gateway; unset, every one.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SectionName string `json:"sectionName,omitempty"`
}

// HTTPRoutePath routes one path to a port of the app's Service.
type HTTPRoutePath struct {
	// path is the URL path, absolute.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && self.matches('^(?:[-A-Za-z0-9/._~!$&\\x27()*+,;=:@]|[%][0-9a-fA-F]{2})+$') && !self.matches('//|/[.]/|/[.][.]/|%2[fF]|/[.][.]?$')",message="a spec.httpRoute.paths[*].path must start with '/', hold only URL path characters and no '//', '/./', '/../', '%2F', nor end in '/.' or '/..'"
	Path string `json:"path"`

	// type is how the path matches: PathPrefix (by segments; the default) or Exact.
	// +optional
	// +kubebuilder:default=PathPrefix
	// +kubebuilder:validation:Enum=PathPrefix;Exact
	Type string `json:"type,omitempty"`

	// port of spec.ports the path goes to; unset, the first TCP port.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	Port *intstr.IntOrString `json:"port,omitempty"`
}

// NetworkPolicy lets the app's pods take connections to their ports from the peers it
// names, and from none else.
type NetworkPolicy struct {
	// enabled turns the policy on; turning it off deletes it.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// sameApp lets the app's own pods reach each other.
	// +optional
	SameApp bool `json:"sameApp,omitempty"`

	// namespaces lets in every pod of these namespaces, such as the Ingress controller's.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`

	// from lets in the pods each peer selects; a podSelector alone selects in the app's
	// namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	From []NetworkPolicyPeer `json:"from,omitempty"`
}

// NetworkPolicyPeer selects pods by their namespace's labels, their own, or both.
// +kubebuilder:validation:XValidation:rule="has(self.namespaceSelector) || has(self.podSelector)",message="a spec.networkPolicy.from peer needs a namespaceSelector, a podSelector or both"
type NetworkPolicyPeer struct {
	// namespaceSelector selects namespaces by their labels; empty, every namespace.
	// +optional
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`

	// podSelector selects pods by their labels; empty, every pod.
	// +optional
	PodSelector *LabelSelector `json:"podSelector,omitempty"`
}

// ServiceSettings are the type and annotations of the app's Service.
type ServiceSettings struct {
	// type of the Service; unset, NodePort when any port sets a nodePort, ClusterIP otherwise.
	// +optional
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Type"
	Type corev1.ServiceType `json:"type,omitempty"`

	// annotations of the Service, which load balancers read as settings.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="spec.service.annotations keys must be annotation keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Annotations map[string]string `json:"annotations,omitempty"`
}

// PodServices configures the per-pod Services: the pods are annotated for the pod labeler,
// and each pod that carries its pod-name label gets a Service named after it that selects
// it alone. The Service is owned by its pod, so it goes when the pod goes.
type PodServices struct {
	// enabled turns the per-pod Services on; turning it off deletes them.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// type of each per-pod Service; node ports are allocated, never copied from spec.ports.
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
	// name of the port, required with more than one; it names the container's port too.
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

	// targetPort is the container port traffic goes to; default port.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 && self <= 65535 : self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="targetPort must be a number from 1 to 65535, or a name of at most 15 lowercase letters, digits and single hyphens, with a letter (an IANA service name)"
	TargetPort *intstr.IntOrString `json:"targetPort,omitempty"`

	// nodePort exposes the port on every node, and makes the Service a NodePort one.
	// +optional
	// +kubebuilder:validation:Minimum=30000
	// +kubebuilder:validation:Maximum=32767
	NodePort *int32 `json:"nodePort,omitempty"`
}
