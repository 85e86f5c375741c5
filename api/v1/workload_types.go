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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Workload is the kind of object that runs the app's pods.
// +kubebuilder:validation:Enum=Deployment;StatefulSet
type Workload string

const (
	// WorkloadDeployment runs interchangeable pods, renamed at every rollout.
	WorkloadDeployment Workload = "Deployment"
	// WorkloadStatefulSet runs pods named <app>-0, <app>-1..., each keeping its name, its
	// per-pod Service and its volumes through restarts and rollouts.
	WorkloadStatefulSet Workload = "StatefulSet"
)

// StatefulSetSettings are what a StatefulSet workload adds: volumes of each pod's own, and
// how its pods start and roll.
// +kubebuilder:validation:XValidation:rule="has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates)",message="spec.statefulSet.volumeClaimTemplates cannot change: a StatefulSet keeps the claims it was made with; create a new app to change them",fieldPath=".volumeClaimTemplates"
type StatefulSetSettings struct {
	// volumeClaimTemplates are volumes each pod gets of its own, mounted into the app's
	// container: pod <app>-N claims <name>-<app>-N when it first starts and mounts it again
	// whenever it comes back. They cannot change once set.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.statefulSet.volumeClaimTemplates cannot change: a StatefulSet keeps the claims it was made with; create a new app to change them"
	// +kubebuilder:validation:XValidation:rule="self.all(c, self.exists_one(d, d.mountPath == c.mountPath))",message="spec.statefulSet.volumeClaimTemplates[*].mountPath must be unique"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume Claim Templates"
	VolumeClaimTemplates []VolumeClaimTemplate `json:"volumeClaimTemplates,omitempty"`

	// persistentVolumeClaimRetentionPolicy says whether the claims go when the app is deleted
	// or scaled down; unset, they stay: a user's data is deleted only when asked.
	// +optional
	PersistentVolumeClaimRetentionPolicy *PersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`

	// podManagementPolicy is OrderedReady (the default: pods start one at a time, in order,
	// each once the one before is ready) or Parallel. It cannot change.
	// +optional
	// +kubebuilder:default=OrderedReady
	// +kubebuilder:validation:Enum=OrderedReady;Parallel
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.statefulSet.podManagementPolicy cannot change: a StatefulSet keeps the policy it was made with"
	PodManagementPolicy appsv1.PodManagementPolicyType `json:"podManagementPolicy,omitempty"`

	// partition holds back a rollout: only the pods of ordinal partition and above take a new
	// template; unset, 0, every pod.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout Partition",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Partition *int32 `json:"partition,omitempty"`
}

// VolumeClaimTemplate is a volume each pod claims for itself.
type VolumeClaimTemplate struct {
	// name of the volume, distinct from spec.volumes; the claims are named <name>-<app>-N.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// mountPath is the absolute path in the app's container.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.contains(':')",message="mountPath must be an absolute path, without ':'"
	MountPath string `json:"mountPath"`

	// size is the storage each claim requests, above 0.
	// +required
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).compareTo(quantity('0')) > 0",message="size must be above 0"
	Size resource.Quantity `json:"size"`

	// storageClassName is the StorageClass that provisions the volumes; unset, the cluster's
	// default; empty, none: the claims bind to PersistentVolumes an administrator made.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="storageClassName must be empty or a StorageClass's name: lowercase letters, digits, '-' and '.'"
	StorageClassName *string `json:"storageClassName,omitempty"`

	// accessModes are how the volume may be mounted; unset, ReadWriteOnce.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:Enum=ReadWriteOnce;ReadOnlyMany;ReadWriteMany;ReadWriteOncePod
	// +kubebuilder:validation:XValidation:rule="!self.exists(m, m == 'ReadWriteOncePod') || size(self) == 1",message="accessModes ReadWriteOncePod goes alone"
	AccessModes []corev1.PersistentVolumeAccessMode `json:"accessModes,omitempty"`
}

// PersistentVolumeClaimRetentionPolicy says what becomes of the pods' claims.
type PersistentVolumeClaimRetentionPolicy struct {
	// whenDeleted is Retain (the default: the claims stay when the app is deleted) or Delete.
	// +optional
	// +kubebuilder:default=Retain
	// +kubebuilder:validation:Enum=Retain;Delete
	WhenDeleted appsv1.PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty"`

	// whenScaled is Retain (the default: the claims of the pods scaled away stay, for the
	// pods that come back) or Delete.
	// +optional
	// +kubebuilder:default=Retain
	// +kubebuilder:validation:Enum=Retain;Delete
	WhenScaled appsv1.PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty"`
}
