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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// workload says, for the results' header, what benchApp's apps and pods carry.
var workload = "every DemoApplication runs as a team would on a cluster enforcing the restricted Pod Security Standard: " +
	"pod and container securityContexts, httpGet readiness and liveness probes, requests and limits, 4 env vars, a ConfigMap's (envFrom) " +
	"and a Secret's key (so the pods carry the config-hash of both, which exist: each app's ConfigMap and Secret are created with it), " +
	"a ConfigMap mounted read-only and an emptyDir, 3 pod labels and annotations, a preferred anti-affinity per node, a spread over zones, " +
	"a rolling-update strategy, a revision history limit, a termination grace period and a preStop pause, a native sidecar " +
	"(a database proxy reading the Secret), a NetworkPolicy, Service annotations and, for its 2 replicas, the default " +
	"PodDisruptionBudget; the labelling and memory scenarios' pods are such an app's pods, owned by its ReplicaSet, and the memory " +
	"scenario adds a ConfigMap and a Secret per " + strconv.Itoa(configsEvery) + " pods, which the operator caches as metadata"

// benchApp returns the DemoApplication the convergence runs create, whose pods the labelling
// and memory runs create: the restricted sample's app
// (config/samples/paas_v1_demoapplication_restricted.yaml) with what a team adds to run it.
func benchApp(namespace, name string) *paasv1.DemoApplication {
	config, secret := paasv1.ObjectName(configName(name)), paasv1.ObjectName(secretName(name))
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
			Sidecars: []paasv1.Sidecar{{Container: paasv1.Container{Name: "db-proxy", Image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.0",
				Args: []string{"--port=5432", "--health-check", "--http-address=0.0.0.0", "shop:europe-west1:orders"},
				Env: []paasv1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &paasv1.EnvVarSource{
					SecretKeyRef: &paasv1.KeySelector{Name: secret, Key: "password"}}}},
				Resources: &paasv1.ContainerResources{
					Requests: &paasv1.ResourceAmounts{CPU: ptr.To(resource.MustParse("50m")), Memory: ptr.To(resource.MustParse("32Mi"))},
					Limits:   &paasv1.ResourceAmounts{CPU: ptr.To(resource.MustParse("200m")), Memory: ptr.To(resource.MustParse("64Mi"))},
				},
				SecurityContext: &paasv1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &paasv1.Capabilities{Drop: []paasv1.Capability{"ALL"}}}},
				ReadinessProbe: &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/readiness", Port: intstr.FromInt32(9090)}, PeriodSeconds: 10},
			}},
			TerminationGracePeriodSeconds: ptr.To[int64](20),
			Lifecycle:                     &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 5}}},
			RevisionHistoryLimit:          ptr.To[int32](5),
			NetworkPolicy:                 &paasv1.NetworkPolicy{Enabled: true, SameApp: true, Namespaces: []string{"ingress-system", "monitoring"}},
			Service: &paasv1.ServiceSettings{Annotations: map[string]string{
				"prometheus.io/probe": "true", "external-dns.alpha.kubernetes.io/hostname": name + ".shop.example.com"}},
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

// configName and secretName are the ConfigMap and Secret app name reads, which the bench
// creates beside it as its team would.
func configName(app string) string { return app + "-config" }
func secretName(app string) string { return app + "-db" }

// configsEvery is how many of the memory scenario's pods come with a ConfigMap and a Secret,
// as the pods of apps of that many replicas would: what the operator's metadata caches of
// ConfigMaps and Secrets hold beside its pods.
const configsEvery = 25

// configObjects are the ConfigMap and Secret benchApp(namespace, name) reads: an nginx
// server block (mounted, and read through envFrom) and a database password.
func configObjects(namespace, name string) (*corev1.ConfigMap, *corev1.Secret) {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: configName(name)},
			Data: map[string]string{"default.conf": "server {\n  listen 8080;\n  location / { root /usr/share/nginx/html; }\n}\n",
				"UPSTREAM": "orders.shop.svc:8080", "FEATURE_FLAGS": "checkout-v2,search"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: secretName(name)}, Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"password": []byte("s3cr3t-" + name), "username": []byte("shop")}}
}

