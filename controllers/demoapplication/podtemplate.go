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

package demoapplication

import (
	"cmp"
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// ContainerName is the name of the application's container in its pods.
const ContainerName = "app"

// The pod template of the app's Deployment, built in one place: podTemplate applies the
// transformations of the spec alone in order, then completeTemplate those that read the
// cluster. Each transformation fills in its own fields, and only those.

// templateInputs are what the transformations of podTemplate read besides the app.
type templateInputs struct {
	// extraEnv (OLM's proxy settings) follows each container's own env.
	extraEnv []corev1.EnvVar
	// keys are the pod labeler's, whose annotation opts the pods in to per-pod Services.
	keys wellknown.PodLabelKeys
}

// templateTransformations are podTemplate's, in order: the user's labels and annotations
// before the operator's, the app's container before what completes it (its lifecycle), the
// pod as a whole, then the helpers beside the app's container.
var templateTransformations = []func(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, in templateInputs){
	withPodMetadata,
	withAppContainer,
	withLifecycle,
	withPodSettings,
	withScheduling,
	withHelpers,
}

// podTemplate returns the pods app's Deployment runs, as the spec alone makes them: its
// container and what the pod spec says of the pod as a whole. extraEnv (OLM's proxy
// settings) follows the app's own env. With per-pod Services on, the pods carry the
// labeler's annotation (of keys), which opts them in to the pod-name label that those
// Services select.
func podTemplate(app *paasv1.DemoApplication, extraEnv []corev1.EnvVar, keys wellknown.PodLabelKeys) *corev1ac.PodTemplateSpecApplyConfiguration {
	t := corev1ac.PodTemplateSpec().WithSpec(corev1ac.PodSpec())
	in := templateInputs{extraEnv: extraEnv, keys: keys}
	for _, transform := range templateTransformations {
		transform(t, app, in)
	}
	return t
}

// completeTemplate completes template, the pod template of the app's workload as the spec
// alone makes it, and meta, the workload's own metadata, from what the cluster holds: the
// security defaults of the Pod Security level the namespace enforces, then the hash of the
// ConfigMaps and Secrets the pods read, settled against was, the hashes the live workload
// carries.
func (r *Reconciler) completeTemplate(ctx context.Context, s *scope, was configHashes,
	meta *metav1ac.ObjectMetaApplyConfiguration, template *corev1ac.PodTemplateSpecApplyConfiguration) error {
	level, err := r.enforcedPodSecurity(ctx, s.app.Namespace)
	withPodSecurityDefaults(template.Spec, level)
	if err != nil {
		return err
	}
	return r.withConfigHash(ctx, s, was, meta, template)
}

// withPodMetadata sets the pods' labels and annotations: the user's first, so that the
// operator's win (the API refuses podLabels that would set the operator's own).
func withPodMetadata(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, in templateInputs) {
	spec := &app.Spec
	t.WithLabels(labelValues(spec.PodLabels)).WithLabels(labelsFor(app))
	if len(spec.PodAnnotations) > 0 {
		t.WithAnnotations(spec.PodAnnotations)
	}
	if podServicesEnabled(app) {
		t.WithAnnotations(map[string]string{in.keys.Annotation: wellknown.OptIn})
	}
}

// withAppContainer adds the application's container.
func withAppContainer(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, in templateInputs) {
	spec := &app.Spec
	container := corev1ac.Container().
		WithName(ContainerName).
		WithImage(spec.Image).
		WithPorts(containerPorts(spec.Ports)...)
	if spec.ImagePullPolicy != "" {
		container.WithImagePullPolicy(spec.ImagePullPolicy)
	}
	if len(spec.Command) > 0 {
		container.WithCommand(spec.Command...)
	}
	if len(spec.Args) > 0 {
		container.WithArgs(spec.Args...)
	}
	container.WithEnvFrom(converted[[]*corev1ac.EnvFromSourceApplyConfiguration](spec.EnvFrom)...).
		WithEnv(converted[[]*corev1ac.EnvVarApplyConfiguration](mergeEnv(converted[[]corev1.EnvVar](spec.Env), in.extraEnv))...).
		WithVolumeMounts(converted[[]*corev1ac.VolumeMountApplyConfiguration](spec.VolumeMounts)...).
		WithVolumeMounts(claimMounts(app)...).
		WithReadinessProbe(converted[*corev1ac.ProbeApplyConfiguration](spec.ReadinessProbe)).
		WithLivenessProbe(converted[*corev1ac.ProbeApplyConfiguration](spec.LivenessProbe)).
		WithStartupProbe(converted[*corev1ac.ProbeApplyConfiguration](spec.StartupProbe)).
		WithSecurityContext(converted[*corev1ac.SecurityContextApplyConfiguration](spec.SecurityContext))
	if r := spec.Resources; r != nil && (len(r.Limits) > 0 || len(r.Requests) > 0) {
		container.WithResources(converted[*corev1ac.ResourceRequirementsApplyConfiguration](r))
	}
	t.Spec.WithContainers(container)
}

// withLifecycle gives the app's container its preStop handler, when it has one.
func withLifecycle(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, _ templateInputs) {
	if stop := preStop(&app.Spec); stop != nil {
		t.Spec.Containers[0].WithLifecycle(corev1ac.Lifecycle().WithPreStop(stop))
	}
}

// withPodSettings sets what the spec says of the pod as a whole: its identity, its priority,
// its grace period, its security context and its volumes.
func withPodSettings(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, _ templateInputs) {
	spec := &app.Spec
	pod := t.Spec
	pod.WithImagePullSecrets(converted[[]*corev1ac.LocalObjectReferenceApplyConfiguration](spec.ImagePullSecrets)...)
	if name := string(spec.ServiceAccountName); name != "" {
		// The API server copies serviceAccountName into the deprecated serviceAccount and back
		// when the former is empty: owning both is what lets a later apply without them clear it.
		pod.WithServiceAccountName(name).WithDeprecatedServiceAccount(name)
	}
	if spec.AutomountServiceAccountToken != nil {
		pod.WithAutomountServiceAccountToken(*spec.AutomountServiceAccountToken)
	}
	if spec.PriorityClassName != "" {
		pod.WithPriorityClassName(string(spec.PriorityClassName))
	}
	if spec.TerminationGracePeriodSeconds != nil {
		pod.WithTerminationGracePeriodSeconds(*spec.TerminationGracePeriodSeconds)
	}
	pod.WithSecurityContext(converted[*corev1ac.PodSecurityContextApplyConfiguration](spec.PodSecurityContext)).
		WithVolumes(converted[[]*corev1ac.VolumeApplyConfiguration](spec.Volumes)...)
}

// withScheduling sets where the pods may run: node selector, tolerations, spread and
// affinity. Each spread and anti-affinity term is of the app's own pods, whatever else runs
// in the domains.
func withScheduling(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, in templateInputs) {
	spec := &app.Spec
	pod := t.Spec
	if len(spec.NodeSelector) > 0 {
		pod.WithNodeSelector(labelValues(spec.NodeSelector))
	}
	pod.WithTolerations(converted[[]*corev1ac.TolerationApplyConfiguration](spec.Tolerations)...)
	ownPods := func() *metav1ac.LabelSelectorApplyConfiguration {
		return metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))
	}
	for _, spread := range converted[[]*corev1ac.TopologySpreadConstraintApplyConfiguration](spec.TopologySpreadConstraints) {
		pod.WithTopologySpreadConstraints(spread.WithLabelSelector(ownPods()))
	}
	if affinity := converted[*corev1ac.AffinityApplyConfiguration](spec.Affinity); affinity != nil {
		if anti := affinity.PodAntiAffinity; anti != nil {
			for i := range anti.RequiredDuringSchedulingIgnoredDuringExecution {
				anti.RequiredDuringSchedulingIgnoredDuringExecution[i].WithLabelSelector(ownPods())
			}
			for i := range anti.PreferredDuringSchedulingIgnoredDuringExecution {
				anti.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm.WithLabelSelector(ownPods())
			}
		}
		pod.WithAffinity(affinity)
	}
}

