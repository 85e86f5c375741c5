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
	"encoding/json"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
)

func testApp() *paasv1.DemoApplication {
	port := builder.Port("", 80, 8080)
	port.NodePort = ptr.To[int32](30002)
	return builder.DemoApplication("shop", "web", builder.UID("uid-1"), builder.Ports(port))
}

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

func TestNewService(t *testing.T) {
	t.Run("a nodePort makes a NodePort Service selecting the app's pods", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		s := converted[*corev1.Service](newService(app))
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
		g.Expect(s.Spec.Selector).To(Equal(selectorFor(app)))
		g.Expect(s.Spec.Ports).To(Equal([]corev1.ServicePort{
			{Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080), NodePort: 30002},
		}))
		g.Expect(s.OwnerReferences).To(HaveLen(1))
	})

	t.Run("without nodePorts it is a ClusterIP Service", func(t *testing.T) {
		app := testApp()
		app.Spec.Ports[0].NodePort = nil
		NewWithT(t).Expect(converted[*corev1.Service](newService(app)).Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
	})

	t.Run("without ports there is no Service", func(t *testing.T) {
		app := testApp()
		app.Spec.Ports = nil
		NewWithT(t).Expect(newService(app)).To(BeNil())
	})
}

func TestPodServicesAnnotateThePodTemplate(t *testing.T) {
	g := NewWithT(t)
	app := testApp()
	optIn := wellknown.PodLabelKeys{Annotation: "example.com/opt-in"}
	g.Expect(converted[*appsv1.Deployment](newDeployment(app, nil, optIn)).Spec.Template.Annotations).To(BeEmpty())

	app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
	g.Expect(converted[*appsv1.Deployment](newDeployment(app, nil, optIn)).Spec.Template.Annotations).
		To(Equal(map[string]string{"example.com/opt-in": "true"}))
}

func TestNewPodService(t *testing.T) {
	pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "web-7d9f-x2x4z", UID: "pod-uid"}}
	twoPorts := func() *paasv1.DemoApplication {
		app := testApp()
		app.Spec.Ports = []paasv1.DemoApplicationPort{
			{Name: "http", Port: 80, NodePort: ptr.To[int32](30002)},
			{Name: "metrics", Port: 9090},
		}
		app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
		return app
	}

	t.Run("selects the one pod by its pod-name label, owned by that pod", func(t *testing.T) {
		g := NewWithT(t)
		app := twoPorts()
		s := converted[*corev1.Service](newPodService(app, pod, wellknown.PodLabelKeys{Label: "example.com/pod"}))
		g.Expect(s.Name).To(Equal(pod.Name))
		g.Expect(s.Namespace).To(Equal(app.Namespace))
		g.Expect(s.Spec.Selector).To(Equal(map[string]string{
			wellknown.LabelName: "web", wellknown.LabelApplication: "web", "example.com/pod": pod.Name,
		}))
		g.Expect(s.Labels).To(HaveKeyWithValue(wellknown.LabelPodService, pod.Name))
		g.Expect(s.Labels).To(HaveKeyWithValue(wellknown.LabelManagedBy, wellknown.ManagedByValue))
		g.Expect(s.OwnerReferences).To(Equal([]metav1.OwnerReference{
			{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: "pod-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)},
		}), "not blocking the pod's deletion, which would take update on pods/finalizers")
		g.Expect(isPodService(s)).To(BeTrue())
	})

	t.Run("exposes every port as ClusterIP, never copying a nodePort", func(t *testing.T) {
		g := NewWithT(t)
		s := converted[*corev1.Service](newPodService(twoPorts(), pod, wellknown.DefaultPodLabelKeys))
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
		g.Expect(s.Spec.Ports).To(Equal([]corev1.ServicePort{
			{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP},
		}))
	})

	t.Run("exposes only the named ports, with the chosen type", func(t *testing.T) {
		g := NewWithT(t)
		app := twoPorts()
		app.Spec.PodServices.Ports = []string{"metrics"}
		app.Spec.PodServices.Type = corev1.ServiceTypeNodePort
		s := converted[*corev1.Service](newPodService(app, pod, wellknown.DefaultPodLabelKeys))
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
		g.Expect(s.Spec.Ports).To(Equal([]corev1.ServicePort{{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP}}))
	})

	t.Run("a Service someone else controls is not a per-pod Service", func(t *testing.T) {
		s := converted[*corev1.Service](newPodService(twoPorts(), pod, wellknown.DefaultPodLabelKeys))
		s.OwnerReferences[0].Kind = "ReplicaSet"
		NewWithT(t).Expect(isPodService(s)).To(BeFalse())
	})
}

