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

package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// workload says, for the results' header, what benchApp's apps and pods carry.
const workload = "every DemoApplication runs as a team would on a cluster enforcing the restricted Pod Security Standard: " +
	"pod and container securityContexts, httpGet readiness and liveness probes, requests and limits, 4 env vars and a ConfigMap's, " +
	"a ConfigMap mounted read-only and an emptyDir, 3 pod labels and annotations, a preferred anti-affinity per node, a spread over zones " +
	"and a rolling-update strategy; the labelling and memory scenarios' pods are such an app's pods, owned by its ReplicaSet"

// benchApp returns the DemoApplication the convergence runs create, whose pods the labelling
// and memory runs create: the restricted sample's app
// (config/samples/paas_v1_demoapplication_restricted.yaml) with what a team adds to run it.
func benchApp(namespace, name string) *paasv1.DemoApplication {
	config := paasv1.ObjectName(name + "-config")
	http := intstr.FromString("http")
	field := func(path string) *paasv1.EnvVarSource {
		return &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: path}}
	}
	return &paasv1.DemoApplication{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: paasv1.DemoApplicationSpec{
			Image:   "nginxinc/nginx-unprivileged:1.27",
			Replica: ptr.To[int32](2),
			Ports:   []paasv1.DemoApplicationPort{{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))}},
			Env: []paasv1.EnvVar{
				{Name: "LOG_LEVEL", Value: "info"},
				{Name: "POD_NAME", ValueFrom: field("metadata.name")},
				{Name: "POD_NAMESPACE", ValueFrom: field("metadata.namespace")},
				{Name: "MEMORY_LIMIT_MIB", ValueFrom: &paasv1.EnvVarSource{
					ResourceFieldRef: &paasv1.ResourceFieldSelector{Resource: "limits.memory", Divisor: "1Mi"}}},
			},
			EnvFrom: []paasv1.EnvFromSource{{ConfigMapRef: &paasv1.OptionalObjectReference{Name: config}}},
			Resources: &paasv1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			},
			ReadinessProbe: &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/", Port: http}, PeriodSeconds: 5},
			LivenessProbe:  &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/", Port: http}, InitialDelaySeconds: 10, PeriodSeconds: 20},
			PodSecurityContext: &paasv1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](101),
				RunAsGroup: ptr.To[int64](101), FSGroup: ptr.To[int64](101),
				SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			SecurityContext: &paasv1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
				Capabilities: &paasv1.Capabilities{Drop: []paasv1.Capability{"ALL"}}},
			AutomountServiceAccountToken: ptr.To(false),
			Volumes: []paasv1.Volume{
				{Name: "config", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: config}},
				{Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{}},
			},
			VolumeMounts: []paasv1.VolumeMount{
				{Name: "config", MountPath: "/etc/nginx/conf.d", ReadOnly: true},
				{Name: "tmp", MountPath: "/tmp"},
			},
			PodLabels: map[string]paasv1.LabelValue{"app.kubernetes.io/part-of": "shop",
				"app.kubernetes.io/component": "frontend", "app.kubernetes.io/version": "1.27"},
			PodAnnotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8080",
				"kubectl.kubernetes.io/default-container": demoapplication.ContainerName},
			Affinity: &paasv1.Affinity{PodAntiAffinity: &paasv1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []paasv1.WeightedPodAffinityTerm{{Weight: 100,
					PodAffinityTerm: paasv1.PodAffinityTerm{TopologyKey: corev1.LabelHostname}}}}},
			TopologySpreadConstraints: []paasv1.TopologySpreadConstraint{{MaxSkew: 1,
				TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway}},
			Strategy: &paasv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &paasv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(1))}},
		},
	}
}

// directObjects are the Deployment and Service any operator would write for app: the
// operator's (controllers/demoapplication/desired.go), less the owner reference a
// DemoApplication would give them, for the specs benchApp makes (no per-pod Services,
// Ingress or autoscaling; no OLM proxy settings).
func directObjects(app *paasv1.DemoApplication) (*appsv1.Deployment, *corev1.Service) {
	selector := map[string]string{wellknown.LabelName: app.Name, wellknown.LabelApplication: app.Name}
	labels := map[string]string{wellknown.LabelName: app.Name, wellknown.LabelApplication: app.Name,
		wellknown.LabelManagedBy: wellknown.ManagedByValue}
	objectMeta := metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name, Labels: labels}
	deployment := &appsv1.Deployment{ObjectMeta: objectMeta, Spec: appsv1.DeploymentSpec{
		Replicas:        ptr.To(ptr.Deref(app.Spec.Replica, 1)),
		Selector:        &metav1.LabelSelector{MatchLabels: selector},
		Template:        podTemplate(app, selector, labels),
		Strategy:        convert[appsv1.DeploymentStrategy](app.Spec.Strategy),
		MinReadySeconds: app.Spec.MinReadySeconds,
	}}
	service := &corev1.Service{ObjectMeta: objectMeta, Spec: corev1.ServiceSpec{Selector: selector, Type: corev1.ServiceTypeClusterIP}}
	for _, p := range app.Spec.Ports {
		service.Spec.Ports = append(service.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: cmp.Or(p.Protocol, corev1.ProtocolTCP),
			Port: p.Port, TargetPort: ptr.Deref(p.TargetPort, intstr.FromInt32(p.Port))})
	}
	return deployment, service
}

