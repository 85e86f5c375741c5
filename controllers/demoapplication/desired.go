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
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The objects a DemoApplication declares, built by pure functions of the app and explicit
// inputs: the fields the operator owns, to be server-side applied. Tests use the same
// builders as the expected values.

// labelsFor returns the labels of every object created for app.
func labelsFor(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{
		wellknown.LabelName:        app.Name,
		wellknown.LabelApplication: app.Name,
		wellknown.LabelManagedBy:   wellknown.ManagedByValue,
	}
}

// selectorFor returns the labels that select app's pods. They are immutable in a
// Deployment, so they hold nothing that could change over the app's life.
func selectorFor(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{
		wellknown.LabelName:        app.Name,
		wellknown.LabelApplication: app.Name,
	}
}

// ContainerName is the name of the application's container in its pods.
const ContainerName = "app"

// newDeployment returns the Deployment that runs app: the fields the operator owns, to
// be server-side applied. extraEnv (OLM's proxy settings) follows the app's own env. With
// per-pod Services on, the pods carry the labeler's annotation (of keys), which opts them
// in to the pod-name label that those Services select.
func newDeployment(app *paasv1.DemoApplication, extraEnv []corev1.EnvVar, keys wellknown.PodLabelKeys) *appsv1ac.DeploymentApplyConfiguration {
	strategy := converted[*appsv1ac.DeploymentStrategyApplyConfiguration](app.Spec.Strategy)
	if ru := strategy; ru != nil && ru.RollingUpdate != nil && ru.RollingUpdate.MaxSurge == nil && ru.RollingUpdate.MaxUnavailable == nil {
		// An empty rollingUpdate is nothing the API server keeps: applied, it would never settle.
		strategy.RollingUpdate = nil
	}
	deployment := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))).
		WithTemplate(podTemplate(app, extraEnv, keys)).
		WithStrategy(strategy)
	// With autoscaling on, the replicas are the autoscaler's: applying them would fight it.
	if app.Spec.Autoscaling == nil {
		deployment.WithReplicas(ptr.Deref(app.Spec.Replica, 1))
	}
	if app.Spec.MinReadySeconds > 0 {
		deployment.WithMinReadySeconds(app.Spec.MinReadySeconds)
	}
	if app.Spec.RevisionHistoryLimit != nil {
		deployment.WithRevisionHistoryLimit(*app.Spec.RevisionHistoryLimit)
	}
	return appsv1ac.Deployment(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(deployment)
}

// podTemplate returns the pods app's Deployment runs: its container and what the pod spec
// says of the pod as a whole.
func podTemplate(app *paasv1.DemoApplication, extraEnv []corev1.EnvVar, keys wellknown.PodLabelKeys) *corev1ac.PodTemplateSpecApplyConfiguration {
	spec := &app.Spec
	pod := corev1ac.PodSpec().WithContainers(appContainer(spec, extraEnv)).
		WithInitContainers(initContainers(spec, extraEnv)...).
		WithImagePullSecrets(converted[[]*corev1ac.LocalObjectReferenceApplyConfiguration](spec.ImagePullSecrets)...)
	if name := string(spec.ServiceAccountName); name != "" {
		// The API server copies serviceAccountName into the deprecated serviceAccount and back
		// when the former is empty: owning both is what lets a later apply without them clear it.
		pod.WithServiceAccountName(name).WithDeprecatedServiceAccount(name)
	}
	if spec.AutomountServiceAccountToken != nil {
		pod.WithAutomountServiceAccountToken(*spec.AutomountServiceAccountToken)
	}
	if len(spec.NodeSelector) > 0 {
		pod.WithNodeSelector(labelValues(spec.NodeSelector))
	}
	if spec.PriorityClassName != "" {
		pod.WithPriorityClassName(string(spec.PriorityClassName))
	}
	if spec.TerminationGracePeriodSeconds != nil {
		pod.WithTerminationGracePeriodSeconds(*spec.TerminationGracePeriodSeconds)
	}
	pod.WithSecurityContext(converted[*corev1ac.PodSecurityContextApplyConfiguration](spec.PodSecurityContext)).
		WithTolerations(converted[[]*corev1ac.TolerationApplyConfiguration](spec.Tolerations)...).
		WithVolumes(converted[[]*corev1ac.VolumeApplyConfiguration](spec.Volumes)...)
	// Each spread and anti-affinity term is of the app's own pods, whatever else runs in the
	// domains.
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

	// The user's labels and annotations first, so that the operator's win (the API refuses
	// podLabels that would set the operator's own).
	template := corev1ac.PodTemplateSpec().
		WithLabels(labelValues(spec.PodLabels)).
		WithLabels(labelsFor(app)).
		WithSpec(pod)
	if len(spec.PodAnnotations) > 0 {
		template.WithAnnotations(spec.PodAnnotations)
	}
	if podServicesEnabled(app) {
		template.WithAnnotations(map[string]string{keys.Annotation: wellknown.OptIn})
	}
	return template
}

