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
	// ReasonStatefulSetMissing: the StatefulSet of a StatefulSet app does not exist (yet).
	ReasonStatefulSetMissing = "StatefulSetMissing"
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
	// ReasonStatefulSetFailed: the API server refused to let the operator read or write the
	// StatefulSet of a StatefulSet app.
	ReasonStatefulSetFailed = "StatefulSetFailed"
	// ReasonGoverningServiceFailed: the API server refused to let the operator read, write or
	// delete the headless Service that gives a StatefulSet app's pods their DNS names.
	ReasonGoverningServiceFailed = "GoverningServiceFailed"
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
	// ReasonVolumeClaimPending: a pod waits for a PersistentVolumeClaim to be bound (a
	// StorageClass that does not exist, no volume to bind, a provisioner that fails); the
	// message is the claim's, from its Events.
	ReasonVolumeClaimPending = "VolumeClaimPending"
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