// configHash stands for the hash any operator puts in the pod template so that a change of
// what the pods read rolls them: a SHA-256 of the data, the size of the operator's.
func configHash(cm *corev1.ConfigMap, secret *corev1.Secret) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		_, _ = h.Write([]byte(k + "=" + cm.Data[k] + "\n"))
	}
	for _, k := range slices.Sorted(maps.Keys(secret.Data)) {
		_, _ = h.Write(append([]byte(k+"="), secret.Data[k]...))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// appWrites are the writes any operator needs for a new benchApp: its Deployment, Service,
// PodDisruptionBudget and NetworkPolicy, and one status write.
const appWrites = 5

// appObjects are the objects any operator would write for app: the operator's
// (controllers/demoapplication/desired.go, disruptionbudget.go, networkpolicy.go), less the
// owner reference a DemoApplication would give them, for the specs benchApp makes (no per-pod
// Services, Ingress, HTTPRoute or autoscaling; no OLM proxy settings). The bench rebuilds
// them by hand rather than calling the operator's builders, so that the baselines do not
// share the operator's code.
type appObjects struct {
	deployment    *appsv1.Deployment
	service       *corev1.Service
	budget        *policyv1.PodDisruptionBudget
	networkPolicy *networkingv1.NetworkPolicy
}

func (o appObjects) all() []client.Object {
	return []client.Object{o.deployment, o.service, o.budget, o.networkPolicy}
}

// directObjects returns appObjects of app, whose pods carry hash, the config hash.
func directObjects(app *paasv1.DemoApplication, hash string) appObjects {
	selector := map[string]string{wellknown.LabelName: app.Name, wellknown.LabelApplication: app.Name}
	labels := map[string]string{wellknown.LabelName: app.Name, wellknown.LabelApplication: app.Name,
		wellknown.LabelManagedBy: wellknown.ManagedByValue}
	objectMeta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name, Labels: maps.Clone(labels)}
	}
	template := podTemplate(app, selector, labels)
	metav1.SetMetaDataAnnotation(&template.ObjectMeta, demoapplication.ConfigHashAnnotation, hash)
	deployment := &appsv1.Deployment{ObjectMeta: objectMeta(), Spec: appsv1.DeploymentSpec{
		Replicas:             ptr.To(ptr.Deref(app.Spec.Replica, 1)),
		Selector:             &metav1.LabelSelector{MatchLabels: selector},
		Template:             template,
		Strategy:             convert[appsv1.DeploymentStrategy](app.Spec.Strategy),
		MinReadySeconds:      app.Spec.MinReadySeconds,
		RevisionHistoryLimit: app.Spec.RevisionHistoryLimit,
	}}
	service := &corev1.Service{ObjectMeta: objectMeta(), Spec: corev1.ServiceSpec{Selector: selector, Type: corev1.ServiceTypeClusterIP}}
	if s := app.Spec.Service; s != nil {
		service.Annotations = s.Annotations
	}
	for _, p := range app.Spec.Ports {
		service.Spec.Ports = append(service.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: cmp.Or(p.Protocol, corev1.ProtocolTCP),
			Port: p.Port, TargetPort: ptr.Deref(p.TargetPort, intstr.FromInt32(p.Port))})
	}
	// The default budget of an app of more than one replica.
	budget := &policyv1.PodDisruptionBudget{ObjectMeta: objectMeta(), Spec: policyv1.PodDisruptionBudgetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: selector}, MaxUnavailable: ptr.To(intstr.FromInt32(1)),
		UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow)}}
	np := app.Spec.NetworkPolicy
	rule := networkingv1.NetworkPolicyIngressRule{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: selector}}}}
	if len(np.Namespaces) > 0 {
		rule.From = append(rule.From, networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn,
				Values: np.Namespaces}}}})
	}
	for _, c := range template.Spec.Containers[0].Ports {
		rule.Ports = append(rule.Ports, networkingv1.NetworkPolicyPort{Protocol: ptr.To(c.Protocol), Port: ptr.To(intstr.FromInt32(c.ContainerPort))})
	}
	networkPolicy := &networkingv1.NetworkPolicy{ObjectMeta: objectMeta(), Spec: networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: selector}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		Ingress: []networkingv1.NetworkPolicyIngressRule{rule}}}
	return appObjects{deployment, service, budget, networkPolicy}
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
	if l := spec.Lifecycle; l != nil {
		container.Lifecycle = &corev1.Lifecycle{PreStop: convert[*corev1.LifecycleHandler](l.PreStop)}
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
		ImagePullSecrets:              convert[[]corev1.LocalObjectReference](spec.ImagePullSecrets),
		ServiceAccountName:            string(spec.ServiceAccountName),
		DeprecatedServiceAccount:      string(spec.ServiceAccountName),
		AutomountServiceAccountToken:  spec.AutomountServiceAccountToken,
		NodeSelector:                  convert[map[string]string](spec.NodeSelector),
		SecurityContext:               convert[*corev1.PodSecurityContext](spec.PodSecurityContext),
		Tolerations:                   convert[[]corev1.Toleration](spec.Tolerations),
		Volumes:                       convert[[]corev1.Volume](spec.Volumes),
		TopologySpreadConstraints:     convert[[]corev1.TopologySpreadConstraint](spec.TopologySpreadConstraints),
		Affinity:                      convert[*corev1.Affinity](spec.Affinity),
		TerminationGracePeriodSeconds: spec.TerminationGracePeriodSeconds,
	}
	// Native sidecars: init containers that keep running.
	for _, c := range spec.Sidecars {
		sidecar := convert[corev1.Container](c)
		sidecar.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
		pod.InitContainers = append(pod.InitContainers, sidecar)
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
