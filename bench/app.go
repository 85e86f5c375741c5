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
	"crypto/sha256"
	"encoding/hex"
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

// appObjects are the objects the operator writes for a new benchApp, typed: those its own
// builders return (demoapplication.NewObjects), so that the baselines write what it writes.
type appObjects struct {
	deployment    *appsv1.Deployment
	service       *corev1.Service
	budget        *policyv1.PodDisruptionBudget
	networkPolicy *networkingv1.NetworkPolicy
}

func (o appObjects) all() []client.Object {
	return []client.Object{o.deployment, o.service, o.budget, o.networkPolicy}
}

// newAppObjects returns the appObjects of app, whose pods carry hash, the config hash. They
// name app as their owner once it exists (has a uid); the direct client writes no app, and
// its objects no owner.
func newAppObjects(app *paasv1.DemoApplication, hash string) appObjects {
	var o appObjects
	for _, obj := range demoapplication.NewObjects(app, hash) {
		switch obj := obj.(type) {
		case *appsv1.Deployment:
			o.deployment = obj
		case *corev1.Service:
			o.service = obj
		case *policyv1.PodDisruptionBudget:
			o.budget = obj
		case *networkingv1.NetworkPolicy:
			o.networkPolicy = obj
		}
		if app.UID == "" {
			obj.SetOwnerReferences(nil)
		}
	}
	return o
}