// appContainer returns the application's container.
func appContainer(spec *paasv1.DemoApplicationSpec, extraEnv []corev1.EnvVar) *corev1ac.ContainerApplyConfiguration {
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
		WithEnv(converted[[]*corev1ac.EnvVarApplyConfiguration](mergeEnv(converted[[]corev1.EnvVar](spec.Env), extraEnv))...).
		WithVolumeMounts(converted[[]*corev1ac.VolumeMountApplyConfiguration](spec.VolumeMounts)...).
		WithReadinessProbe(converted[*corev1ac.ProbeApplyConfiguration](spec.ReadinessProbe)).
		WithLivenessProbe(converted[*corev1ac.ProbeApplyConfiguration](spec.LivenessProbe)).
		WithStartupProbe(converted[*corev1ac.ProbeApplyConfiguration](spec.StartupProbe)).
		WithSecurityContext(converted[*corev1ac.SecurityContextApplyConfiguration](spec.SecurityContext))
	if r := spec.Resources; r != nil && (len(r.Limits) > 0 || len(r.Requests) > 0) {
		container.WithResources(converted[*corev1ac.ResourceRequirementsApplyConfiguration](r))
	}
	if stop := preStop(spec); stop != nil {
		container.WithLifecycle(corev1ac.Lifecycle().WithPreStop(stop))
	}
	return container
}

// podSecurityRestricted is the value of a namespace's Pod Security enforce label
// (pod-security.kubernetes.io/enforce) under which withPodSecurityDefaults fills in the
// security contexts.
const podSecurityRestricted = "restricted"

// withPodSecurityDefaults fills in d's pod template the security-context fields the app leaves
// unset with the values of the Pod Security level its namespace enforces, so that its pods are
// admitted there, as Knative's secure-pod-defaults does; it returns d. Only restricted asks for
// any: whatever the CRD accepts meets baseline with nothing set. A value the app sets is kept,
// even one the level refuses: the ReplicaSet then reports Pod Security's refusal. An image
// that runs as root fails to start under runAsNonRoot, in the kubelet's words.
func withPodSecurityDefaults(d *appsv1ac.DeploymentApplyConfiguration, enforced string) *appsv1ac.DeploymentApplyConfiguration {
	if enforced != podSecurityRestricted {
		return d
	}
	pod := d.Spec.Template.Spec
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
	return d
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

// labelValues returns m with plain string values, as a Kubernetes object's labels hold them.
func labelValues(m map[string]paasv1.LabelValue) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out
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

// newService returns the Service that exposes app's ports, or nil when app declares none
// (a Service must have a port). It is of the type spec.service gives, else a NodePort
// Service when any port asks for a nodePort.
func newService(app *paasv1.DemoApplication) *corev1ac.ServiceApplyConfiguration {
	if len(app.Spec.Ports) == 0 {
		return nil
	}
	serviceType := corev1.ServiceTypeClusterIP
	spec := corev1ac.ServiceSpec().WithSelector(selectorFor(app))
	for _, p := range app.Spec.Ports {
		port := servicePort(p)
		if p.NodePort != nil {
			serviceType = corev1.ServiceTypeNodePort
			port.WithNodePort(*p.NodePort)
		}
		spec.WithPorts(port)
	}
	settings := ptr.Deref(app.Spec.Service, paasv1.ServiceSettings{})
	service := corev1ac.Service(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec.WithType(cmp.Or(settings.Type, serviceType)))
	if len(settings.Annotations) > 0 {
		service.WithAnnotations(settings.Annotations)
	}
	return service
}

// servicePort returns p as a Service port without its nodePort.
func servicePort(p paasv1.DemoApplicationPort) *corev1ac.ServicePortApplyConfiguration {
	port := corev1ac.ServicePort().WithPort(p.Port).WithProtocol(protocolOf(p))
	if p.Name != "" {
		port.WithName(p.Name)
	}
	if p.TargetPort != nil {
		port.WithTargetPort(*p.TargetPort)
	}
	return port
}

// podServicesEnabled reports whether app asks for per-pod Services.
func podServicesEnabled(app *paasv1.DemoApplication) bool {
	return app.Spec.PodServices != nil && app.Spec.PodServices.Enabled
}

// newPodService returns the Service that routes to pod alone: it selects the app's pods
// and, among them, the one whose pod-name label (keys.Label) holds pod's name. The pod
// is its controller, so the garbage collector deletes it with the pod.
func newPodService(app *paasv1.DemoApplication, pod metav1.Object, keys wellknown.PodLabelKeys) *corev1ac.ServiceApplyConfiguration {
	labels := labelsFor(app)
	labels[wellknown.LabelPodService] = pod.GetName()
	selector := selectorFor(app)
	selector[keys.Label] = pod.GetName()

	serviceType := corev1.ServiceTypeClusterIP
	var names []string
	if ps := app.Spec.PodServices; ps != nil {
		if ps.Type != "" {
			serviceType = ps.Type
		}
		names = ps.Ports
	}
	spec := corev1ac.ServiceSpec().WithType(serviceType).WithSelector(selector)
	for _, p := range app.Spec.Ports {
		// nodePorts are not copied: each is unique in the cluster, already the app's Service's.
		if len(names) == 0 || slices.Contains(names, p.Name) {
			spec.WithPorts(servicePort(p))
		}
	}
	return corev1ac.Service(pod.GetName(), app.Namespace).
		WithLabels(labels).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion("v1").
			WithKind("Pod").
			WithName(pod.GetName()).
			WithUID(pod.GetUID()).
			WithController(true).
			// Not blocking: a pod's foreground deletion need not wait for its Service, and
			// blocking it would take update on pods/finalizers in every namespace, which
			// OwnerReferencesPermissionEnforcement requires for it.
			WithBlockOwnerDeletion(false)).
		WithSpec(spec)
}