// withHelpers adds the pod's init containers: the sidecars first, as init containers that
// restart always (native sidecars), so that they already run when the initContainers start
// (a migration that needs the database proxy), then the initContainers. extraEnv follows each
// one's own env, as in the app's container.
func withHelpers(t *corev1ac.PodTemplateSpecApplyConfiguration, app *paasv1.DemoApplication, in templateInputs) {
	spec := &app.Spec
	for i := range spec.Sidecars {
		t.Spec.WithInitContainers(helperContainer(&spec.Sidecars[i], spec.Sidecars[i].Env, in.extraEnv).
			WithRestartPolicy(corev1.ContainerRestartPolicyAlways))
	}
	for i := range spec.InitContainers {
		t.Spec.WithInitContainers(helperContainer(&spec.InitContainers[i], spec.InitContainers[i].Env, in.extraEnv))
	}
}

// containerPorts returns one container port per distinct target of the Service's ports.
// A named targetPort becomes the container port of that name, numbered like the port.
func containerPorts(ports []paasv1.DemoApplicationPort) []*corev1ac.ContainerPortApplyConfiguration {
	type key struct {
		number   int32
		protocol corev1.Protocol
	}
	seenKeys := map[key]bool{}
	seenNames := map[string]bool{}
	var out []*corev1ac.ContainerPortApplyConfiguration
	for _, p := range ports {
		protocol := protocolOf(p)
		number, name := p.Port, p.Name
		if t := p.TargetPort; t != nil {
			if t.Type == intstr.String {
				name = t.StrVal
			} else {
				number = t.IntVal
			}
		}
		k := key{number, protocol}
		if seenKeys[k] || (name != "" && seenNames[name]) {
			continue
		}
		seenKeys[k], seenNames[name] = true, name != ""
		cp := corev1ac.ContainerPort().WithContainerPort(number).WithProtocol(protocol)
		if name != "" {
			cp.WithName(name)
		}
		out = append(out, cp)
	}
	return out
}