// FuzzDesiredObjects checks that whatever a valid DemoApplication holds, the builders
// never panic and produce objects the API server would accept: valid names and labels, a
// selector that matches the pod template, container ports unique by number and protocol
// and by name, as SSA's list keys require.
func FuzzDesiredObjects(f *testing.F) {
	f.Add("web", "nginx:1.27", int32(2), []byte(`[{"port":80,"targetPort":8080,"nodePort":30002}]`))
	f.Add("a", "x", int32(0), []byte(`[{"name":"a","port":80,"targetPort":"http"},{"name":"b","port":81,"targetPort":"http"}]`))
	f.Add("api-gateway", "registry.example.com/app@sha256:00", int32(5), []byte(`[{"name":"t","port":53},{"name":"u","port":53,"protocol":"UDP"}]`))
	f.Fuzz(func(t *testing.T, name, image string, replica int32, portsJSON []byte) {
		var ports []paasv1.DemoApplicationPort
		if json.Unmarshal(portsJSON, &ports) != nil || len(validation.IsDNS1123Label(name)) > 0 || image == "" || replica < 0 {
			t.Skip("not a DemoApplication the API server admits")
		}
		app := testApp()
		app.Name, app.Spec.Image, app.Spec.Replica, app.Spec.Ports = name, image, &replica, ports

		d := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys))
		for k, v := range d.Labels {
			if msgs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(msgs) > 0 {
				t.Fatalf("label %s=%s: %v", k, v, msgs)
			}
		}
		if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Fatalf("selector %v does not match template labels %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
		}
		keys, names := map[string]bool{}, map[string]bool{}
		for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
			key := fmt.Sprint(p.ContainerPort, p.Protocol)
			if keys[key] || (p.Name != "" && names[p.Name]) {
				t.Fatalf("duplicate container port %+v in %+v", p, d.Spec.Template.Spec.Containers[0].Ports)
			}
			keys[key], names[p.Name] = true, p.Name != ""
		}

		if len(ports) > 0 {
			app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
			pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name + "-5d4f8-abcde"}}
			ps := converted[*corev1.Service](newPodService(app, pod, wellknown.DefaultPodLabelKeys))
			if len(ps.Spec.Ports) != len(ports) {
				t.Fatalf("per-pod Service has %d ports, app declares %d", len(ps.Spec.Ports), len(ports))
			}
			for _, p := range ps.Spec.Ports {
				if p.NodePort != 0 {
					t.Fatalf("per-pod Service copies nodePort %d", p.NodePort)
				}
			}
		}

		s := newService(app)
		if (s == nil) != (len(ports) == 0) {
			t.Fatalf("Service %v for %d ports", s, len(ports))
		}
		if s != nil && len(converted[*corev1.Service](s).Spec.Ports) != len(ports) {
			t.Fatalf("Service has %d ports, app declares %d", len(s.Spec.Ports), len(ports))
		}
	})
}

func TestNewObjects(t *testing.T) {
	t.Run("a served app of two replicas with a policy: its four objects, the pods carrying the hash", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.NetworkPolicy = &paasv1.NetworkPolicy{Enabled: true, SameApp: true}
		objects := NewObjects(app, "abc")
		g.Expect(objects).To(HaveLen(4))
		d, ok := objects[0].(*appsv1.Deployment)
		g.Expect(ok).To(BeTrue(), "the Deployment first")
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(ConfigHashAnnotation, "abc"))
		g.Expect(d.Annotations).To(HaveKeyWithValue(DefaultsAnnotation, defaultsVersion))
		g.Expect(objects[1:]).To(HaveEach(WithTransform(func(o client.Object) []metav1.OwnerReference { return o.GetOwnerReferences() },
			Equal(d.OwnerReferences))))
		g.Expect([]string{objects[1].GetObjectKind().GroupVersionKind().Kind, objects[2].GetObjectKind().GroupVersionKind().Kind,
			objects[3].GetObjectKind().GroupVersionKind().Kind}).To(Equal([]string{"Service", "PodDisruptionBudget", "NetworkPolicy"}))
	})
	t.Run("a single replica without ports or policy: its Deployment alone, no hash", func(t *testing.T) {
		g := NewWithT(t)
		objects := NewObjects(builder.DemoApplication("shop", "worker", builder.Replicas(1), builder.Ports()), "")
		g.Expect(objects).To(HaveLen(1))
		g.Expect(objects[0].(*appsv1.Deployment).Spec.Template.Annotations).NotTo(HaveKey(ConfigHashAnnotation))
	})
}
