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
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

func TestNewDeployment(t *testing.T) {
	t.Run("runs the image with the declared replicas, owned by the app", func(t *testing.T) {
		g := NewWithT(t)
		d := converted[*appsv1.Deployment](newDeployment(testApp(), nil, wellknown.DefaultPodLabelKeys))
		g.Expect(d.Name).To(Equal("web"))
		g.Expect(d.Namespace).To(Equal("shop"))
		g.Expect(*d.Spec.Replicas).To(Equal(int32(2)))
		g.Expect(d.OwnerReferences).To(ConsistOf(metav1.OwnerReference{
			APIVersion: "paas.cmft.com/v1", Kind: "DemoApplication", Name: "web", UID: "uid-1",
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}))
		g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(corev1.Container{
			Name: ContainerName, Image: "nginx:1.27",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			// Serving on a port, it pauses before it stops while the endpoints drop it.
			Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: DefaultPreStopSeconds}}},
		}))
		selector := labels.SelectorFromSet(d.Spec.Selector.MatchLabels)
		g.Expect(selector.Matches(labels.Set(d.Spec.Template.Labels))).To(BeTrue())
		g.Expect(d.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
	})

	t.Run("replica defaults to one", func(t *testing.T) {
		app := testApp()
		app.Spec.Replica = nil
		NewWithT(t).Expect(*converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Replicas).To(Equal(int32(1)))
	})

	t.Run("the user's env comes first and wins over the proxy settings", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.Env = []paasv1.EnvVar{
			{Name: "HTTP_PROXY", Value: "mine"},
			{Name: "POD", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		}
		extra := []corev1.EnvVar{{Name: "HTTP_PROXY", Value: "olm"}, {Name: "NO_PROXY", Value: "svc"}}
		env := converted[*appsv1.Deployment](newDeployment(app, extra, wellknown.DefaultPodLabelKeys)).Spec.Template.Spec.Containers[0].Env
		g.Expect(env).To(Equal([]corev1.EnvVar{
			{Name: "HTTP_PROXY", Value: "mine"},
			{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "NO_PROXY", Value: "svc"},
		}))
	})

	t.Run("resources are set only when declared", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(newDeployment(testApp(), nil, wellknown.DefaultPodLabelKeys).Spec.Template.Spec.Containers[0].Resources).To(BeNil())
		app := testApp()
		app.Spec.Resources = &paasv1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}
		c := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Template.Spec.Containers[0]
		g.Expect(c.Resources.Limits.Cpu().String()).To(Equal("500m"))
	})

	t.Run("the pod spec carries what the app declares of its image, command, identity and nodes", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.ImagePullPolicy = corev1.PullAlways
		app.Spec.ImagePullSecrets = []paasv1.LocalObjectReference{{Name: "registry"}}
		app.Spec.Command, app.Spec.Args = []string{"/bin/server"}, []string{"--port", "$(PORT)"}
		app.Spec.EnvFrom = []paasv1.EnvFromSource{
			{ConfigMapRef: &paasv1.OptionalObjectReference{Name: "settings"}},
			{Prefix: "DB_", SecretRef: &paasv1.OptionalObjectReference{Name: "db", Optional: ptr.To(true)}},
		}
		app.Spec.ServiceAccountName, app.Spec.AutomountServiceAccountToken = "web", ptr.To(false)
		app.Spec.NodeSelector = map[string]paasv1.LabelValue{"kubernetes.io/arch": "arm64"}
		app.Spec.MinReadySeconds = 10
		d := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys))
		pod := d.Spec.Template.Spec
		g.Expect(d.Spec.MinReadySeconds).To(Equal(int32(10)))
		g.Expect(pod.ImagePullSecrets).To(Equal([]corev1.LocalObjectReference{{Name: "registry"}}))
		g.Expect(pod.ServiceAccountName).To(Equal("web"))
		g.Expect(pod.DeprecatedServiceAccount).To(Equal("web"), "owned too, so that dropping it clears both")
		g.Expect(pod.AutomountServiceAccountToken).To(Equal(ptr.To(false)))
		g.Expect(pod.NodeSelector).To(Equal(map[string]string{"kubernetes.io/arch": "arm64"}))
		c := pod.Containers[0]
		g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullAlways))
		g.Expect(c.Command).To(Equal([]string{"/bin/server"}))
		g.Expect(c.Args).To(Equal([]string{"--port", "$(PORT)"}))
		g.Expect(c.EnvFrom).To(Equal([]corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}},
			{Prefix: "DB_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Optional: ptr.To(true)}},
		}))
	})

	t.Run("probes and security contexts reach the container and the pod as declared", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.ReadinessProbe = &paasv1.Probe{
			HTTPGet:       &paasv1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http"), HTTPHeaders: []paasv1.HTTPHeader{{Name: "X-Probe", Value: "1"}}},
			PeriodSeconds: 2,
		}
		app.Spec.LivenessProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromInt32(8080)}, FailureThreshold: 5}
		app.Spec.StartupProbe = &paasv1.Probe{Exec: &paasv1.ExecAction{Command: []string{"cat", "/tmp/started"}}}
		app.Spec.SecurityContext = &paasv1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &paasv1.Capabilities{Drop: []paasv1.Capability{"ALL"}, Add: []paasv1.Capability{"NET_BIND_SERVICE"}},
		}
		app.Spec.PodSecurityContext = &paasv1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](1000), FSGroup: ptr.To[int64](2000),
			SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		}
		pod := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Template.Spec
		c := pod.Containers[0]
		g.Expect(c.ReadinessProbe).To(Equal(&corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: "/ready", Port: intstr.FromString("http"), HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Probe", Value: "1"}}}},
			PeriodSeconds: 2,
		}))
		g.Expect(c.LivenessProbe).To(Equal(&corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, FailureThreshold: 5}))
		g.Expect(c.StartupProbe).To(Equal(&corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/started"}}}}))
		g.Expect(c.SecurityContext).To(Equal(&corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}},
		}))
		g.Expect(pod.SecurityContext).To(Equal(&corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](1000), FSGroup: ptr.To[int64](2000),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		}))
	})

	t.Run("volumes reach the pod and their mounts the container", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.Volumes = []paasv1.Volume{
			{Name: "config", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "app", Items: []paasv1.KeyToPath{{Key: "app.conf", Path: "conf/app.conf"}}}},
			{Name: "creds", Secret: &paasv1.SecretVolumeSource{SecretName: "creds", DefaultMode: ptr.To[int32](0o400)}},
			{Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}},
			{Name: "data", PersistentVolumeClaim: &paasv1.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}},
		}
		app.Spec.VolumeMounts = []paasv1.VolumeMount{{Name: "config", MountPath: "/etc/app", SubPath: "conf", ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"}}
		pod := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Template.Spec
		g.Expect(pod.Volumes).To(Equal([]corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Items: []corev1.KeyToPath{{Key: "app.conf", Path: "conf/app.conf"}}}}},
			{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds", DefaultMode: ptr.To[int32](0o400)}}},
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}}},
		}))
		g.Expect(pod.Containers[0].VolumeMounts).To(Equal([]corev1.VolumeMount{
			{Name: "config", MountPath: "/etc/app", SubPath: "conf", ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"}}))
	})

	t.Run("tolerations reach the pod, and each spread constraint selects the app's pods", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		toleration := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "shop", Effect: corev1.TaintEffectNoSchedule}
		app.Spec.Tolerations = []paasv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "shop", Effect: corev1.TaintEffectNoSchedule}}
		app.Spec.TopologySpreadConstraints = []paasv1.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway}}
		pod := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Template.Spec
		g.Expect(pod.Tolerations).To(Equal([]corev1.Toleration{toleration}))
		g.Expect(pod.TopologySpreadConstraints).To(Equal([]corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector: &metav1.LabelSelector{MatchLabels: selectorFor(app)},
		}}))
	})

	t.Run("what the app leaves out stays out of the pod spec", func(t *testing.T) {
		g := NewWithT(t)
		d := newDeployment(testApp(), nil, wellknown.DefaultPodLabelKeys)
		g.Expect(d.Spec.MinReadySeconds).To(BeNil())
		pod, c := d.Spec.Template.Spec, d.Spec.Template.Spec.Containers[0]
		g.Expect(pod.ImagePullSecrets).To(BeEmpty())
		g.Expect(pod.ServiceAccountName).To(BeNil())
		g.Expect(pod.AutomountServiceAccountToken).To(BeNil())
		g.Expect(pod.NodeSelector).To(BeEmpty())
		g.Expect(c.ImagePullPolicy).To(BeNil())
		g.Expect(c.Command).To(BeEmpty())
		g.Expect(c.Args).To(BeEmpty())
		g.Expect(c.EnvFrom).To(BeEmpty())
		g.Expect(c.ReadinessProbe).To(BeNil())
		g.Expect(c.LivenessProbe).To(BeNil())
		g.Expect(c.StartupProbe).To(BeNil())
		g.Expect(c.SecurityContext).To(BeNil())
		g.Expect(pod.SecurityContext).To(BeNil())
		g.Expect(d.Spec.Template.Annotations).To(BeEmpty())
	})

	t.Run("the pods carry the app's labels and annotations beside the operator's", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.PodLabels = map[string]paasv1.LabelValue{"team": "shop", "tier": ""}
		app.Spec.PodAnnotations = map[string]string{"prometheus.io/scrape": "true"}
		app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
		template := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Template
		g.Expect(template.Labels).To(Equal(map[string]string{
			"team": "shop", "tier": "",
			wellknown.LabelName: "web", wellknown.LabelApplication: "web", wellknown.LabelManagedBy: wellknown.ManagedByValue,
		}))
		g.Expect(template.Annotations).To(Equal(map[string]string{
			"prometheus.io/scrape": "true", wellknown.DefaultPodLabelAnnotation: wellknown.OptIn,
		}))
	})

	t.Run("one container port per distinct target", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.Ports = []paasv1.DemoApplicationPort{
			{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))},
			{Name: "alt", Port: 8080},
			{Name: "admin", Port: 9000, TargetPort: ptr.To(intstr.FromString("admin-port"))},
			{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP},
		}
		ports := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys)).Spec.Template.Spec.Containers[0].Ports
		g.Expect(ports).To(Equal([]corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			{Name: "admin-port", ContainerPort: 9000, Protocol: corev1.ProtocolTCP},
			{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
		}))
	})
}
