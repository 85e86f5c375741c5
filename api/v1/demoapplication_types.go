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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DemoApplicationSpec is what the user declares: one container image, run as a Deployment
// and exposed by a Service.
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || size(self.ports) <= 1 || self.ports.all(p, has(p.name) && size(p.name) > 0)",message="every port needs a name when there is more than one port",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, !has(p.name) || self.ports.exists_one(q, has(q.name) && q.name == p.name))",message="port names must be unique",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, self.ports.exists_one(q, q.port == p.port && q.protocol == p.protocol))",message="port numbers must be unique for each protocol",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.ports) || self.ports.all(p, !has(p.nodePort) || self.ports.exists_one(q, has(q.nodePort) && q.nodePort == p.nodePort))",message="nodePorts must be unique",fieldPath=".ports"
// +kubebuilder:validation:XValidation:rule="!has(self.podServices) || !has(self.podServices.enabled) || !self.podServices.enabled || (has(self.ports) && size(self.ports) > 0)",message="podServices needs at least one port to expose",fieldPath=".podServices"
// +kubebuilder:validation:XValidation:rule="!has(self.podServices) || !has(self.podServices.ports) || self.podServices.ports.all(n, has(self.ports) && self.ports.exists(p, has(p.name) && p.name == n))",message="podServices.ports must name ports of spec.ports",fieldPath=".podServices.ports"
// +kubebuilder:validation:XValidation:rule="!has(self.volumeMounts) || self.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))",message="every volumeMount must name a volume of spec.volumes",fieldPath=".volumeMounts"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP'))",message="ingress needs a TCP port in spec.ports to route to",fieldPath=".ingress"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || !has(self.ingress.paths) || self.ingress.paths.all(x, !has(x.port) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP' && (type(x.port) == int ? p.port == x.port : (has(p.name) && p.name == x.port)))))",message="every ingress path's port must name or number a TCP port of spec.ports",fieldPath=".ingress.paths"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || !has(self.httpRoute)",message="spec.ingress and spec.httpRoute cannot both be set: the app is exposed by an Ingress or by a Gateway API HTTPRoute, not both",fieldPath=".httpRoute"
// +kubebuilder:validation:XValidation:rule="!has(self.httpRoute) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP'))",message="spec.httpRoute needs a TCP port in spec.ports to route to",fieldPath=".httpRoute"
// +kubebuilder:validation:XValidation:rule="!has(self.httpRoute) || !has(self.httpRoute.paths) || self.httpRoute.paths.all(x, !has(x.port) || (has(self.ports) && self.ports.exists(p, p.protocol == 'TCP' && (type(x.port) == int ? p.port == x.port : (has(p.name) && p.name == x.port)))))",message="every spec.httpRoute.paths[*].port must name or number a TCP port of spec.ports",fieldPath=".httpRoute.paths"
// +kubebuilder:validation:XValidation:rule="!has(self.autoscaling) || !has(self.autoscaling.targetCPUUtilizationPercentage) || (has(self.resources) && has(self.resources.requests) && 'cpu' in self.resources.requests && quantity(string(self.resources.requests['cpu'])).compareTo(quantity('0')) > 0)",message="autoscaling on CPU needs resources.requests.cpu, above 0: spec.autoscaling.targetCPUUtilizationPercentage is a share of spec.resources.requests.cpu",fieldPath=".autoscaling.targetCPUUtilizationPercentage"
// +kubebuilder:validation:XValidation:rule="!has(self.autoscaling) || !has(self.autoscaling.targetMemoryUtilizationPercentage) || (has(self.resources) && has(self.resources.requests) && 'memory' in self.resources.requests && quantity(string(self.resources.requests['memory'])).compareTo(quantity('0')) > 0)",message="autoscaling on memory needs resources.requests.memory, above 0: spec.autoscaling.targetMemoryUtilizationPercentage is a share of spec.resources.requests.memory",fieldPath=".autoscaling.targetMemoryUtilizationPercentage"
// +kubebuilder:validation:XValidation:rule="!has(self.readinessProbe) || [has(self.readinessProbe.httpGet) ? self.readinessProbe.httpGet.port : 0, has(self.readinessProbe.tcpSocket) ? self.readinessProbe.tcpSocket.port : 0].all(x, type(x) == int || (has(self.ports) && self.ports.exists(p, (has(p.targetPort) && type(p.targetPort) == string) ? p.targetPort == x : (has(p.name) && p.name == x))))",message="spec.readinessProbe's port, by name, must name a container port: a spec.ports[*].name, or its targetPort when that is a name (the kubelet probes no other)",fieldPath=".readinessProbe"
// +kubebuilder:validation:XValidation:rule="!has(self.livenessProbe) || [has(self.livenessProbe.httpGet) ? self.livenessProbe.httpGet.port : 0, has(self.livenessProbe.tcpSocket) ? self.livenessProbe.tcpSocket.port : 0].all(x, type(x) == int || (has(self.ports) && self.ports.exists(p, (has(p.targetPort) && type(p.targetPort) == string) ? p.targetPort == x : (has(p.name) && p.name == x))))",message="spec.livenessProbe's port, by name, must name a container port: a spec.ports[*].name, or its targetPort when that is a name (the kubelet probes no other)",fieldPath=".livenessProbe"
// +kubebuilder:validation:XValidation:rule="!has(self.startupProbe) || [has(self.startupProbe.httpGet) ? self.startupProbe.httpGet.port : 0, has(self.startupProbe.tcpSocket) ? self.startupProbe.tcpSocket.port : 0].all(x, type(x) == int || (has(self.ports) && self.ports.exists(p, (has(p.targetPort) && type(p.targetPort) == string) ? p.targetPort == x : (has(p.name) && p.name == x))))",message="spec.startupProbe's port, by name, must name a container port: a spec.ports[*].name, or its targetPort when that is a name (the kubelet probes no other)",fieldPath=".startupProbe"
// +kubebuilder:validation:XValidation:rule="!((has(self.securityContext) && has(self.securityContext.runAsNonRoot)) ? self.securityContext.runAsNonRoot : (has(self.podSecurityContext) && has(self.podSecurityContext.runAsNonRoot) && self.podSecurityContext.runAsNonRoot)) || ((has(self.securityContext) && has(self.securityContext.runAsUser)) ? self.securityContext.runAsUser != 0 : (!has(self.podSecurityContext) || !has(self.podSecurityContext.runAsUser) || self.podSecurityContext.runAsUser != 0))",message="runAsNonRoot of spec.securityContext or spec.podSecurityContext cannot hold with runAsUser 0 of the other: the container's fields override the pod's, and the kubelet would never start it",fieldPath=".securityContext"
// +kubebuilder:validation:XValidation:rule="!has(self.service) || (has(self.ports) && size(self.ports) > 0)",message="spec.service needs spec.ports: an app without ports has no Service",fieldPath=".service"
// +kubebuilder:validation:XValidation:rule="!has(self.service) || !has(self.service.type) || self.service.type != 'ClusterIP' || !has(self.ports) || self.ports.all(p, !has(p.nodePort))",message="spec.service.type ClusterIP cannot have a spec.ports[*].nodePort: a node port needs type NodePort or LoadBalancer",fieldPath=".service.type"
// +kubebuilder:validation:XValidation:rule="!has(self.lifecycle) || !has(self.lifecycle.preStop) || !has(self.lifecycle.preStop.sleep) || self.lifecycle.preStop.sleep.seconds < (has(self.terminationGracePeriodSeconds) ? self.terminationGracePeriodSeconds : 30)",message="spec.terminationGracePeriodSeconds (30 when unset) must exceed spec.lifecycle.preStop.sleep.seconds: the app needs time to stop after the pause",fieldPath=".lifecycle.preStop.sleep.seconds"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptionBudget) || !has(self.disruptionBudget.minAvailable) || (oldSelf.hasValue() && has(oldSelf.value().disruptionBudget) && oldSelf.value().disruptionBudget == self.disruptionBudget && (has(oldSelf.value().autoscaling) ? oldSelf.value().autoscaling.?minReplicas.orValue(1) : oldSelf.value().?replica.orValue(1)) == (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1))) || (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1)) == 0 || (type(self.disruptionBudget.minAvailable) == int ? (self.disruptionBudget.minAvailable == 0 || self.disruptionBudget.minAvailable < (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1))) : (!string(self.disruptionBudget.minAvailable).matches('^[0-9]+%$') || int(string(self.disruptionBudget.minAvailable).substring(0, size(string(self.disruptionBudget.minAvailable)) - 1)) * (has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1)) <= 100 * ((has(self.autoscaling) ? self.autoscaling.?minReplicas.orValue(1) : self.?replica.orValue(1)) - 1)))",message="spec.disruptionBudget.minAvailable must leave at least one pod free to evict at the app's fewest pods, spec.replica (1 when unset), or spec.autoscaling.minReplicas (1 when unset) with autoscaling: lower it below that number (a percentage is rounded up to whole pods), or set maxUnavailable instead",fieldPath=".disruptionBudget.minAvailable",optionalOldSelf=true
// +kubebuilder:validation:XValidation:rule="(has(self.initContainers) ? self.initContainers.map(c, c.name) : []).all(n, !has(self.sidecars) || !self.sidecars.exists(c, c.name == n))",message="the names of spec.initContainers and spec.sidecars must be unique among the pod's containers",fieldPath=".sidecars"
// +kubebuilder:validation:XValidation:rule="!has(self.initContainers) || self.initContainers.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))",message="every volumeMount of spec.initContainers must name a volume of spec.volumes",fieldPath=".initContainers"
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || self.sidecars.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))",message="every volumeMount of spec.sidecars must name a volume of spec.volumes",fieldPath=".sidecars"
// +kubebuilder:validation:XValidation:rule="!has(self.initContainers) || self.initContainers.all(c, !((has(c.securityContext) && has(c.securityContext.runAsNonRoot)) ? c.securityContext.runAsNonRoot : (has(self.podSecurityContext) && has(self.podSecurityContext.runAsNonRoot) && self.podSecurityContext.runAsNonRoot)) || ((has(c.securityContext) && has(c.securityContext.runAsUser)) ? c.securityContext.runAsUser != 0 : (!has(self.podSecurityContext) || !has(self.podSecurityContext.runAsUser) || self.podSecurityContext.runAsUser != 0)))",message="runAsNonRoot of spec.initContainers[*].securityContext or spec.podSecurityContext cannot hold with runAsUser 0 of the other: the container's fields override the pod's, and the kubelet would never start it",fieldPath=".initContainers"
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || self.sidecars.all(c, !((has(c.securityContext) && has(c.securityContext.runAsNonRoot)) ? c.securityContext.runAsNonRoot : (has(self.podSecurityContext) && has(self.podSecurityContext.runAsNonRoot) && self.podSecurityContext.runAsNonRoot)) || ((has(c.securityContext) && has(c.securityContext.runAsUser)) ? c.securityContext.runAsUser != 0 : (!has(self.podSecurityContext) || !has(self.podSecurityContext.runAsUser) || self.podSecurityContext.runAsUser != 0)))",message="runAsNonRoot of spec.sidecars[*].securityContext or spec.podSecurityContext cannot hold with runAsUser 0 of the other: the container's fields override the pod's, and the kubelet would never start it",fieldPath=".sidecars"
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
	// any port sets a nodePort, ClusterIP otherwise. Each is a port of the container too, of its
	// targetPort's number and name (else its own): ports that target one container port (number
	// and protocol) give it one name.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=24
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.all(q, p.protocol != q.protocol || ((has(p.targetPort) && type(p.targetPort) == int) ? int(p.targetPort) : p.port) != ((has(q.targetPort) && type(q.targetPort) == int) ? int(q.targetPort) : q.port) || ((has(p.targetPort) && type(p.targetPort) == string) ? string(p.targetPort) : (has(p.name) ? p.name : '')) == ((has(q.targetPort) && type(q.targetPort) == string) ? string(q.targetPort) : (has(q.name) ? q.name : ''))))",message="ports that target one container port (the number and protocol of spec.ports[*].targetPort, else port) must give it one name (their targetPort's when a name, else spec.ports[*].name): a container port has one name"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ports"
	Ports []DemoApplicationPort `json:"ports,omitempty"`

	// service sets the type and annotations of the app's Service: a LoadBalancer, or the
	// annotations a cloud's load balancer reads. Unset, the Service is a NodePort Service
	// when any port sets a nodePort, ClusterIP otherwise.
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

	// rolloutOnConfigChange rolls the pods when a ConfigMap or Secret they read changes, by a
	// hash of what they read in the pod template's paas.cmft.com/config-hash annotation: Env
	// (the default) for those read through env (valueFrom) and envFrom of every container, which
	// a running container never sees change; All for those mounted as volumes too, whose files
	// the kubelet updates in place (for an app that reads them only at start); None for none.
	// The hash covers only the keys read (every key for envFrom and a volume without items); a
	// missing ConfigMap or Secret that is not optional is reported in status, and the pods are
	// not rolled until it exists.
	// +optional
	// +kubebuilder:default=Env
	// +kubebuilder:validation:Enum=Env;All;None
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Roll Out on Config Change",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Env","urn:alm:descriptor:com.tectonic.ui:select:All","urn:alm:descriptor:com.tectonic.ui:select:None"}
	RolloutOnConfigChange ConfigRollout `json:"rolloutOnConfigChange,omitempty"`

	// serviceAccountName is the ServiceAccount the pods run as, in the app's namespace; empty
	// means the namespace's default.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Account",xDescriptors={"urn:alm:descriptor:io.kubernetes:ServiceAccount"}
	ServiceAccountName ObjectName `json:"serviceAccountName,omitempty"`

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

	// podAnnotations are added to the pods' annotations. They cannot set the AppArmor and
	// seccomp annotations (container.apparmor.security.beta.kubernetes.io/*,
	// seccomp.security.alpha.kubernetes.io/*): a pod author's Pod Security level decides those.
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

	// tolerations let the pods run on nodes with matching taints. Each names the taint's key:
	// none tolerates every taint, and the control plane's taints
	// (node-role.kubernetes.io/control-plane, node-role.kubernetes.io/master) are refused, so
	// that an app never runs beside the API server.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.key) && size(t.key) > 0)",message="every toleration needs a key: one without tolerates every taint, the control plane's included"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.key) && t.key in ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'])",message="tolerations cannot tolerate the control plane's taints (node-role.kubernetes.io/control-plane, node-role.kubernetes.io/master)"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tolerations"
	Tolerations []Toleration `json:"tolerations,omitempty"`

	// priorityClassName names the PriorityClass of the pods: how they rank when the scheduler
	// must preempt, and when a node under pressure evicts. Unset, the cluster's default.
	// The system- classes are the cluster's own components'.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('system-')",message="spec.priorityClassName cannot name a system- PriorityClass: those are for the cluster's own components"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Priority Class",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	PriorityClassName ObjectName `json:"priorityClassName,omitempty"`

	// topologySpreadConstraints spread the app's pods over nodes, zones or any topology
	// domain: each selects the app's own pods.
	// +optional
	// +listType=map
	// +listMapKey=topologyKey
	// +listMapKey=whenUnsatisfiable
	// +kubebuilder:validation:MaxItems=8
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Topology Spread"
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// strategy is how a rollout replaces the old pods by new ones: RollingUpdate (the
	// default), a few at a time, or Recreate, all of them stopped before any new one starts.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rollout Strategy",xDescriptors={"urn:alm:descriptor:io.kubernetes:updateStrategy"}
	Strategy *DeploymentStrategy `json:"strategy,omitempty"`

	// minReadySeconds is how long a new pod must be ready, without a container crashing, to
	// count as available: less than the Deployment's progress deadline (600 seconds), past
	// which a rollout counts as stuck.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self < 600",message="spec.minReadySeconds must be less than the Deployment's spec.progressDeadlineSeconds, 600: the Deployment would be refused"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Minimum Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// revisionHistoryLimit is how many old ReplicaSets the Deployment keeps to roll back to;
	// unset, 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Revision History Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// disruptionBudget bounds how many of the app's pods a voluntary disruption (a node
	// drain, a cluster upgrade: the eviction API) may take down at once, by a
	// PodDisruptionBudget of the app's name. Unset, an app of more than one replica (with
	// autoscaling, a minReplicas above one) gets one of maxUnavailable 1, and a single
	// replica none: a budget on one pod would refuse every drain. A pod that is not ready
	// can always be evicted. Removing it (or going down to one replica) deletes the budget.
	// A budget must let at least one pod go, or node drains would wait forever: no
	// maxUnavailable of 0, and a minAvailable below the app's fewest pods.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Disruption Budget"
	DisruptionBudget *DisruptionBudget `json:"disruptionBudget,omitempty"`

	// terminationGracePeriodSeconds is how long a stopping pod has, its preStop pause
	// included, between the start of its termination and being killed; unset, 30.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Termination Grace Period",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`

	// affinity attracts the pods to nodes (nodeAffinity) and keeps the app's pods apart from
	// each other (podAntiAffinity) over nodes, zones or any topology domain.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Affinity"
	Affinity *Affinity `json:"affinity,omitempty"`

	// ingress exposes the app's Service over HTTP through an Ingress of the app's name,
	// served by the cluster's Ingress controller. Removing it deletes the Ingress.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress"
	Ingress *Ingress `json:"ingress,omitempty"`

	// httpRoute exposes the app's Service through a Gateway API HTTPRoute of the app's name,
	// attached to the Gateways it names: the alternative to ingress, which it cannot be set
	// with. It needs the Gateway API's CRDs in the cluster when the operator starts. Removing
	// it deletes the HTTPRoute.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="HTTPRoute"
	HTTPRoute *HTTPRoute `json:"httpRoute,omitempty"`

	// networkPolicy limits who may reach the app's pods, by a NetworkPolicy of the app's name:
	// once enabled, the pods take connections to their ports only from the peers it names,
	// and none else. It needs a network plugin that enforces NetworkPolicies; without one the
	// policy is kept but nothing applies it. Off by default; turning it off deletes the policy.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Network Policy"
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`

	// autoscaling scales the pods between minReplicas and maxReplicas with their CPU or
	// memory use, by a HorizontalPodAutoscaler of the app's name. While it is set, replica is
	// not applied: the autoscaler owns the Deployment's replicas. Removing it deletes the
	// autoscaler and applies replica again.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaling"
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`

	// volumes the pods can mount: ConfigMaps, Secrets, scratch space and existing
	// PersistentVolumeClaims.
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

	// readinessProbe tells when a pod may take traffic: until it succeeds, the Services send
	// the pod none, and a rollout waits for it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Readiness Probe"
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`

	// livenessProbe tells when the container must be restarted: it is, after failureThreshold
	// failures in a row.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.successThreshold) || self.successThreshold <= 1",message="a livenessProbe's successThreshold must be 1",fieldPath=".successThreshold"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Liveness Probe"
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`

	// startupProbe holds the other probes back until it succeeds, for an app slow to start.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.successThreshold) || self.successThreshold <= 1",message="a startupProbe's successThreshold must be 1",fieldPath=".successThreshold"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Startup Probe"
	StartupProbe *Probe `json:"startupProbe,omitempty"`

	// lifecycle holds what the container does before it is stopped. Unset, an app with ports
	// pauses 5 seconds (at most terminationGracePeriodSeconds less one) before its container
	// gets SIGTERM: the Services' endpoints and the Ingress controller stop sending it
	// requests meanwhile, so that none is lost in a rollout or a scale-down. The pause is the
	// kubelet's sleep action: it needs no shell in the image.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Lifecycle"
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`

	// securityContext is the container's: the user and group it runs as, whether it may gain
	// privileges, its capabilities, its seccomp profile, a read-only root filesystem. In a
	// namespace that enforces the restricted Pod Security Standard, what it and
	// podSecurityContext leave unset gets the standard's values (no privilege escalation, every
	// capability dropped, runAsNonRoot, the RuntimeDefault seccomp profile), so that the pods
	// are admitted; elsewhere, unset fields stay unset. The restricted sample
	// (config/samples/paas_v1_demoapplication_restricted.yaml) sets them all itself. Its fields
	// override podSecurityContext's one by one: runAsNonRoot cannot meet a runAsUser 0 of either.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Context"
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`

	// podSecurityContext is the pod's: the user, group and filesystem group of every
	// container, and its seccomp profile.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Security Context"
	PodSecurityContext *PodSecurityContext `json:"podSecurityContext,omitempty"`

	// initContainers run one after the other, each to completion, after the sidecars have
	// started and before the app's container starts: database migrations (which may use a
	// sidecar, a database proxy), a wait for a dependency. A failing one is restarted, and
	// keeps the pod from starting. Their names are unique among the pod's containers, and none
	// is app. They get the pod's security defaults as the app's container does.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Init Containers"
	InitContainers []Container `json:"initContainers,omitempty"`

	// sidecars run beside the app's container for the pod's whole life (a database proxy, a
	// log shipper): native sidecars, init containers with restartPolicy Always (Kubernetes
	// 1.29 and later), started first, before the initContainers (which can use them) and the
	// app's container, and stopped after it. A sidecar's readinessProbe counts in the pod's
	// readiness. Their names are unique among the pod's containers, and none is app.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Sidecars"
	Sidecars []Sidecar `json:"sidecars,omitempty"`

	// podServices gives each pod of the application a Service of its own, so that a client
	// can reach one chosen pod. Off unless enabled.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Per-pod Services"
	PodServices *PodServices `json:"podServices,omitempty"`
}

