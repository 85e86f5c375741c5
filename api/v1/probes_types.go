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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probe checks the application's container with exactly one of its actions.
// +kubebuilder:validation:XValidation:rule="[has(self.httpGet), has(self.tcpSocket), has(self.grpc), has(self.exec)].filter(x, x).size() == 1",message="a probe takes exactly one of httpGet, tcpSocket, grpc and exec"
type Probe struct {
	// httpGet succeeds on an HTTP status from 200 to 399.
	// +optional
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`

	// tcpSocket succeeds when a TCP connection opens.
	// +optional
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`

	// grpc succeeds when the gRPC health service says SERVING.
	// +optional
	GRPC *GRPCAction `json:"grpc,omitempty"`

	// exec succeeds when a command exits 0.
	// +optional
	Exec *ExecAction `json:"exec,omitempty"`

	// initialDelaySeconds is the wait before the first check.
	// +optional
	// +kubebuilder:validation:Minimum=0
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`

	// timeoutSeconds is how long a check may take; default 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`

	// periodSeconds is how often the check runs; default 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`

	// successThreshold is how many successes in a row pass it; default 1, and 1 for liveness
	// and startup.
	// +optional
	// +kubebuilder:validation:Minimum=0
	SuccessThreshold int32 `json:"successThreshold,omitempty"`

	// failureThreshold is how many failures in a row fail it; default 3.
	// +optional
	// +kubebuilder:validation:Minimum=0
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// HTTPGetAction is an HTTP GET request to the container.
type HTTPGetAction struct {
	// path of the request; default /.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Path string `json:"path,omitempty"`

	// port of the container, by number or name.
	// +required
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 && self <= 65535 : self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="port must be a number from 1 to 65535, or a name of at most 15 lowercase letters, digits and single hyphens, with a letter (an IANA service name)"
	Port intstr.IntOrString `json:"port"`

	// scheme is HTTP (the default) or HTTPS, unverified.
	// +optional
	// +kubebuilder:validation:Enum=HTTP;HTTPS
	Scheme corev1.URIScheme `json:"scheme,omitempty"`

	// httpHeaders are added to the request.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// HTTPHeader is a request header.
type HTTPHeader struct {
	// name of the header.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[-A-Za-z0-9!#$%&'*+.^_|~\x60]+$`
	Name string `json:"name"`

	// value of the header.
	// +required
	// +kubebuilder:validation:MaxLength=4096
	Value string `json:"value"`
}

// TCPSocketAction opens a TCP connection to the container.
type TCPSocketAction struct {
	// port of the container, by number or name.
	// +required
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 && self <= 65535 : self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="port must be a number from 1 to 65535, or a name of at most 15 lowercase letters, digits and single hyphens, with a letter (an IANA service name)"
	Port intstr.IntOrString `json:"port"`
}

// GRPCAction calls the gRPC health service of the container.
type GRPCAction struct {
	// port of the container.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// service is the name asked about; empty, the whole server.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Service *string `json:"service,omitempty"`
}

// ExecAction runs a command in the container, not in a shell.
type ExecAction struct {
	// command and its arguments.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	Command []string `json:"command"`
}

// Lifecycle is what the container does before it is stopped.
type Lifecycle struct {
	// preStop runs before the container gets SIGTERM: a pause, or a command.
	// +optional
	PreStop *LifecycleHandler `json:"preStop,omitempty"`
}

// LifecycleHandler is one action of the container's lifecycle: exactly one of its fields.
// +kubebuilder:validation:XValidation:rule="has(self.sleep) != has(self.exec)",message="spec.lifecycle.preStop takes exactly one of sleep and exec"
type LifecycleHandler struct {
	// sleep pauses, without running anything in the container.
	// +optional
	Sleep *SleepAction `json:"sleep,omitempty"`

	// exec runs a command in the container, not in a shell.
	// +optional
	Exec *ExecAction `json:"exec,omitempty"`
}

// SleepAction pauses before the container is stopped.
type SleepAction struct {
	// seconds to pause, less than terminationGracePeriodSeconds; 0 for no pause.
	// +required
	// +kubebuilder:validation:Minimum=0
	Seconds int64 `json:"seconds"`
}