// isPodService reports whether svc is a per-pod Service the operator created: one that
// the pod of its name controls.
func isPodService(svc *corev1.Service) bool {
	owner := metav1.GetControllerOf(svc)
	return owner != nil && owner.APIVersion == "v1" && owner.Kind == "Pod" && owner.Name == svc.Name &&
		svc.Labels[wellknown.LabelPodService] == svc.Name
}

// ownerReference makes app the controller of an object, so that the garbage collector
// deletes the object with app.
func ownerReference(app *paasv1.DemoApplication) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(paasv1.GroupVersion.String()).
		WithKind("DemoApplication").
		WithName(app.Name).
		WithUID(app.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// protocolOf returns p's protocol, TCP when unset (the API server defaults it, but a
// builder may see an object that never went through it).
func protocolOf(p paasv1.DemoApplicationPort) corev1.Protocol {
	if p.Protocol == "" {
		return corev1.ProtocolTCP
	}
	return p.Protocol
}

// newIngress returns the Ingress that routes app's hosts and paths to its Service, or nil
// when app asks for none. Every host gets the same paths; none, and the rule is for every
// host.
func newIngress(app *paasv1.DemoApplication) *networkingv1ac.IngressApplyConfiguration {
	in := app.Spec.Ingress
	if in == nil {
		return nil
	}
	paths := in.Paths
	if len(paths) == 0 {
		paths = []paasv1.IngressPath{{Path: "/"}}
	}
	rule := func() *networkingv1ac.IngressRuleApplyConfiguration {
		http := networkingv1ac.HTTPIngressRuleValue()
		for _, p := range paths {
			http.WithPaths(networkingv1ac.HTTPIngressPath().
				WithPath(p.Path).
				WithPathType(cmp.Or(p.PathType, networkingv1.PathTypePrefix)).
				WithBackend(networkingv1ac.IngressBackend().WithService(
					networkingv1ac.IngressServiceBackend().WithName(app.Name).WithPort(backendPort(app.Spec.Ports, p.Port)))))
		}
		return networkingv1ac.IngressRule().WithHTTP(http)
	}
	spec := networkingv1ac.IngressSpec()
	if in.ClassName != "" {
		spec.WithIngressClassName(string(in.ClassName))
	}
	if len(in.Hosts) == 0 {
		spec.WithRules(rule())
	}
	for _, host := range in.Hosts {
		spec.WithRules(rule().WithHost(host))
	}
	if in.TLSSecretName != "" {
		spec.WithTLS(networkingv1ac.IngressTLS().WithHosts(in.Hosts...).WithSecretName(string(in.TLSSecretName)))
	}
	ingress := networkingv1ac.Ingress(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
	if len(in.Annotations) > 0 {
		ingress.WithAnnotations(in.Annotations)
	}
	return ingress
}

// backendPort returns the port of the app's Service that port (a name or number of ports)
// names, or its first TCP port when port is nil: by name when it has one.
func backendPort(ports []paasv1.DemoApplicationPort, port *intstr.IntOrString) *networkingv1ac.ServiceBackendPortApplyConfiguration {
	switch {
	case port != nil && port.Type == intstr.String:
		return networkingv1ac.ServiceBackendPort().WithName(port.StrVal)
	case port != nil:
		return networkingv1ac.ServiceBackendPort().WithNumber(port.IntVal)
	}
	for _, p := range ports {
		if protocolOf(p) != corev1.ProtocolTCP {
			continue
		}
		if p.Name != "" {
			return networkingv1ac.ServiceBackendPort().WithName(p.Name)
		}
		return networkingv1ac.ServiceBackendPort().WithNumber(p.Port)
	}
	// The API refuses an ingress without a TCP port.
	return nil
}

// newAutoscaler returns the HorizontalPodAutoscaler that scales app's Deployment, or nil
// when app asks for none.
func newAutoscaler(app *paasv1.DemoApplication) *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration {
	a := app.Spec.Autoscaling
	if a == nil {
		return nil
	}
	spec := autoscalingv2ac.HorizontalPodAutoscalerSpec().
		WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
			WithAPIVersion(appsv1.SchemeGroupVersion.String()).WithKind("Deployment").WithName(app.Name)).
		WithMinReplicas(ptr.Deref(a.MinReplicas, 1)).
		WithMaxReplicas(a.MaxReplicas)
	for _, target := range []struct {
		resource    corev1.ResourceName
		utilization *int32
	}{{corev1.ResourceCPU, a.TargetCPUUtilizationPercentage}, {corev1.ResourceMemory, a.TargetMemoryUtilizationPercentage}} {
		if target.utilization == nil {
			continue
		}
		spec.WithMetrics(autoscalingv2ac.MetricSpec().
			WithType(autoscalingv2.ResourceMetricSourceType).
			WithResource(autoscalingv2ac.ResourceMetricSource().
				WithName(target.resource).
				WithTarget(autoscalingv2ac.MetricTarget().
					WithType(autoscalingv2.UtilizationMetricType).
					WithAverageUtilization(*target.utilization))))
	}
	spec.WithBehavior(converted[*autoscalingv2ac.HorizontalPodAutoscalerBehaviorApplyConfiguration](a.Behavior))
	return autoscalingv2ac.HorizontalPodAutoscaler(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// NewObjects returns, as typed objects, what the operator applies for app when none exists
// yet, with its default flags, in a namespace that enforces no Pod Security level, its pods
// carrying configHash (empty when they read no configuration): the Deployment, and the
// Service, PodDisruptionBudget and NetworkPolicy when the spec asks for them. The bench's
// baselines write these, so that they write what the operator writes.
func NewObjects(app *paasv1.DemoApplication, configHash string) []client.Object {
	deployment := newDeployment(app, nil, wellknown.DefaultPodLabelKeys)
	if configHash != "" {
		deployment.Spec.Template.WithAnnotations(map[string]string{ConfigHashAnnotation: configHash})
	}
	// With no live Deployment, withDefaults only marks the defaults: it cannot fail.
	_, _ = withDefaults(app, nil, deployment)
	objects := []client.Object{converted[*appsv1.Deployment](deployment)}
	if service := newService(app); service != nil {
		objects = append(objects, converted[*corev1.Service](service))
	}
	if budget := newDisruptionBudget(app); budget != nil {
		objects = append(objects, converted[*policyv1.PodDisruptionBudget](budget))
	}
	if policy := newNetworkPolicy(app); policy != nil {
		objects = append(objects, converted[*networkingv1.NetworkPolicy](policy))
	}
	return objects
}