// ConfigRollout says which ConfigMaps and Secrets, changed, roll the app's pods: Env, All or
// None.
type ConfigRollout string

// Values of spec.rolloutOnConfigChange.
const (
	// ConfigRolloutEnv rolls the pods when a ConfigMap or Secret read through env or envFrom
	// changes.
	ConfigRolloutEnv ConfigRollout = "Env"
	// ConfigRolloutAll rolls the pods when one read through env, envFrom or a volume changes.
	ConfigRolloutAll ConfigRollout = "All"
	// ConfigRolloutNone never rolls the pods for a ConfigMap or Secret.
	ConfigRolloutNone ConfigRollout = "None"
)

// Container is an init container of the pods: the fields of the app's container that a
// helper container needs, each checked by the API server as a pod's are.
type Container struct {
	// name of the container: a DNS label, unique among the pod's containers, not app.
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

	// resources are the compute resources of the container: cpu, memory and
	// ephemeral-storage.
	// +optional
	Resources *ContainerResources `json:"resources,omitempty"`

	// securityContext is the container's, as the app's container's; in a namespace that
	// enforces the restricted Pod Security Standard, what it leaves unset gets the standard's
	// values.
	// +optional
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`

	// volumeMounts mount volumes of spec.volumes into the container, each at its own path.
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

	// ephemeral-storage, in bytes: the container's writable layer and logs.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self).startsWith('-')",message="ephemeral-storage must not be negative"
	EphemeralStorage *resource.Quantity `json:"ephemeral-storage,omitempty"`
}

// Sidecar is a container that runs beside the app's for the pod's whole life: a Container
// with probes. It has no ports of its own, so its probes name ports by number.
type Sidecar struct {
	Container `json:",inline"`

	// readinessProbe tells when the sidecar is ready; the pod is ready when all its
	// containers are.
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
	// apiVersion of the fieldPath: v1, the default. (Defaulted here as the API server defaults a
	// pod's: the operator owns the whole fieldRef, and would otherwise apply it on every pass.)
	// +optional
	// +kubebuilder:default=v1
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
	Name ObjectName `json:"name"`

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

// Toleration lets the pods run on nodes with a matching taint.
// +kubebuilder:validation:XValidation:rule="!has(self.operator) || self.operator != 'Exists' || !has(self.value) || size(self.value) == 0",message="a toleration with operator Exists takes no value"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",message="tolerationSeconds goes with effect NoExecute only"
type Toleration struct {
	// key of the taint; required (see tolerations).
	// +optional
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Key string `json:"key,omitempty"`

	// operator is Equal (the taint's value is value; the default) or Exists (any value).
	// +optional
	// +kubebuilder:validation:Enum=Equal;Exists
	Operator corev1.TolerationOperator `json:"operator,omitempty"`

	// value of the taint, with operator Equal.
	// +optional
	Value LabelValue `json:"value,omitempty"`

	// effect of the taint tolerated: NoSchedule, PreferNoSchedule or NoExecute; empty means all.
	// +optional
	// +kubebuilder:validation:Enum="";NoSchedule;PreferNoSchedule;NoExecute
	Effect corev1.TaintEffect `json:"effect,omitempty"`

	// tolerationSeconds is how long a pod stays on a node once a NoExecute taint it tolerates
	// appears; unset, forever.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// TopologySpreadConstraint spreads the app's pods over the domains of a topology key.
// +kubebuilder:validation:XValidation:rule="!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",message="minDomains goes with whenUnsatisfiable DoNotSchedule only"
type TopologySpreadConstraint struct {
	// maxSkew is the most the number of the app's pods may differ between two domains.
	// +required
	// +kubebuilder:validation:Minimum=1
	MaxSkew int32 `json:"maxSkew"`

	// topologyKey is the node label whose values are the domains, such as
	// topology.kubernetes.io/zone or kubernetes.io/hostname.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="topologyKey must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	TopologyKey string `json:"topologyKey"`

	// whenUnsatisfiable is DoNotSchedule (a pod waits) or ScheduleAnyway (the skew is a
	// preference).
	// +required
	// +kubebuilder:validation:Enum=DoNotSchedule;ScheduleAnyway
	WhenUnsatisfiable corev1.UnsatisfiableConstraintAction `json:"whenUnsatisfiable"`

	// minDomains is the fewest domains to spread over, with DoNotSchedule.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinDomains *int32 `json:"minDomains,omitempty"`
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

	// items choose the keys and the files they become; empty means every key, as a file of
	// its name.
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

	// items choose the keys and the files they become; empty means every key, as a file of
	// its name.
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

// KeyToPath is a key of a ConfigMap or Secret and the file it becomes.
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

	// mode of the file, 0 to 0777 (octal); default the volume's defaultMode.
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

	// mountPath is the absolute path in the container, without ':'.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.contains(':')",message="mountPath must be an absolute path, without ':'"
	MountPath string `json:"mountPath"`

	// subPath mounts this path of the volume rather than its root: relative, without '..'.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",message="subPath must be relative, without '..'"
	SubPath string `json:"subPath,omitempty"`

	// readOnly mounts the volume read-only.
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`
}

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

	// exec succeeds when a command run in the container exits 0.
	// +optional
	Exec *ExecAction `json:"exec,omitempty"`

	// initialDelaySeconds is how long after the container starts the first check runs.
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

	// successThreshold is how many successes in a row, after a failure, make it succeed;
	// default 1, and 1 for liveness and startup probes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	SuccessThreshold int32 `json:"successThreshold,omitempty"`

	// failureThreshold is how many failures in a row make it fail; default 3.
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

	// port of the container, a number or the name of one of its ports.
	// +required
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == string || (self >= 1 && self <= 65535)",message="port must be between 1 and 65535"
	// +kubebuilder:validation:XValidation:rule="type(self) == int || self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="a named port must be an IANA service name: at most 15 lowercase letters, digits and single hyphens, with at least one letter"
	Port intstr.IntOrString `json:"port"`

	// scheme is HTTP or HTTPS (whose certificate is not verified); default HTTP.
	// +optional
	// +kubebuilder:validation:Enum=HTTP;HTTPS
	Scheme corev1.URIScheme `json:"scheme,omitempty"`

	// httpHeaders are added to the request.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// HTTPHeader is a header of a probe's request.
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
	// port of the container, a number or the name of one of its ports.
	// +required
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="type(self) == string || (self >= 1 && self <= 65535)",message="port must be between 1 and 65535"
	// +kubebuilder:validation:XValidation:rule="type(self) == int || self.matches('^([0-9]+-)*[0-9]*[a-z][a-z0-9]*(-[a-z0-9]+)*$')",message="a named port must be an IANA service name: at most 15 lowercase letters, digits and single hyphens, with at least one letter"
	Port intstr.IntOrString `json:"port"`
}

