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
)

// DemoApplicationSpec is what the user declares: one container image, run as a Deployment
// and exposed by a Service.
// +kubebuilder:validation:XValidation:rule="!has(self.podServices) || !has(self.podServices.enabled) || !self.podServices.enabled || (has(self.ports) && size(self.ports) > 0)",message="podServices needs at least one port to expose: add spec.ports, or set spec.podServices.enabled false",fieldPath=".podServices"
// +kubebuilder:validation:XValidation:rule="!has(self.podServices) || !has(self.podServices.ports) || self.podServices.ports.all(n, has(self.ports) && self.ports.exists(p, has(p.name) && p.name == n))",message="podServices.ports must name ports of spec.ports: each entry a spec.ports[*].name",fieldPath=".podServices.ports"
// +kubebuilder:validation:XValidation:rule="!has(self.volumeMounts) || self.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))",message="every spec.volumeMounts[*].name must name a volume of spec.volumes: add the volume, or fix the name",fieldPath=".volumeMounts"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP'))",message="ingress needs a TCP port in spec.ports to route to",fieldPath=".ingress"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || !has(self.ingress.paths) || self.ingress.paths.all(x, !has(x.port) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP' && (type(x.port) == int ? p.port == x.port : (has(p.name) && p.name == x.port)))))",message="every ingress path's port must name or number a TCP port of spec.ports",fieldPath=".ingress.paths"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || !has(self.httpRoute)",message="spec.ingress and spec.httpRoute cannot both be set: the app is exposed by an Ingress or by a Gateway API HTTPRoute, not both",fieldPath=".httpRoute"
// +kubebuilder:validation:XValidation:rule="!has(self.httpRoute) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP'))",message="spec.httpRoute needs a TCP port in spec.ports to route to",fieldPath=".httpRoute"
// +kubebuilder:validation:XValidation:rule="!has(self.httpRoute) || !has(self.httpRoute.paths) || self.httpRoute.paths.all(x, !has(x.port) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP' && (type(x.port) == int ? p.port == x.port : (has(p.name) && p.name == x.port)))))",message="every spec.httpRoute.paths[*].port must name or number a TCP port of spec.ports",fieldPath=".httpRoute.paths"
// +kubebuilder:validation:XValidation:rule="!has(self.autoscaling) || !has(self.autoscaling.targetCPUUtilizationPercentage) || (has(self.resources) && has(self.resources.requests) && 'cpu' in self.resources.requests && quantity(string(self.resources.requests['cpu'])).compareTo(quantity('0')) > 0)",message="autoscaling on CPU needs resources.requests.cpu, above 0: spec.autoscaling.targetCPUUtilizationPercentage is a share of spec.resources.requests.cpu",fieldPath=".autoscaling.targetCPUUtilizationPercentage"
// +kubebuilder:validation:XValidation:rule="!has(self.autoscaling) || !has(self.autoscaling.targetMemoryUtilizationPercentage) || (has(self.resources) && has(self.resources.requests) && 'memory' in self.resources.requests && quantity(string(self.resources.requests['memory'])).compareTo(quantity('0')) > 0)",message="autoscaling on memory needs resources.requests.memory, above 0: spec.autoscaling.targetMemoryUtilizationPercentage is a share of spec.resources.requests.memory",fieldPath=".autoscaling.targetMemoryUtilizationPercentage"
// +kubebuilder:validation:XValidation:rule="!has(self.readinessProbe) || [has(self.readinessProbe.httpGet) ? self.readinessProbe.httpGet.port : 0, has(self.readinessProbe.tcpSocket) ? self.readinessProbe.tcpSocket.port : 0].all(x, type(x) == int || (has(self.ports) && self.ports.exists(p, (has(p.targetPort) && type(p.targetPort) == string) ? p.targetPort == x : (has(p.name) && p.name == x))))",message="spec.readinessProbe's httpGet or tcpSocket port names no container port: give the port by number, or by a name of spec.ports[*].name (or that port's spec.ports[*].targetPort when it is a name)",fieldPath=".readinessProbe"
// +kubebuilder:validation:XValidation:rule="!has(self.livenessProbe) || [has(self.livenessProbe.httpGet) ? self.livenessProbe.httpGet.port : 0, has(self.livenessProbe.tcpSocket) ? self.livenessProbe.tcpSocket.port : 0].all(x, type(x) == int || (has(self.ports) && self.ports.exists(p, (has(p.targetPort) && type(p.targetPort) == string) ? p.targetPort == x : (has(p.name) && p.name == x))))",message="spec.livenessProbe's httpGet or tcpSocket port names no container port: give the port by number, or by a name of spec.ports[*].name (or that port's spec.ports[*].targetPort when it is a name)",fieldPath=".livenessProbe"
// +kubebuilder:validation:XValidation:rule="!has(self.startupProbe) || [has(self.startupProbe.httpGet) ? self.startupProbe.httpGet.port : 0, has(self.startupProbe.tcpSocket) ? self.startupProbe.tcpSocket.port : 0].all(x, type(x) == int || (has(self.ports) && self.ports.exists(p, (has(p.targetPort) && type(p.targetPort) == string) ? p.targetPort == x : (has(p.name) && p.name == x))))",message="spec.startupProbe's httpGet or tcpSocket port names no container port: give the port by number, or by a name of spec.ports[*].name (or that port's spec.ports[*].targetPort when it is a name)",fieldPath=".startupProbe"
// +kubebuilder:validation:XValidation:rule="!((has(self.securityContext) && has(self.securityContext.runAsNonRoot)) ? self.securityContext.runAsNonRoot : (has(self.podSecurityContext) && has(self.podSecurityContext.runAsNonRoot) && self.podSecurityContext.runAsNonRoot)) || ((has(self.securityContext) && has(self.securityContext.runAsUser)) ? self.securityContext.runAsUser != 0 : (!has(self.podSecurityContext) || !has(self.podSecurityContext.runAsUser) || self.podSecurityContext.runAsUser != 0))",message="spec.securityContext over spec.podSecurityContext (the container's fields override the pod's) gives runAsNonRoot true with runAsUser 0, and the kubelet would never start the container: set runAsUser to a user other than 0 in either, or runAsNonRoot false",fieldPath=".securityContext"
// +kubebuilder:validation:XValidation:rule="!has(self.service) || (has(self.ports) && size(self.ports) > 0)",message="spec.service needs spec.ports: an app without ports has no Service",fieldPath=".service"
// +kubebuilder:validation:XValidation:rule="!has(self.service) || !has(self.service.type) || self.service.type != 'ClusterIP' || !has(self.ports) || self.ports.all(p, !has(p.nodePort))",message="spec.service.type ClusterIP cannot have a spec.ports[*].nodePort: a node port needs type NodePort or LoadBalancer",fieldPath=".service.type"
// +kubebuilder:validation:XValidation:rule="!has(self.lifecycle) || !has(self.lifecycle.preStop) || !has(self.lifecycle.preStop.sleep) || self.lifecycle.preStop.sleep.seconds < (has(self.terminationGracePeriodSeconds) ? self.terminationGracePeriodSeconds : 30)",message="spec.terminationGracePeriodSeconds (30 when unset) must exceed spec.lifecycle.preStop.sleep.seconds: the app needs time to stop after the pause",fieldPath=".lifecycle.preStop.sleep.seconds"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptionBudget) || !has(self.disruptionBudget.minAvailable) || (oldSelf.hasValue() && has(oldSelf.value().disruptionBudget) && oldSelf.value().disruptionBudget == self.disruptionBudget && (has(oldSelf.value().autoscaling) ? oldSelf.value().autoscaling.?minReplicas.orValue(1) : oldSelf.value().?replica.orValue(1)) == (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1))) || (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1)) == 0 || (type(self.disruptionBudget.minAvailable) == int ? (self.disruptionBudget.minAvailable == 0 || self.disruptionBudget.minAvailable < (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1))) : (!string(self.disruptionBudget.minAvailable).matches('^[0-9]+%$') || int(string(self.disruptionBudget.minAvailable).substring(0, size(string(self.disruptionBudget.minAvailable)) - 1)) * (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1)) <= 100 * ((has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1)) - 1)))",message="spec.disruptionBudget.minAvailable must leave at least one pod free to evict at the app's fewest pods, spec.replica (1 when unset), or spec.autoscaling.minReplicas (1 when unset) with autoscaling: lower it below that number (a percentage is rounded up to whole pods), or set maxUnavailable instead",fieldPath=".disruptionBudget.minAvailable",optionalOldSelf=true
// +kubebuilder:validation:XValidation:rule="(has(self.initContainers) ? self.initContainers.map(c, c.name) : []).all(n, !has(self.sidecars) || !self.sidecars.exists(c, c.name == n))",message="the names of spec.initContainers and spec.sidecars must be unique among the pod's containers",fieldPath=".sidecars"
// +kubebuilder:validation:XValidation:rule="!has(self.initContainers) || self.initContainers.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))",message="every spec.initContainers[*].volumeMounts[*].name must name a volume of spec.volumes: add the volume, or fix the name",fieldPath=".initContainers"
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || self.sidecars.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))",message="every spec.sidecars[*].volumeMounts[*].name must name a volume of spec.volumes: add the volume, or fix the name",fieldPath=".sidecars"
// +kubebuilder:validation:XValidation:rule="!has(self.initContainers) || self.initContainers.all(c, !((has(c.securityContext) && has(c.securityContext.runAsNonRoot)) ? c.securityContext.runAsNonRoot : (has(self.podSecurityContext) && has(self.podSecurityContext.runAsNonRoot) && self.podSecurityContext.runAsNonRoot)) || ((has(c.securityContext) && has(c.securityContext.runAsUser)) ? c.securityContext.runAsUser != 0 : (!has(self.podSecurityContext) || !has(self.podSecurityContext.runAsUser) || self.podSecurityContext.runAsUser != 0)))",message="a spec.initContainers[*].securityContext over spec.podSecurityContext (the container's fields override the pod's) gives runAsNonRoot true with runAsUser 0, and the kubelet would never start it: set runAsUser to a user other than 0 in either, or runAsNonRoot false",fieldPath=".initContainers"
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || self.sidecars.all(c, !((has(c.securityContext) && has(c.securityContext.runAsNonRoot)) ? c.securityContext.runAsNonRoot : (has(self.podSecurityContext) && has(self.podSecurityContext.runAsNonRoot) && self.podSecurityContext.runAsNonRoot)) || ((has(c.securityContext) && has(c.securityContext.runAsUser)) ? c.securityContext.runAsUser != 0 : (!has(self.podSecurityContext) || !has(self.podSecurityContext.runAsUser) || self.podSecurityContext.runAsUser != 0)))",message="a spec.sidecars[*].securityContext over spec.podSecurityContext (the container's fields override the pod's) gives runAsNonRoot true with runAsUser 0, and the kubelet would never start it: set runAsUser to a user other than 0 in either, or runAsNonRoot false",fieldPath=".sidecars"
// +kubebuilder:validation:XValidation:rule="!has(self.autoscaling) || !oldSelf.hasValue() || !has(oldSelf.value().autoscaling) || self.?replica.orValue(1) == oldSelf.value().?replica.orValue(1)",message="spec.replica cannot change while spec.autoscaling is set: its autoscaler owns the replicas, and kubectl scale or another autoscaler would fight it; change spec.autoscaling's minReplicas and maxReplicas instead, or remove spec.autoscaling first",fieldPath=".replica",optionalOldSelf=true
// +kubebuilder:validation:XValidation:rule="!has(self.statefulSet) || self.workload == 'StatefulSet'",message="spec.statefulSet goes with spec.workload StatefulSet: set the workload, or remove spec.statefulSet",fieldPath=".statefulSet"
// +kubebuilder:validation:XValidation:rule="self.workload != 'StatefulSet' || !has(self.strategy)",message="spec.strategy is a Deployment's: a StatefulSet replaces its pods one at a time, from the highest ordinal; hold a rollout back with spec.statefulSet.partition",fieldPath=".strategy"
// +kubebuilder:validation:XValidation:rule="!has(self.statefulSet) || !has(self.statefulSet.volumeClaimTemplates) || !has(self.volumes) || self.statefulSet.volumeClaimTemplates.all(c, !self.volumes.exists(v, v.name == c.name))",message="every spec.statefulSet.volumeClaimTemplates[*].name must differ from the names of spec.volumes: rename one",fieldPath=".statefulSet.volumeClaimTemplates"
// +kubebuilder:validation:XValidation:rule="!has(self.statefulSet) || !has(self.statefulSet.volumeClaimTemplates) || !has(self.volumeMounts) || self.statefulSet.volumeClaimTemplates.all(c, !self.volumeMounts.exists(m, m.mountPath == c.mountPath))",message="every spec.statefulSet.volumeClaimTemplates[*].mountPath must differ from those of spec.volumeMounts: one path holds one volume",fieldPath=".statefulSet.volumeClaimTemplates"
// +kubebuilder:validation:XValidation:rule="has(self.statefulSet) == has(oldSelf.statefulSet) || !has((has(self.statefulSet) ? self : oldSelf).statefulSet.volumeClaimTemplates)",message="spec.statefulSet.volumeClaimTemplates cannot change: a StatefulSet keeps the claims it was made with; create a new app to change them",fieldPath=".statefulSet.volumeClaimTemplates"
// +kubebuilder:validation:XValidation:rule="has(self.statefulSet) == has(oldSelf.statefulSet) || (has(self.statefulSet) ? self : oldSelf).statefulSet.podManagementPolicy == 'OrderedReady'",message="spec.statefulSet.podManagementPolicy cannot change: a StatefulSet keeps the policy it was made with",fieldPath=".statefulSet.podManagementPolicy"
type DemoApplicationSpec struct {
	// image is the container image to run, for example nginx:1.27.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.trim() == self",message="image must not have leading or trailing spaces"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Image string `json:"image"`

	// replica is the number of pods, and the scale subresource: kubectl scale or an autoscaler
	// may set it, except while spec.autoscaling is set.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replica *int32 `json:"replica,omitempty"`

	// workload is the kind of object that runs the pods: Deployment (the default), or
	// StatefulSet, whose pods keep their names, their per-pod Services and their volumes
	// (spec.statefulSet). It cannot change: a StatefulSet app's data lives in its claims.
	// +optional
	// +kubebuilder:default=Deployment
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.workload cannot change: create an app of the other workload beside this one, move the traffic and the data, then delete this one"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Workload",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Deployment","urn:alm:descriptor:com.tectonic.ui:select:StatefulSet"}
	Workload Workload `json:"workload,omitempty"`

	// statefulSet sets what a StatefulSet workload adds: per-pod volumes, pod management and
	// a rollout partition.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="StatefulSet"
	StatefulSet *StatefulSetSettings `json:"statefulSet,omitempty"`

	// ports are exposed by the application's Service, and are container ports too, numbered and
	// named by their targetPort (else their own).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=24
	// +kubebuilder:validation:XValidation:rule="size(self) <= 1 || self.all(p, has(p.name) && size(p.name) > 0)",message="every port needs a name when there is more than one port: set spec.ports[*].name on each"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.name) || self.exists_one(q, has(q.name) && q.name == p.name))",message="port names must be unique"
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q.port == p.port && q.protocol == p.protocol))",message="port numbers must be unique for each protocol"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.nodePort) || self.exists_one(q, has(q.nodePort) && q.nodePort == p.nodePort))",message="nodePorts must be unique"
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.all(q, p.protocol != q.protocol || ((has(p.targetPort) && type(p.targetPort) == int) ? int(p.targetPort) : p.port) != ((has(q.targetPort) && type(q.targetPort) == int) ? int(q.targetPort) : q.port) || ((has(p.targetPort) && type(p.targetPort) == string) ? string(p.targetPort) : (has(p.name) ? p.name : '')) == ((has(q.targetPort) && type(q.targetPort) == string) ? string(q.targetPort) : (has(q.name) ? q.name : ''))))",message="two spec.ports reach one container port (same protocol, and same targetPort number, else port) under different names: a container port has one name, so give them the same spec.ports[*].name (or the same named spec.ports[*].targetPort), or make them target different numbers"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ports"
	Ports []DemoApplicationPort `json:"ports,omitempty"`

	// service sets the type and annotations of the app's Service, such as a LoadBalancer's.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service"
	Service *ServiceSettings `json:"service,omitempty"`

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

	// imagePullPolicy is when the kubelet pulls the image; unset, Always for a :latest or
	// untagged image, IfNotPresent otherwise.
	// +optional
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Pull Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:imagePullPolicy"}
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// imagePullSecrets name kubernetes.io/dockerconfigjson Secrets with registry credentials.
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

	// rolloutOnConfigChange rolls the pods when a ConfigMap or Secret they read changes, by a
	// hash of only the keys read, in the paas.cmft.com/config-hash pod annotation: Env (default)
	// for those read by env and envFrom, All for volumes too, None for none. A missing one that
	// is not optional is reported in status, and holds the roll until it exists.
	// +optional
	// +kubebuilder:default=Env
	// +kubebuilder:validation:Enum=Env;All;None
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Roll Out on Config Change",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Env","urn:alm:descriptor:com.tectonic.ui:select:All","urn:alm:descriptor:com.tectonic.ui:select:None"}
	RolloutOnConfigChange ConfigRollout `json:"rolloutOnConfigChange,omitempty"`

	// serviceAccountName is the pods' ServiceAccount; empty, the namespace's default.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Account",xDescriptors={"urn:alm:descriptor:io.kubernetes:ServiceAccount"}
	ServiceAccountName ObjectName `json:"serviceAccountName,omitempty"`

	// automountServiceAccountToken mounts the ServiceAccount's token in the pods; unset, the
	// ServiceAccount decides.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Mount the Service Account Token",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`

	// podLabels are added to the pods' labels, except those the operator sets.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="podLabels keys must be label keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k in ['app.kubernetes.io/name', 'paas.cmft.com/demoapplication', 'app.kubernetes.io/managed-by'])",message="podLabels cannot set app.kubernetes.io/name, paas.cmft.com/demoapplication or app.kubernetes.io/managed-by: the operator sets them"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Labels"
	PodLabels map[string]LabelValue `json:"podLabels,omitempty"`

	// podAnnotations are added to the pods' annotations, except AppArmor and seccomp ones.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k.startsWith('container.apparmor.security.beta.kubernetes.io/') || k.startsWith('seccomp.security.alpha.kubernetes.io/'))",message="podAnnotations cannot set AppArmor or seccomp annotations (container.apparmor.security.beta.kubernetes.io/*, seccomp.security.alpha.kubernetes.io/*): use securityContext.seccompProfile"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="podAnnotations keys must be annotation keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Annotations"
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`

	// nodeSelector keeps the pods to nodes carrying all these labels.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="nodeSelector keys must be label keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Selector"
	NodeSelector map[string]LabelValue `json:"nodeSelector,omitempty"`

	// tolerations let the pods run on nodes with matching taints, other than the control
	// plane's, so that an app never runs beside the API server.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.key) && size(t.key) > 0)",message="every toleration needs a key: one without tolerates every taint, the control plane's included"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.key) && t.key in ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'])",message="tolerations cannot tolerate the control plane's taints (node-role.kubernetes.io/control-plane, node-role.kubernetes.io/master)"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tolerations"
	Tolerations []Toleration `json:"tolerations,omitempty"`

	// priorityClassName names the pods' PriorityClass, which ranks them for preemption and
	// eviction; unset, the cluster's default.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('system-')",message="spec.priorityClassName cannot name a system- PriorityClass: those are for the cluster's own components"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Priority Class",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	PriorityClassName ObjectName `json:"priorityClassName,omitempty"`

	// topologySpreadConstraints spread the app's pods over nodes, zones or other domains.
	// +optional
	// +listType=map
	// +listMapKey=topologyKey
	// +listMapKey=whenUnsatisfiable
	// +kubebuilder:validation:MaxItems=8
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Topology Spread"
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// strategy is how a rollout replaces the pods: RollingUpdate (the default) or Recreate.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout Strategy",xDescriptors={"urn:alm:descriptor:io.kubernetes:updateStrategy"}
	Strategy *DeploymentStrategy `json:"strategy,omitempty"`

	// minReadySeconds is how long a new pod must be ready to count as available: less than
	// 600, the Deployment's progress deadline.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self < 600",message="spec.minReadySeconds must be less than the Deployment's spec.progressDeadlineSeconds, 600: the Deployment would be refused"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Minimum Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// revisionHistoryLimit is how many old ReplicaSets are kept; unset, 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Revision History Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// disruptionBudget bounds how many of the app's pods a node drain may evict at once, by a
	// PodDisruptionBudget of the app's name. Unset, an app of more than one pod gets
	// maxUnavailable 1, and one of one pod none, which would block every drain. A budget set
	// here stays at any replica count, and must let at least one pod go.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Disruption Budget"
	DisruptionBudget *DisruptionBudget `json:"disruptionBudget,omitempty"`

	// terminationGracePeriodSeconds is how long a stopping pod has, preStop included, before
	// it is killed; unset, 30.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Termination Grace Period",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`

	// affinity attracts the pods to nodes and keeps the app's pods apart.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Affinity"
	Affinity *Affinity `json:"affinity,omitempty"`

	// ingress exposes the app's Service by an Ingress of the app's name; removing it deletes it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress"
	Ingress *Ingress `json:"ingress,omitempty"`

	// httpRoute exposes the app's Service by a Gateway API HTTPRoute of the app's name, in place
	// of ingress; it needs the Gateway API CRDs when the operator starts. Removing it deletes it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="HTTPRoute"
	HTTPRoute *HTTPRoute `json:"httpRoute,omitempty"`

	// networkPolicy, once enabled, lets only the peers it names reach the app's pods, by a
	// NetworkPolicy of the app's name (which needs a network plugin that enforces it).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Network Policy"
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`

	// autoscaling scales the pods with their CPU or memory use, by a HorizontalPodAutoscaler
	// of the app's name, which owns the replicas while it is set: replica is not applied and
	// cannot change. Removing it deletes the autoscaler.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaling"
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`

	// volumes the pods can mount: ConfigMaps, Secrets, emptyDirs and existing claims.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volumes"
	Volumes []Volume `json:"volumes,omitempty"`

	// volumeMounts mount volumes into the container, each at its own path.
	// +optional
	// +listType=map
	// +listMapKey=mountPath
	// +kubebuilder:validation:MaxItems=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume Mounts"
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty"`

	// readinessProbe tells when a pod may take traffic; a rollout waits for it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Readiness Probe"
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`

	// livenessProbe tells when the container must be restarted.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.successThreshold) || self.successThreshold <= 1",message="a livenessProbe's successThreshold must be 1",fieldPath=".successThreshold"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Liveness Probe"
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`

	// startupProbe holds the other probes back until it succeeds.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.successThreshold) || self.successThreshold <= 1",message="a startupProbe's successThreshold must be 1",fieldPath=".successThreshold"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Startup Probe"
	StartupProbe *Probe `json:"startupProbe,omitempty"`

	// lifecycle holds what the container does before it is stopped. Unset, an app with ports
	// pauses 5 seconds (at most terminationGracePeriodSeconds less one) before SIGTERM, by the
	// kubelet's sleep action, so that no request is lost as its endpoints go.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Lifecycle"
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`

	// securityContext is the container's; its fields override podSecurityContext's. Where the
	// restricted Pod Security Standard is enforced, what both leave unset gets its values, so
	// that the pods are admitted; elsewhere it stays unset.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Context"
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`

	// podSecurityContext is the pod's, for every container.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Security Context"
	PodSecurityContext *PodSecurityContext `json:"podSecurityContext,omitempty"`

	// initContainers run in order, each to completion, after the sidecars start and before
	// the app's container: a migration, a wait for a dependency. A failing one is restarted and
	// holds the pod back; they get the security defaults the app's container gets.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Init Containers"
	InitContainers []Container `json:"initContainers,omitempty"`

	// sidecars run beside the app's container for the pod's whole life (a proxy, a log
	// shipper): native sidecars (Kubernetes 1.29 and later), started before the initContainers
	// and stopped last. Their readinessProbe counts in the pod's.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Sidecars"
	Sidecars []Sidecar `json:"sidecars,omitempty"`

	// podServices gives each pod a Service of its own, to reach one chosen pod.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Per-pod Services"
	PodServices *PodServices `json:"podServices,omitempty"`
}