// podTemplate returns the pods of app's Deployment: labels over the app's podLabels, its
// podAnnotations, and a pod spec of the app's fields, each the same JSON in the API's type
// and corev1's. As the operator does, every spread and anti-affinity term selects the app's
// own pods.
func podTemplate(app *paasv1.DemoApplication, selector, labels map[string]string) corev1.PodTemplateSpec {
	spec := &app.Spec
	container := corev1.Container{Name: demoapplication.ContainerName, Image: spec.Image, ImagePullPolicy: spec.ImagePullPolicy,
		Command: spec.Command, Args: spec.Args,
		EnvFrom:         convert[[]corev1.EnvFromSource](spec.EnvFrom),
		Env:             convert[[]corev1.EnvVar](spec.Env),
		Resources:       convert[corev1.ResourceRequirements](spec.Resources),
		VolumeMounts:    convert[[]corev1.VolumeMount](spec.VolumeMounts),
		ReadinessProbe:  convert[*corev1.Probe](spec.ReadinessProbe),
		LivenessProbe:   convert[*corev1.Probe](spec.LivenessProbe),
		StartupProbe:    convert[*corev1.Probe](spec.StartupProbe),
		SecurityContext: convert[*corev1.SecurityContext](spec.SecurityContext),
	}
	// One container port per Service port: its name, or its named target, and the number
	// it targets.
	for _, p := range spec.Ports {
		port := corev1.ContainerPort{Name: p.Name, ContainerPort: p.Port, Protocol: cmp.Or(p.Protocol, corev1.ProtocolTCP)}
		if t := p.TargetPort; t != nil {
			if t.Type == intstr.String {
				port.Name = t.StrVal
			} else {
				port.ContainerPort = t.IntVal
			}
		}
		container.Ports = append(container.Ports, port)
	}
	pod := corev1.PodSpec{Containers: []corev1.Container{container},
		ImagePullSecrets:             convert[[]corev1.LocalObjectReference](spec.ImagePullSecrets),
		ServiceAccountName:           string(spec.ServiceAccountName),
		DeprecatedServiceAccount:     string(spec.ServiceAccountName),
		AutomountServiceAccountToken: spec.AutomountServiceAccountToken,
		NodeSelector:                 convert[map[string]string](spec.NodeSelector),
		SecurityContext:              convert[*corev1.PodSecurityContext](spec.PodSecurityContext),
		Tolerations:                  convert[[]corev1.Toleration](spec.Tolerations),
		Volumes:                      convert[[]corev1.Volume](spec.Volumes),
		TopologySpreadConstraints:    convert[[]corev1.TopologySpreadConstraint](spec.TopologySpreadConstraints),
		Affinity:                     convert[*corev1.Affinity](spec.Affinity),
	}
	ownPods := &metav1.LabelSelector{MatchLabels: selector}
	for i := range pod.TopologySpreadConstraints {
		pod.TopologySpreadConstraints[i].LabelSelector = ownPods
	}
	if pod.Affinity != nil && pod.Affinity.PodAntiAffinity != nil {
		anti := pod.Affinity.PodAntiAffinity
		for i := range anti.RequiredDuringSchedulingIgnoredDuringExecution {
			anti.RequiredDuringSchedulingIgnoredDuringExecution[i].LabelSelector = ownPods
		}
		for i := range anti.PreferredDuringSchedulingIgnoredDuringExecution {
			anti.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm.LabelSelector = ownPods
		}
	}
	// The operator's labels win (the API refuses podLabels that would set them).
	podLabels := map[string]string{}
	maps.Copy(podLabels, convert[map[string]string](spec.PodLabels))
	maps.Copy(podLabels, labels)
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: spec.PodAnnotations}, Spec: pod}
}

// convert returns in as a T through their shared JSON form: a field of the API's spec as
// the corev1 field it becomes. in is the bench's own, so a failure is a bug.
func convert[T any](in any) T {
	var out T
	data, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		panic(fmt.Sprintf("converting %T to %T: %v", in, out, err))
	}
	return out
}