// GRPCAction calls the gRPC health service of the container.
type GRPCAction struct {
	// port of the container.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// service is the name the health service is asked about; empty means the server as a whole.
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
	// preStop runs before the container gets SIGTERM, within terminationGracePeriodSeconds:
	// a pause, or a command.
	// +optional
	PreStop *LifecycleHandler `json:"preStop,omitempty"`
}

// LifecycleHandler is one action of the container's lifecycle: exactly one of its fields.
// +kubebuilder:validation:XValidation:rule="has(self.sleep) != has(self.exec)",message="spec.lifecycle.preStop takes exactly one of sleep and exec"
type LifecycleHandler struct {
	// sleep pauses, by the kubelet, without running anything in the container.
	// +optional
	Sleep *SleepAction `json:"sleep,omitempty"`

	// exec runs a command in the container (not in a shell: the image must have it).
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

	// allowPrivilegeEscalation lets a process gain more privileges than its parent (setuid
	// binaries); the restricted standard wants false.
	// +optional
	AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty"`

	// readOnlyRootFilesystem mounts the image's filesystem read-only.
	// +optional
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`

	// capabilities added to and dropped from the container runtime's default set; the
	// restricted standard wants ALL dropped. NET_BIND_SERVICE is the one capability that can be
	// added, as the restricted standard allows (baseline allows a few more, which no app needs).
	// +optional
	Capabilities *Capabilities `json:"capabilities,omitempty"`

	// seccompProfile filters the container's system calls.
	// +optional
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
}

// Capability is a Linux capability, named as in capabilities(7) without CAP_, or ALL.
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:Pattern=`^[A-Z][A-Z0-9_]*$`
type Capability string

// Capabilities are Linux capabilities, named as in capabilities(7) without CAP_, or ALL.
type Capabilities struct {
	// add are the capabilities added: NET_BIND_SERVICE alone, to listen on a port below 1024.
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

	// localhostProfile is the profile's path, relative to the kubelet's seccomp directory.
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

// ObjectName is the name of an object in the app's namespace (a ConfigMap, a Secret, a
// ServiceAccount, a PersistentVolumeClaim): a DNS subdomain.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
type ObjectName string

// LabelValue is the value of a label: at most 63 letters, digits, '-', '_' and '.', starting
// and ending with a letter or digit, or empty.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// LocalObjectReference names an object in the app's namespace.
type LocalObjectReference struct {
	// name of the object.
	// +required
	Name ObjectName `json:"name"`
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
	Name ObjectName `json:"name"`

	// optional lets the pods start when it does not exist.
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

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

// Affinity is the scheduling affinity of the app's pods: a curated part of a pod's.
// +kubebuilder:validation:MinProperties=1
type Affinity struct {
	// nodeAffinity keeps the pods to nodes, or prefers some, by the nodes' labels.
	// +optional
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty"`

	// podAntiAffinity keeps the app's pods apart: no two in the same topology domain
	// (required), or as few as can be (preferred).
	// +optional
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// NodeAffinity selects the nodes the pods run on by the nodes' labels.
// +kubebuilder:validation:MinProperties=1
type NodeAffinity struct {
	// requiredDuringSchedulingIgnoredDuringExecution: a pod runs only on a node that matches
	// one of its terms.
	// +optional
	RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// preferredDuringSchedulingIgnoredDuringExecution: the scheduler favours the nodes that
	// match these terms, by the sum of their weights.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeSelector is a set of node selector terms, ORed.
type NodeSelector struct {
	// nodeSelectorTerms: a node matches when it matches any.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm is a set of requirements on a node's labels, ANDed.
type NodeSelectorTerm struct {
	// matchExpressions a node's labels must all meet.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions"`
}

// NodeSelectorRequirement is a requirement on one label of a node.
// +kubebuilder:validation:XValidation:rule="self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0 : true",message="operator In and NotIn need values"
// +kubebuilder:validation:XValidation:rule="self.operator in ['Exists', 'DoesNotExist'] ? !has(self.values) || size(self.values) == 0 : true",message="operator Exists and DoesNotExist take no values"
// +kubebuilder:validation:XValidation:rule="self.operator in ['Gt', 'Lt'] ? has(self.values) && size(self.values) == 1 && self.values[0].matches('^[0-9]{1,18}$') : true",message="operator Gt and Lt take one value, a whole number (a label value cannot start with a sign)"
type NodeSelectorRequirement struct {
	// key is the label's key.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Key string `json:"key"`

	// operator relates the label's value to values: In, NotIn, Exists, DoesNotExist, Gt, Lt.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist;Gt;Lt
	Operator corev1.NodeSelectorOperator `json:"operator"`

	// values of the label: one or more for In and NotIn, none for Exists and DoesNotExist,
	// one whole number for Gt and Lt.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Values []LabelValue `json:"values,omitempty"`
}

// PreferredSchedulingTerm is a node selector term with the weight the scheduler gives it.
type PreferredSchedulingTerm struct {
	// weight of the term, from 1 to 100.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight"`

	// preference is the term a node matches.
	// +required
	Preference NodeSelectorTerm `json:"preference"`
}

// PodAntiAffinity keeps the app's own pods apart. Each term selects the app's pods: the
// operator sets its labelSelector.
// +kubebuilder:validation:MinProperties=1
type PodAntiAffinity struct {
	// requiredDuringSchedulingIgnoredDuringExecution: no two of the app's pods in one domain
	// of each term's topologyKey; a pod that cannot be placed stays Pending.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// preferredDuringSchedulingIgnoredDuringExecution: the scheduler avoids placing the app's
	// pods together, by the terms' weights.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm names the topology domain the app's pods are kept apart in.
type PodAffinityTerm struct {
	// topologyKey is the node label whose value is the domain: kubernetes.io/hostname for
	// nodes, topology.kubernetes.io/zone for zones.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="topologyKey must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	TopologyKey string `json:"topologyKey"`
}

// WeightedPodAffinityTerm is a PodAffinityTerm with the weight the scheduler gives it.
type WeightedPodAffinityTerm struct {
	// weight of the term, from 1 to 100.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight"`

	// podAffinityTerm names the topology domain.
	// +required
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// Ingress routes HTTP requests for the app's hosts and paths to its Service.
// +kubebuilder:validation:XValidation:rule="!has(self.tlsSecretName) || (has(self.hosts) && size(self.hosts) > 0)",message="spec.ingress.tlsSecretName needs spec.ingress.hosts: an Ingress controller serves a certificate for the hosts named with it, and with none, its own default certificate",fieldPath=".tlsSecretName"
type Ingress struct {
	// className names the IngressClass, the controller that serves the Ingress; empty, the
	// cluster's default class.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Ingress Class"
	ClassName ObjectName `json:"className,omitempty"`

	// hosts the Ingress answers for (a DNS name, or a wildcard *.example.com); empty, every
	// host.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^([*][.])?[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') && self.split('.').all(l, size(l) <= 63) && !self.matches('^[0-9.]+$')",message="a host must be a lowercase DNS name, optionally starting with '*.', and not an IP address"
	Hosts []string `json:"hosts,omitempty"`

	// paths routed to the app's Service, on every host; unset, "/" and everything under it,
	// to the first TCP port of spec.ports.
	// +optional
	// +listType=map
	// +listMapKey=path
	// +kubebuilder:validation:MaxItems=16
	Paths []IngressPath `json:"paths,omitempty"`

	// tlsSecretName names the Secret (of type kubernetes.io/tls) in the app's namespace that
	// holds the certificate for the hosts; unset, the Ingress serves plain HTTP. It needs
	// hosts: an Ingress controller serves a certificate for the hosts named with it.
	// +optional
	TLSSecretName ObjectName `json:"tlsSecretName,omitempty"`

	// annotations of the Ingress, which many Ingress controllers read as their settings.
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

	// pathType is how the path matches: Prefix (by path segments; the default), Exact, or
	// ImplementationSpecific (as the Ingress controller says).
	// +optional
	// +kubebuilder:default=Prefix
	// +kubebuilder:validation:Enum=Prefix;Exact;ImplementationSpecific
	PathType networkingv1.PathType `json:"pathType,omitempty"`

	// port of spec.ports the path goes to, by name or number; unset, the first TCP port.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=15
	Port *intstr.IntOrString `json:"port,omitempty"`
}

// HTTPRoute routes HTTP requests for the app's hostnames and paths, as received by the
// Gateways it attaches to, to its Service.
type HTTPRoute struct {
	// parentRefs are the Gateways, and optionally their listeners, the route attaches to. A
	// Gateway of another namespace takes the route only if its listeners' allowedRoutes admit
	// the app's namespace.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q.name == p.name && (has(q.__namespace__) ? q.__namespace__ : '') == (has(p.__namespace__) ? p.__namespace__ : '') && (has(q.sectionName) ? q.sectionName : '') == (has(p.sectionName) ? p.sectionName : '')))",message="spec.httpRoute.parentRefs must be unique"
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.all(q, q.name != p.name || (has(q.__namespace__) ? q.__namespace__ : '') != (has(p.__namespace__) ? p.__namespace__ : '') || has(q.sectionName) == has(p.sectionName)))",message="spec.httpRoute.parentRefs naming one Gateway twice must each name a sectionName"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Gateways"
	ParentRefs []GatewayReference `json:"parentRefs"`

	// hostnames the route answers for (a DNS name, or a wildcard *.example.com); empty, every
	// hostname the Gateway's listeners take.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^([*][.])?[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') && self.split('.').all(l, size(l) <= 63) && !self.matches('^[0-9.]+$')",message="a spec.httpRoute.hostnames entry must be a lowercase DNS name, optionally starting with '*.', and not an IP address"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Hostnames"
	Hostnames []string `json:"hostnames,omitempty"`

	// paths routed to the app's Service; unset, "/" and everything under it, to the first TCP
	// port of spec.ports.
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

	// sectionName names one listener of the Gateway; unset, every listener that takes the route.
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

	// type is how the path matches: PathPrefix (by path segments; the default) or Exact.
	// +optional
	// +kubebuilder:default=PathPrefix
	// +kubebuilder:validation:Enum=PathPrefix;Exact
	Type string `json:"type,omitempty"`

	// port of spec.ports the path goes to, by name or number; unset, the first TCP port.
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

	// namespaces lets every pod of these namespaces in, by name: the Ingress or Gateway
	// controller's, the monitoring one's.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`

	// from lets in the pods each peer selects: by their namespace's labels, their own, or
	// both (the pods so labelled in the namespaces so labelled). A peer's podSelector alone
	// selects pods of the app's namespace.
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

	// podSelector selects pods by their labels; empty, every pod (of the namespaces selected).
	// +optional
	PodSelector *LabelSelector `json:"podSelector,omitempty"`
}

// LabelSelector selects objects by their labels: all of matchLabels and matchExpressions
// must hold; empty, it selects everything.
type LabelSelector struct {
	// matchLabels are labels the objects must carry, with these values.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="matchLabels keys must be label keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`

	// matchExpressions are requirements on the objects' labels.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is a requirement on one label.
// +kubebuilder:validation:XValidation:rule="self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0 : !has(self.values) || size(self.values) == 0",message="operator In and NotIn need values; Exists and DoesNotExist take none"
type LabelSelectorRequirement struct {
	// key of the label.
	// +required
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Key string `json:"key"`

	// operator: In, NotIn, Exists or DoesNotExist.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator metav1.LabelSelectorOperator `json:"operator"`

	// values of the label, for In and NotIn.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	Values []LabelValue `json:"values,omitempty"`
}

// Autoscaling scales the app's pods with their resource use.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
// +kubebuilder:validation:XValidation:rule="has(self.targetCPUUtilizationPercentage) || has(self.targetMemoryUtilizationPercentage)",message="autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage"
type Autoscaling struct {
	// minReplicas is the fewest pods the autoscaler keeps.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Minimum Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the most pods the autoscaler runs.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Maximum Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	MaxReplicas int32 `json:"maxReplicas"`

	// targetCPUUtilizationPercentage is the pods' average CPU use the autoscaler aims at, as
	// a percentage of their CPU request, which must be set and above 0.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`

	// targetMemoryUtilizationPercentage is the pods' average memory use the autoscaler aims
	// at, as a percentage of their memory request, which must be set and above 0.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	TargetMemoryUtilizationPercentage *int32 `json:"targetMemoryUtilizationPercentage,omitempty"`

	// behavior is how fast the autoscaler scales down and up, such as a scale-down
	// stabilization window; unset, the autoscaler's defaults.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Autoscaling Behavior"
	Behavior *AutoscalingBehavior `json:"behavior,omitempty"`
}

// AutoscalingBehavior is how fast the autoscaler scales down and up: a curated part of a
// HorizontalPodAutoscaler's behavior.
// +kubebuilder:validation:MinProperties=1
type AutoscalingBehavior struct {
	// scaleDown bounds scaling down; unset, the autoscaler's own (a 300-second window, any
	// number of pods).
	// +optional
	ScaleDown *ScalingRules `json:"scaleDown,omitempty"`

	// scaleUp bounds scaling up; unset, the autoscaler's own (no window, at most doubling or 4
	// pods every 15 seconds).
	// +optional
	ScaleUp *ScalingRules `json:"scaleUp,omitempty"`
}

// ScalingRules bound scaling in one direction.
// +kubebuilder:validation:MinProperties=1
type ScalingRules struct {
	// stabilizationWindowSeconds is how far back the autoscaler looks for its recommendations,
	// taking the safest, so that replicas do not flap: at most one hour.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty"`

	// selectPolicy chooses among policies: Max (the default, the largest change), Min, or
	// Disabled (no scaling in this direction).
	// +optional
	// +kubebuilder:validation:Enum=Max;Min;Disabled
	SelectPolicy *autoscalingv2.ScalingPolicySelect `json:"selectPolicy,omitempty"`

	// policies each bound the change over a period: a number of pods, or a percentage of them.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	Policies []ScalingPolicy `json:"policies,omitempty"`
}

// ScalingPolicy bounds the change of replicas over a period.
type ScalingPolicy struct {
	// type is Pods or Percent.
	// +required
	// +kubebuilder:validation:Enum=Pods;Percent
	Type autoscalingv2.HPAScalingPolicyType `json:"type"`

	// value is the number of pods, or percentage, the change may reach.
	// +required
	// +kubebuilder:validation:Minimum=1
	Value int32 `json:"value"`

	// periodSeconds is the period, at most 1800.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1800
	PeriodSeconds int32 `json:"periodSeconds"`
}

// ServiceSettings are the type and annotations of the app's Service.
type ServiceSettings struct {
	// type of the Service: ClusterIP, NodePort (each port's nodePort, else one the cluster
	// allocates) or LoadBalancer (a cloud's, or the cluster's, load balancer; it opens node
	// ports too). Unset, NodePort when any port sets a nodePort, ClusterIP otherwise.
	// +optional
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Type"
	Type corev1.ServiceType `json:"type,omitempty"`

	// annotations of the Service, which load balancer controllers read as their settings.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="spec.service.annotations keys must be annotation keys: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'"
	Annotations map[string]string `json:"annotations,omitempty"`
}

// DisruptionBudget bounds the app's pods a voluntary disruption may take down: exactly one
// of minAvailable and maxUnavailable, each a number of pods or a percentage of them.
// +kubebuilder:validation:XValidation:rule="has(self.minAvailable) != has(self.maxUnavailable)",message="spec.disruptionBudget takes exactly one of minAvailable and maxUnavailable"
type DisruptionBudget struct {
	// minAvailable is how many pods must stay available through an eviction: fewer than the
	// app's fewest pods (replica, or autoscaling.minReplicas with autoscaling), a percentage
	// being rounded up to whole pods, so that a drain can always take one. An app of no
	// replica has no pod to keep, and is not held to it.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^0*(100|[0-9]{1,2})%$')",message="spec.disruptionBudget.minAvailable must be a number of pods (0 or more) or a percentage up to 100%"
	// +kubebuilder:validation:XValidation:rule="type(self) == int || !self.matches('^0*100%$')",message="spec.disruptionBudget.minAvailable cannot be 100%: a budget that keeps every pod refuses every eviction, and node drains wait forever; lower it, or set maxUnavailable instead"
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`

	// maxUnavailable is how many pods an eviction may leave unavailable: 1 or more, or a
	// percentage above 0%.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^0*(100|[0-9]{1,2})%$')",message="spec.disruptionBudget.maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%"
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self != 0 : !self.matches('^0+%$')",message="spec.disruptionBudget.maxUnavailable cannot be 0 or 0%: a budget that lets no pod go refuses every eviction, and node drains wait forever; set 1 or more, or remove disruptionBudget for the default of 1"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
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

	// desiredReplicas is the number of pods the Deployment asks for: spec.replica, or what the
	// autoscaler set when spec.autoscaling owns the replicas.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Desired Replicas"
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`

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

	// url is where the app answers: with spec.ingress, the Ingress's first host that is not a
	// wildcard, https when it has a TLS certificate; with spec.httpRoute, http:// and the
	// HTTPRoute's first hostname that is not a wildcard, then its first path; empty when
	// neither names such a host.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="URL",xDescriptors={"urn:alm:descriptor:org.w3:link"}
	URL string `json:"url,omitempty"`

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
	// ReasonIngressFailed: the API server refused to let the operator read, write or delete
	// the Ingress.
	ReasonIngressFailed = "IngressFailed"
	// ReasonAutoscalerFailed: the API server refused to let the operator read, write or
	// delete the HorizontalPodAutoscaler, or hand it the Deployment's replicas.
	ReasonAutoscalerFailed = "AutoscalerFailed"
	// ReasonHTTPRouteFailed: the API server refused to let the operator read, write or delete
	// the HTTPRoute.
	ReasonHTTPRouteFailed = "HTTPRouteFailed"
	// ReasonNetworkPolicyFailed: the API server refused to let the operator read, write or
	// delete the NetworkPolicy.
	ReasonNetworkPolicyFailed = "NetworkPolicyFailed"
	// ReasonDisruptionBudgetFailed: the API server refused to let the operator read, write or
	// delete the PodDisruptionBudget.
	ReasonDisruptionBudgetFailed = "DisruptionBudgetFailed"
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
	// ReasonConfigNotFound: a ConfigMap or Secret the pods read (env, envFrom, a volume), or
	// a key of it, does not exist and is not optional: the kubelet would not start a container
	// that reads it through env (CreateContainerConfigError) nor mount it. The pods are not
	// rolled for it until it exists; the message names it and the field that reads it.
	ReasonConfigNotFound = "ConfigNotFound"
	// ReasonCrashLoopBackOff: a pod's container keeps exiting; the message says how it last
	// ended.
	ReasonCrashLoopBackOff = "CrashLoopBackOff"
	// ReasonReadinessProbeFailed: a pod's container runs but fails its readiness probe; the
	// message is the kubelet's last probe failure. Reconciling until the Deployment's progress
	// deadline, then Degraded.
	ReasonReadinessProbeFailed = "ReadinessProbeFailed"
	// ReasonVolumeMountFailed: a pod's volume cannot be attached or mounted (a missing
	// ConfigMap, Secret or claim, a volume attached to another node); the message is the
	// kubelet's or the attach controller's.
	ReasonVolumeMountFailed = "VolumeMountFailed"
	// ReasonOOMKilled: a pod's container keeps being killed for exceeding its memory limit.
	ReasonOOMKilled = "OOMKilled"
	// ReasonEvicted: a pod was evicted from its node (node pressure); its ReplicaSet replaces
	// it. Reconciling while the replacement is not ready.
	ReasonEvicted = "Evicted"
	// ReasonAutoscalingInactive: the HorizontalPodAutoscaler cannot compute a scale (its
	// ScalingActive condition is False: no metrics, no resource request); the message is its own.
	// Reconciling while metrics may still come (a grace period from the condition's change),
	// then Degraded.
	ReasonAutoscalingInactive = "AutoscalingInactive"
	// ReasonAutoscalerUnableToScale: the HorizontalPodAutoscaler cannot read or write the
	// Deployment's scale (its AbleToScale condition is False); the message is its own. As
	// ReasonAutoscalingInactive, Reconciling for a grace period, then Degraded.
	ReasonAutoscalerUnableToScale = "AutoscalerUnableToScale"
	// ReasonIngressClassNotFound: the Ingress names an IngressClass the cluster does not have,
	// and no controller reported an address for it: no controller that goes by IngressClasses
	// serves it. Degraded until the IngressClass exists or an address is reported.
	ReasonIngressClassNotFound = "IngressClassNotFound"
	// ReasonIngressNotServed: the Ingress has had no address for a while (a Warning Event, not
	// a condition): no controller reported serving it, though some serve and never report one.
	ReasonIngressNotServed = "IngressNotServed"
	// ReasonGatewayAPIMissing: the app asks for an HTTPRoute and the cluster had no Gateway
	// API HTTPRoute CRD when the operator started. Degraded until the CRDs are installed and
	// the operator restarted.
	ReasonGatewayAPIMissing = "GatewayAPIMissing"
	// ReasonHTTPRouteNotServed: a Gateway the HTTPRoute names has not reported on it: no
	// Gateway controller serves that Gateway, or none yet. Reconciling.
	ReasonHTTPRouteNotServed = "HTTPRouteNotServed"
	// ReasonHTTPRouteNotAccepted: a Gateway refused the HTTPRoute (its Accepted condition is
	// False: a listener that does not allow the app's namespace, no matching hostname or
	// section); the message is the Gateway controller's. Degraded.
	ReasonHTTPRouteNotAccepted = "HTTPRouteNotAccepted"
	// ReasonHTTPRouteRefsUnresolved: a Gateway cannot resolve the HTTPRoute's backend (its
	// ResolvedRefs condition is False); the message is the Gateway controller's. Reconciling
	// while the Service is not found, which may be the controller not having seen it yet;
	// Degraded otherwise.
	ReasonHTTPRouteRefsUnresolved = "HTTPRouteRefsUnresolved"
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
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Demo Application",resources={{Deployment,v1},{Event,v1},{HTTPRoute,v1},{HorizontalPodAutoscaler,v2},{Ingress,v1},{NetworkPolicy,v1},{PodDisruptionBudget,v1},{Service,v1}}
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
