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

// Package v1_test checks the DemoApplication API as the API server enforces it: the CRD that
// make manifests generates from these types, installed in a real kube-apiserver.
package v1_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestSchema checks the schema's other checks (types, ranges, patterns, enums) and a few rules
// again, each at the field that it refuses: what the API server refuses names the field.
func TestSchema(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	port := func(p paasv1.DemoApplicationPort) []paasv1.DemoApplicationPort {
		return []paasv1.DemoApplicationPort{p}
	}

	for _, tc := range []struct {
		name    string
		change  func(*paasv1.DemoApplicationSpec)
		message string
	}{
		{"empty image", func(s *paasv1.DemoApplicationSpec) { s.Image = "" }, "spec.image"},
		{"negative replica", func(s *paasv1.DemoApplicationSpec) { s.Replica = ptr.To[int32](-1) }, "spec.replica"},
		{"port 0", func(s *paasv1.DemoApplicationSpec) { s.Ports = port(paasv1.DemoApplicationPort{Port: 0}) }, "spec.ports[0].port"},
		{"port above 65535", func(s *paasv1.DemoApplicationSpec) { s.Ports = port(paasv1.DemoApplicationPort{Port: 70000}) }, "spec.ports[0].port"},
		{"nodePort below the range", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, NodePort: ptr.To[int32](80)})
		}, "spec.ports[0].nodePort"},
		{"nodePort above the range", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, NodePort: ptr.To[int32](32768)})
		}, "spec.ports[0].nodePort"},
		{"targetPort out of range", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, TargetPort: ptr.To(intstr.FromInt32(0))})
		}, "targetPort must be a number from 1 to 65535"},
		{"bad protocol", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, Protocol: "HTTP"})
		}, "spec.ports[0].protocol"},
		{"duplicate port numbers", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80}, {Name: "b", Port: 80}}
		}, "port numbers must be unique for each protocol"},
		{"missing names with several ports", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80}, {Port: 81}}
		}, "every port needs a name when there is more than one port"},
		{"duplicate names", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80}, {Name: "a", Port: 81}}
		}, "port names must be unique"},
		{"duplicate nodePorts", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "a", Port: 80, NodePort: ptr.To[int32](30001)}, {Name: "b", Port: 81, NodePort: ptr.To[int32](30001)}}
		}, "nodePorts must be unique"},
		{"per-pod Services without ports", func(s *paasv1.DemoApplicationSpec) {
			s.Ports, s.PodServices = nil, &paasv1.PodServices{Enabled: true}
		}, "podServices needs at least one port to expose"},
		{"per-pod Services naming an unknown port", func(s *paasv1.DemoApplicationSpec) {
			s.Ports[0].Name = "http"
			s.PodServices = &paasv1.PodServices{Enabled: true, Ports: []string{"grpc"}}
		}, "podServices.ports must name ports of spec.ports"},
		{"per-pod Services of an unknown type", func(s *paasv1.DemoApplicationSpec) {
			s.PodServices = &paasv1.PodServices{Enabled: true, Type: "ExternalName"}
		}, "spec.podServices.type"},
		{"duplicate env names", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}
		}, "spec.env[1]"},
		// Each class TestEveryAcceptedSpecBuildsValidObjects found accepted and then refused in
		// the Deployment or a Service the operator built.
		{"port named 8080", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Name: "8080", Port: 80})
		}, "a port name must hold a letter"},
		{"port name with --", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Name: "a--b", Port: 80})
		}, "spec.ports[0].name"},
		{"targetPort named 8080", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 80, TargetPort: ptr.To(intstr.FromString("8080"))})
		}, "targetPort must be a number from 1 to 65535, or a name"},
		{"env name with =", func(s *paasv1.DemoApplicationSpec) { s.Env = []paasv1.EnvVar{{Name: "A=B"}} }, "spec.env[0].name"},
		{"env name starting with a digit", func(s *paasv1.DemoApplicationSpec) { s.Env = []paasv1.EnvVar{{Name: "1ST"}} }, "spec.env[0].name"},
		{"env with value and valueFrom", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", Value: "1", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}, "value and valueFrom cannot both be set"},
		{"env valueFrom with no source", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{}}}
		}, "valueFrom takes exactly one of"},
		{"env fieldRef of a field pods do not expose", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "status.phase"}}}}
		}, "spec.env[0].valueFrom.fieldRef.fieldPath"},
		{"env fieldRef of a label key too long", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{
				FieldPath: "metadata.labels['" + strings.Repeat("k", 64) + "']"}}}}
		}, "spec.env[0].valueFrom.fieldRef.fieldPath"},
		{"env resourceFieldRef of another container", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{ResourceFieldRef: &paasv1.ResourceFieldSelector{
				ContainerName: "sidecar", Resource: "limits.cpu"}}}}
		}, "spec.env[0].valueFrom.resourceFieldRef.containerName"},
		{"env resourceFieldRef of cpu in Mi", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{ResourceFieldRef: &paasv1.ResourceFieldSelector{
				Resource: "limits.cpu", Divisor: "1Mi"}}}}
		}, "spec.env[0].valueFrom.resourceFieldRef.divisor"},
		{"env configMapKeyRef without a name", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Key: "k"}}}}
		}, "spec.env[0].valueFrom.configMapKeyRef.name"},
		{"env secretKeyRef of key ..", func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "A", ValueFrom: &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{Name: "creds", Key: ".."}}}}
		}, "spec.env[0].valueFrom.secretKeyRef.key"},
		{"resource gpu without a domain", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Limits: corev1.ResourceList{"gpu": resource.MustParse("1")}}
		}, "resources may name cpu, memory, ephemeral-storage and domain-qualified extended resources"},
		{"negative memory", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1")}}
		}, "resource quantities must not be negative"},
		{"a request above its limit", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
			}
		}, "a resource's request must not exceed its limit"},
		{"podLabels setting the operator's selector", func(s *paasv1.DemoApplicationSpec) {
			s.PodLabels = map[string]paasv1.LabelValue{"paas.cmft.com/demoapplication": "other"}
		}, "podLabels cannot set"},
		{"podLabels value of 64 characters", func(s *paasv1.DemoApplicationSpec) {
			s.PodLabels = map[string]paasv1.LabelValue{"team": paasv1.LabelValue(strings.Repeat("v", 64))}
		}, "spec.podLabels.team"},
		{"nodeSelector key with two slashes", func(s *paasv1.DemoApplicationSpec) {
			s.NodeSelector = map[string]paasv1.LabelValue{"a/b/c": "x"}
		}, "nodeSelector keys must be label keys"},
		{"podAnnotations key with a space", func(s *paasv1.DemoApplicationSpec) {
			s.PodAnnotations = map[string]string{"bad key": "x"}
		}, "podAnnotations keys must be annotation keys"},
		{"envFrom of a ConfigMap and a Secret at once", func(s *paasv1.DemoApplicationSpec) {
			s.EnvFrom = []paasv1.EnvFromSource{{ConfigMapRef: &paasv1.OptionalObjectReference{Name: "a"}, SecretRef: &paasv1.OptionalObjectReference{Name: "b"}}}
		}, "envFrom takes exactly one of configMapRef and secretRef"},
		{"envFrom prefix starting with a digit", func(s *paasv1.DemoApplicationSpec) {
			s.EnvFrom = []paasv1.EnvFromSource{{Prefix: "1X", ConfigMapRef: &paasv1.OptionalObjectReference{Name: "a"}}}
		}, "spec.envFrom[0].prefix"},
		{"imagePullSecret of no name", func(s *paasv1.DemoApplicationSpec) {
			s.ImagePullSecrets = []paasv1.LocalObjectReference{{Name: ""}}
		}, "spec.imagePullSecrets[0].name"},
		{"serviceAccountName in capitals", func(s *paasv1.DemoApplicationSpec) { s.ServiceAccountName = "Web" }, "spec.serviceAccountName"},
		{"imagePullPolicy Sometimes", func(s *paasv1.DemoApplicationSpec) { s.ImagePullPolicy = "Sometimes" }, "spec.imagePullPolicy"},
		{"negative minReadySeconds", func(s *paasv1.DemoApplicationSpec) { s.MinReadySeconds = -1 }, "spec.minReadySeconds"},
		{"a probe with two actions", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromInt32(80)}, Exec: &paasv1.ExecAction{Command: []string{"true"}}}
		}, "a probe takes exactly one of httpGet, tcpSocket, grpc and exec"},
		{"a probe with no action", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{PeriodSeconds: 5}
		}, "a probe takes exactly one of httpGet, tcpSocket, grpc and exec"},
		{"a livenessProbe's successThreshold of 2", func(s *paasv1.DemoApplicationSpec) {
			s.LivenessProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromInt32(80)}, SuccessThreshold: 2}
		}, "a livenessProbe's successThreshold must be 1"},
		{"a probe port named 8080", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Port: intstr.FromString("8080")}}
		}, "port must be a number from 1 to 65535, or a name"},
		{"a probe header name with a space", func(s *paasv1.DemoApplicationSpec) {
			s.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Port: intstr.FromInt32(80), HTTPHeaders: []paasv1.HTTPHeader{{Name: "X Probe"}}}}
		}, "spec.readinessProbe.httpGet.httpHeaders[0].name"},
		{"an exec probe without a command", func(s *paasv1.DemoApplicationSpec) {
			s.StartupProbe = &paasv1.Probe{Exec: &paasv1.ExecAction{}}
		}, "spec.startupProbe.exec.command"},
		{"runAsNonRoot as user 0", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](0)}
		}, "runAsNonRoot cannot hold with runAsUser 0"},
		{"a lowercase capability", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{Capabilities: &paasv1.Capabilities{Drop: []paasv1.Capability{"all"}}}
		}, "spec.securityContext.capabilities.drop[0]"},
		{"a Localhost seccomp profile without its path", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}}
		}, "localhostProfile is set exactly when type is Localhost"},
		{"a seccomp profile path with ..", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{SeccompProfile: &paasv1.SeccompProfile{
				Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("../etc/profile.json")}}
		}, "localhostProfile must be a relative path without '..'"},
		{"a negative fsGroup", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{FSGroup: ptr.To[int64](-1)}
		}, "spec.podSecurityContext.fsGroup"},
		{"a volumeMount of no volume", func(s *paasv1.DemoApplicationSpec) {
			s.VolumeMounts = []paasv1.VolumeMount{{Name: "config", MountPath: "/etc/app"}}
		}, "every spec.volumeMounts[*].name must name a volume of spec.volumes"},
		{"a volume of two sources", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "data", EmptyDir: &paasv1.EmptyDirVolumeSource{},
				PersistentVolumeClaim: &paasv1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}
		}, "a volume takes exactly one of configMap, secret, emptyDir and persistentVolumeClaim"},
		{"a relative mountPath", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{}}}
			s.VolumeMounts = []paasv1.VolumeMount{{Name: "tmp", MountPath: "tmp"}}
		}, "mountPath must be an absolute path"},
		{"a ConfigMap item path with ..", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "config", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "app",
				Items: []paasv1.KeyToPath{{Key: "app.conf", Path: "../app.conf"}}}}}
		}, "path must be relative, without '..'"},
		{"a defaultMode above 0777", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "creds", Secret: &paasv1.SecretVolumeSource{SecretName: "creds", DefaultMode: ptr.To[int32](0o1000)}}}
		}, "spec.volumes[0].secret.defaultMode"},
		{"an emptyDir of a negative size", func(s *paasv1.DemoApplicationSpec) {
			s.Volumes = []paasv1.Volume{{Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("-1Gi"))}}}
		}, "sizeLimit must not be negative"},
		{"a toleration of Exists with a value", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Value: "shop"}}
		}, "a toleration with operator Exists takes no value"},
		{"a toleration without a key, of operator Equal", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Value: "shop"}}
		}, "every toleration needs a key"},
		{"tolerationSeconds for NoSchedule", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Key: "k", Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](60)}}
		}, "tolerationSeconds goes with effect NoExecute only"},
		{"a spread of skew 0", func(s *paasv1.DemoApplicationSpec) {
			s.TopologySpreadConstraints = []paasv1.TopologySpreadConstraint{{TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule}}
		}, "spec.topologySpreadConstraints[0].maxSkew"},
		{"minDomains with ScheduleAnyway", func(s *paasv1.DemoApplicationSpec) {
			s.TopologySpreadConstraints = []paasv1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
				WhenUnsatisfiable: corev1.ScheduleAnyway, MinDomains: ptr.To[int32](2)}}
		}, "minDomains goes with whenUnsatisfiable DoNotSchedule only"},
		{"an extended resource requested and not limited", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}}
		}, "an extended resource must be a whole number, limited, and requested as much as limited"},
		{"rollingUpdate with Recreate", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType,
				RollingUpdate: &paasv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1))}}
		}, "rollingUpdate goes with type RollingUpdate only"},
		{"maxUnavailable and maxSurge both 0", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromString("0%")), MaxSurge: ptr.To(intstr.FromInt32(0))}}
		}, "maxUnavailable and maxSurge cannot both be 0"},
		{"maxUnavailable of 120%", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromString("120%"))}}
		}, "maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%"},
		{"maxSurge of one pod, in words", func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("one"))}}
		}, "maxSurge must be a number of pods (0 or more) or a percentage"},
		{"a node affinity term of In without values", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &paasv1.NodeSelector{
				NodeSelectorTerms: []paasv1.NodeSelectorTerm{{MatchExpressions: []paasv1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn}}}}}}}
		}, "operator In and NotIn need values"},
		{"a node affinity term of Gt a word", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.PreferredSchedulingTerm{{
				Weight: 10, Preference: paasv1.NodeSelectorTerm{MatchExpressions: []paasv1.NodeSelectorRequirement{
					{Key: "cores", Operator: corev1.NodeSelectorOpGt, Values: []paasv1.LabelValue{"many"}}}}}}}}
		}, "operator Gt and Lt take one value, a whole number"},
		// Found by TestEveryAcceptedSpecBuildsValidObjects: a node affinity's values are label values.
		{"a node affinity term of Lt -3", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &paasv1.NodeSelector{
				NodeSelectorTerms: []paasv1.NodeSelectorTerm{{MatchExpressions: []paasv1.NodeSelectorRequirement{
					{Key: "rank", Operator: corev1.NodeSelectorOpLt, Values: []paasv1.LabelValue{"-3"}}}}}}}}
		}, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]"},
		{"a preferred node affinity of weight 0", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.PreferredSchedulingTerm{{
				Preference: paasv1.NodeSelectorTerm{MatchExpressions: []paasv1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpExists}}}}}}}
		}, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"},
		{"an empty affinity", func(s *paasv1.DemoApplicationSpec) { s.Affinity = &paasv1.Affinity{} }, "spec.affinity"},
		{"a pod anti-affinity without a topologyKey", func(s *paasv1.DemoApplicationSpec) {
			s.Affinity = &paasv1.Affinity{PodAntiAffinity: &paasv1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []paasv1.PodAffinityTerm{{}}}}
		}, "topologyKey must be a label key"},
		{"an ingress without a TCP port", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = port(paasv1.DemoApplicationPort{Port: 53, Protocol: corev1.ProtocolUDP})
			s.Ingress = &paasv1.Ingress{}
		}, "ingress needs a TCP port in spec.ports to route to"},
		{"an ingress path to an unknown port", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Paths: []paasv1.IngressPath{{Path: "/", Port: ptr.To(intstr.FromString("admin"))}}}
		}, "every ingress path's port must name or number a TCP port of spec.ports"},
		{"an ingress host with capitals", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Hosts: []string{"Shop.example.com"}}
		}, "a host must be a lowercase DNS name"},
		{"an ingress host that is an IP address", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Hosts: []string{"10.0.0.1"}}
		}, "not an IP address"},
		{"an ingress path with /../", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Paths: []paasv1.IngressPath{{Path: "/a/../b"}}}
		}, "path must start with '/'"},
		{"an ingress path not absolute", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{Paths: []paasv1.IngressPath{{Path: "api"}}}
		}, "path must start with '/'"},
		{"autoscaling with min above max", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
			s.Autoscaling = &paasv1.Autoscaling{MinReplicas: ptr.To[int32](5), MaxReplicas: 2, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		}, "minReplicas must not exceed maxReplicas"},
		{"autoscaling without a target", func(s *paasv1.DemoApplicationSpec) {
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3}
		}, "autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage"},
		{"autoscaling on CPU without a CPU request", func(s *paasv1.DemoApplicationSpec) {
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		}, "autoscaling on CPU needs resources.requests.cpu"},
		// Found by the property test: an empty behavior was stored as none, and applied at every pass.
		{"an empty autoscaling behavior", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](80), Behavior: &paasv1.AutoscalingBehavior{}}
		}, "spec.autoscaling.behavior: Invalid value: 0: spec.autoscaling.behavior in body should have at least 1 properties"},
		{"an empty budget", func(s *paasv1.DemoApplicationSpec) { s.DisruptionBudget = &paasv1.DisruptionBudget{} },
			"spec.disruptionBudget takes exactly one of minAvailable and maxUnavailable"},
		{"a pause as long as a grace period set", func(s *paasv1.DemoApplicationSpec) {
			s.TerminationGracePeriodSeconds = ptr.To[int64](10)
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 10}}}
		}, "spec.terminationGracePeriodSeconds (30 when unset) must exceed spec.lifecycle.preStop.sleep.seconds"},
		{"a preStop of both sleep and exec", func(s *paasv1.DemoApplicationSpec) {
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 1},
				Exec: &paasv1.ExecAction{Command: []string{"/drain"}}}}
		}, "spec.lifecycle.preStop takes exactly one of sleep and exec"},
		{"an ExternalName Service", func(s *paasv1.DemoApplicationSpec) {
			s.Service = &paasv1.ServiceSettings{Type: corev1.ServiceTypeExternalName}
		}, `spec.service.type: Unsupported value: "ExternalName"`},
		// What Pod Security's restricted profile denies a pod author, asked for as an app team would.
		{"capability ALL added", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{Capabilities: &paasv1.Capabilities{Add: []paasv1.Capability{"ALL"}}}
		}, "capabilities.add may hold NET_BIND_SERVICE alone"},
		{"capability SYS_ADMIN added to NET_BIND_SERVICE", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{Capabilities: &paasv1.Capabilities{Add: []paasv1.Capability{"NET_BIND_SERVICE", "SYS_ADMIN"}}}
		}, "capabilities.add may hold NET_BIND_SERVICE alone"},
		{"the container's seccomp Unconfined", func(s *paasv1.DemoApplicationSpec) {
			s.SecurityContext = &paasv1.SecurityContext{SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}}
		}, `spec.securityContext.seccompProfile.type: Unsupported value: "Unconfined"`},
		{"the pod's seccomp Unconfined", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}}
		}, `spec.podSecurityContext.seccompProfile.type: Unsupported value: "Unconfined"`},
		{"AppArmor unconfined through podAnnotations", func(s *paasv1.DemoApplicationSpec) {
			s.PodAnnotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/app": "unconfined"}
		}, "podAnnotations cannot set AppArmor or seccomp annotations"},
		{"a container's seccomp annotation", func(s *paasv1.DemoApplicationSpec) {
			s.PodAnnotations = map[string]string{"seccomp.security.alpha.kubernetes.io/app": "unconfined"}
		}, "podAnnotations cannot set AppArmor or seccomp annotations"},
		{"tolerating the control plane's former taint", func(s *paasv1.DemoApplicationSpec) {
			s.Tolerations = []paasv1.Toleration{{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists}}
		}, "tolerations cannot tolerate the control plane's taints"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			app := builder.DemoApplication(ns, "invalid")
			tc.change(&app.Spec)
			err := k8sClient.Create(ctx, app)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring(tc.message))
		})
	}

	for _, name := range []string{strings.Repeat("a", 64), "app.v2", "2048-game"} {
		t.Run("name "+name, func(t *testing.T) {
			g := NewWithT(t)
			err := k8sClient.Create(ctx, builder.DemoApplication(ns, name))
			g.Expect(err).To(MatchError(ContainSubstring("metadata.name must be at most 63 characters, start with a letter")))
		})
	}

	// Found by the property test's valid half: the rule read podServices.enabled when absent.
	t.Run("podServices without enabled is accepted, and off", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "no-enabled")
		app.Spec.Ports = nil
		app.Spec.PodServices = &paasv1.PodServices{Type: corev1.ServiceTypeNodePort}
		g.Expect(k8sClient.Create(ctx, app, client.DryRunAll)).To(Succeed())
	})

	t.Run("what restricted Pod Security allows is accepted", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "enough")
		app.Spec.SecurityContext = &paasv1.SecurityContext{
			Capabilities:   &paasv1.Capabilities{Drop: []paasv1.Capability{"ALL"}, Add: []paasv1.Capability{"NET_BIND_SERVICE"}},
			SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		}
		app.Spec.PodAnnotations = map[string]string{"prometheus.io/scrape": "true"}
		app.Spec.Tolerations = []paasv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		g.Expect(k8sClient.Create(ctx, app, client.DryRunAll)).To(Succeed())
	})

	t.Run("the same port number over TCP and UDP is fine", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "dns")
		app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "dns-tcp", Port: 53}, {Name: "dns-udp", Port: 53, Protocol: corev1.ProtocolUDP}}
		g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	})
}