// DemoApplicationStatus is what the operator observed, rebuilt from the owned Deployment on
// every reconcile, failed or not; it is never read back as input. What a reconcile could not
// observe stays as the previous one wrote it.
type DemoApplicationStatus struct {
	// observedGeneration is the generation of the spec the conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// desiredReplicas is the number of pods the Deployment asks for.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Desired Replicas"
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`

	// replicas is the number of pods the Deployment runs.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas int32 `json:"replicas,omitempty"`

	// selector selects the app's pods, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`

	// readyReplicas is the number of pods that are ready.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas"
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of pods ready for minReadySeconds.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Available Replicas"
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// podServices is the number of per-pod Services in place.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Per-pod Services"
	PodServices int32 `json:"podServices,omitempty"`

	// url is where the app answers: the first host of the Ingress (https with TLS) or of the
	// HTTPRoute (with its first path) that is not a wildcard; empty without one.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="URL",xDescriptors={"urn:alm:descriptor:org.w3:link"}
	URL string `json:"url,omitempty"`

	// conditions: Available, Progressing and Degraded (whose reason says why pods are missing)
	// follow the Deployment and its pods; Ready, Reconciling and Stalled sum them up, for
	// kstatus and Argo CD.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replica,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=demoapp;demoapps,categories=all
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Demo Application",resources={{Deployment,v1},{Event,v1},{HTTPRoute,v1},{HorizontalPodAutoscaler,v2},{Ingress,v1},{NetworkPolicy,v1},{PodDisruptionBudget,v1},{Service,v1},{StatefulSet,v1}}
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))",optionalOldSelf=true,message="metadata.name must be at most 63 characters, start with a letter and hold only lowercase letters, digits and '-': it names the app's Service and is the value of its pods' labels"
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || self.spec.?workload.orValue('Deployment') != 'StatefulSet' || size(self.metadata.name) <= 52",optionalOldSelf=true,message="metadata.name must be at most 52 characters for a StatefulSet app: its pods' controller-revision-hash label adds 11 to the name"

// DemoApplication runs a container image as a Deployment, or a StatefulSet, exposed by a Service.
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
