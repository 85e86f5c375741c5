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

// SecurityContext is what the container may do: the fields of a container's security context
// that an application needs, without privileged mode, host access or SELinux and AppArmor
// settings.
// +kubebuilder:validation:XValidation:rule="!has(self.runAsNonRoot) || !self.runAsNonRoot || !has(self.runAsUser) || self.runAsUser != 0",message="runAsNonRoot cannot hold with runAsUser 0: the container could never start"
type SecurityContext struct {
	// runAsNonRoot refuses to start the container as root (user 0).
	// +optional
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`

	// runAsUser is the user the container runs as, in place of the image's.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	RunAsUser *int64 `json:"runAsUser,omitempty"`

	// runAsGroup is the primary group the container runs as.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`

	// allowPrivilegeEscalation lets a process gain privileges (setuid); the restricted standard
	// wants false.
	// +optional
	AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty"`

	// readOnlyRootFilesystem mounts the image's filesystem read-only.
	// +optional
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`

	// capabilities to add (NET_BIND_SERVICE alone, as the restricted standard allows) and drop
	// (it wants ALL).
	// +optional
	Capabilities *Capabilities `json:"capabilities,omitempty"`

	// seccompProfile filters the container's system calls.
	// +optional
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
}

// Capability is a Linux capability without CAP_, or ALL.
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:Pattern=`^[A-Z][A-Z0-9_]*$`
type Capability string

// Capabilities are Linux capabilities, named as in capabilities(7) without CAP_, or ALL.
type Capabilities struct {
	// add are the capabilities added: NET_BIND_SERVICE alone, for ports below 1024.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(c, c == 'NET_BIND_SERVICE')",message="capabilities.add may hold NET_BIND_SERVICE alone: the restricted Pod Security Standard allows no other"
	Add []Capability `json:"add,omitempty"`

	// drop are the capabilities dropped.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	Drop []Capability `json:"drop,omitempty"`
}

// SeccompProfile is a seccomp profile: the runtime's default or one on the node. Unconfined,
// which the baseline Pod Security Standard refuses, is not offered.
// +kubebuilder:validation:XValidation:rule="self.type == 'Localhost' ? has(self.localhostProfile) : !has(self.localhostProfile)",message="localhostProfile is set exactly when type is Localhost"
type SeccompProfile struct {
	// type is RuntimeDefault or Localhost.
	// +required
	// +kubebuilder:validation:Enum=RuntimeDefault;Localhost
	Type corev1.SeccompProfileType `json:"type"`

	// localhostProfile is the profile's path in the kubelet's seccomp directory.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",message="localhostProfile must be a relative path without '..'"
	LocalhostProfile *string `json:"localhostProfile,omitempty"`
}

// PodSecurityContext is what every container of the pods runs as: the fields of a pod's
// security context that an application needs.
// +kubebuilder:validation:XValidation:rule="!has(self.runAsNonRoot) || !self.runAsNonRoot || !has(self.runAsUser) || self.runAsUser != 0",message="runAsNonRoot cannot hold with runAsUser 0: the pods could never start"
type PodSecurityContext struct {
	// runAsNonRoot refuses to start a container as root (user 0).
	// +optional
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`

	// runAsUser is the user the containers run as, in place of the image's.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	RunAsUser *int64 `json:"runAsUser,omitempty"`

	// runAsGroup is the primary group the containers run as.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`

	// fsGroup owns the pods' volumes and is a supplemental group of every container.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	FSGroup *int64 `json:"fsGroup,omitempty"`

	// supplementalGroups are more groups of every container.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=2147483647
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`

	// seccompProfile filters the system calls of every container.
	// +optional
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
}