// mergeEnv appends to env the variables of extra whose names env does not set, so that
// the user's own value always wins.
func mergeEnv(env, extra []corev1.EnvVar) []corev1.EnvVar {
	names := make(map[string]bool, len(env))
	for _, e := range env {
		names[e.Name] = true
	}
	out := append([]corev1.EnvVar(nil), env...)
	for _, e := range extra {
		if !names[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

// podSecurityRestricted is the value of a namespace's Pod Security enforce label
// (pod-security.kubernetes.io/enforce) under which withPodSecurityDefaults fills in the
// security contexts.
const podSecurityRestricted = "restricted"

// withPodSecurityDefaults fills in the security-context fields of pod that the app leaves
// unset with the values of the Pod Security level its namespace enforces, so that its pods are
// admitted there, as Knative's secure-pod-defaults does. Only restricted asks for any:
// whatever the CRD accepts meets baseline with nothing set. A value the app sets is kept,
// even one the level refuses: the workload then reports Pod Security's refusal. An image
// that runs as root fails to start under runAsNonRoot, in the kubelet's words.
func withPodSecurityDefaults(pod *corev1ac.PodSpecApplyConfiguration, enforced string) {
	if enforced != podSecurityRestricted {
		return
	}
	if pod.SecurityContext == nil {
		pod.SecurityContext = corev1ac.PodSecurityContext()
	}
	podSC := pod.SecurityContext
	// The init containers and sidecars are held to the same level as the app's container is.
	unconfined := false
	for _, containers := range [][]corev1ac.ContainerApplyConfiguration{pod.Containers, pod.InitContainers} {
		for i := range containers {
			unconfined = withRestrictedContainer(&containers[i], podSC) || unconfined
		}
	}
	if unconfined && podSC.SeccompProfile == nil {
		podSC.WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))
	}
}

// withRestrictedContainer fills in container's security context as withPodSecurityDefaults
// does, within a pod of podSC; it reports whether the container sets no seccomp profile.
func withRestrictedContainer(container *corev1ac.ContainerApplyConfiguration, podSC *corev1ac.PodSecurityContextApplyConfiguration) bool {
	if container.SecurityContext == nil {
		container.SecurityContext = corev1ac.SecurityContext()
	}
	sc := container.SecurityContext
	if sc.AllowPrivilegeEscalation == nil {
		sc.WithAllowPrivilegeEscalation(false)
	}
	if sc.Capabilities == nil {
		sc.WithCapabilities(corev1ac.Capabilities())
	}
	if len(sc.Capabilities.Drop) == 0 {
		sc.Capabilities.WithDrop("ALL")
	}
	// A user 0 the app asks for is its choice: runAsNonRoot would keep it from ever starting.
	asRoot := ptr.Deref(cmp.Or(sc.RunAsUser, podSC.RunAsUser), -1) == 0
	if sc.RunAsNonRoot == nil && podSC.RunAsNonRoot == nil && !asRoot {
		sc.WithRunAsNonRoot(true)
	}
	return sc.SeccompProfile == nil
}

// helperContainer returns c, a Container or a Sidecar of the spec (which share the container's
// JSON form), of env, as a container of the pod.
func helperContainer(c any, env []paasv1.EnvVar, extraEnv []corev1.EnvVar) *corev1ac.ContainerApplyConfiguration {
	container := converted[*corev1ac.ContainerApplyConfiguration](c)
	container.Env = nil
	container.WithEnv(converted[[]*corev1ac.EnvVarApplyConfiguration](mergeEnv(converted[[]corev1.EnvVar](env), extraEnv))...)
	// Empty resources are nothing the API server keeps: applied, they would never settle.
	if r := container.Resources; r != nil {
		if r.Limits != nil && len(*r.Limits) == 0 {
			r.Limits = nil
		}
		if r.Requests != nil && len(*r.Requests) == 0 {
			r.Requests = nil
		}
		if r.Limits == nil && r.Requests == nil && r.Claims == nil {
			container.Resources = nil
		}
	}
	return container
}

// DefaultPreStopSeconds is the pause before a container with ports is stopped when the app
// declares no preStop: long enough for the endpoints controller, kube-proxy and the Ingress
// controller to stop sending it requests once the pod is terminating.
const DefaultPreStopSeconds = 5

// defaultTerminationGracePeriodSeconds is the kubelet's grace period when a pod sets none.
const defaultTerminationGracePeriodSeconds = 30

// preStop returns the container's preStop handler: the one spec declares, else, for an app
// that serves on ports, a pause of DefaultPreStopSeconds (shortened to leave the app at least
// a second of its grace period). It is the kubelet's sleep action, which needs no shell in
// the image. A pause of 0 seconds is none.
func preStop(spec *paasv1.DemoApplicationSpec) *corev1ac.LifecycleHandlerApplyConfiguration {
	if l := spec.Lifecycle; l != nil && l.PreStop != nil {
		if s := l.PreStop.Sleep; s != nil && s.Seconds == 0 {
			return nil
		}
		return converted[*corev1ac.LifecycleHandlerApplyConfiguration](l.PreStop)
	}
	if len(spec.Ports) == 0 {
		return nil
	}
	seconds := min(DefaultPreStopSeconds, ptr.Deref(spec.TerminationGracePeriodSeconds, defaultTerminationGracePeriodSeconds)-1)
	if seconds <= 0 {
		return nil
	}
	return corev1ac.LifecycleHandler().WithSleep(corev1ac.SleepAction().WithSeconds(seconds))
}
