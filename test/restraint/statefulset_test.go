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

package restraint

import (
	"context"
	"maps"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// stateful is what the operator writes for an app of workload StatefulSet: its StatefulSet,
// its governing Service and the per-pod Service of each ordinal.
type stateful struct {
	statefulSet *appsv1.StatefulSet
	governing   *corev1.Service
	podService  func(ordinal string) *corev1.Service
}

// statefulFor returns the objects the operator builds for app name of workload StatefulSet,
// from the objects it built for w's app: the same labels, controller and pod template, the
// app's container mounting its one claim, state; the Services' ports, and the per-pod
// Services' type, as w's.
func statefulFor(w *web, name string) *stateful {
	d := renamed(w.deployment, "", name)
	template := d.Spec.Template.DeepCopy()
	template.Spec.Containers[0].VolumeMounts = append(template.Spec.Containers[0].VolumeMounts,
		corev1.VolumeMount{Name: "state", MountPath: "/var/lib/web"})
	selector := d.Spec.Selector.MatchLabels
	owner := d.OwnerReferences
	labels := func(extra map[string]string) map[string]string {
		l := maps.Clone(d.Labels)
		maps.Copy(l, extra)
		return l
	}
	ports := make([]corev1.ServicePort, 0, len(w.service.Spec.Ports))
	for _, p := range w.service.Spec.Ports {
		p.NodePort = 0
		ports = append(ports, p)
	}
	service := func(svcName string, extraLabels, extraSelector map[string]string, spec corev1.ServiceSpec) *corev1.Service {
		spec.Selector = maps.Clone(selector)
		maps.Copy(spec.Selector, extraSelector)
		spec.Ports = ports
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: svcName, Labels: labels(extraLabels),
			OwnerReferences: owner}, Spec: spec}
	}
	return &stateful{
		statefulSet: &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: name, Labels: d.Labels, Annotations: d.Annotations, OwnerReferences: owner},
			Spec: appsv1.StatefulSetSpec{
				Replicas:            ptr.To[int32](3),
				Selector:            d.Spec.Selector,
				ServiceName:         name + "-headless",
				Template:            *template,
				PodManagementPolicy: appsv1.ParallelPodManagement,
				UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](1)}},
				PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
					WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType},
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
					ObjectMeta: metav1.ObjectMeta{Name: "state"},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						StorageClassName: ptr.To(""),
						Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
					},
				}},
				MinReadySeconds:      d.Spec.MinReadySeconds,
				RevisionHistoryLimit: d.Spec.RevisionHistoryLimit,
			},
		},
		governing: service(name+"-headless", nil, nil, corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Type: corev1.ServiceTypeClusterIP}),
		podService: func(ordinal string) *corev1.Service {
			podName := name + "-" + ordinal
			return service(podName, map[string]string{wellknown.LabelPodService: podName},
				map[string]string{wellknown.DefaultPodNameLabel: podName}, corev1.ServiceSpec{Type: w.podService.Spec.Type})
		},
	}
}

// TestStatefulSets shows that the operator may create what it builds for an app of workload
// StatefulSet (the app api here, whose objects are built like the app web's; newWeb's db is
// one the running operator built, which TestOperatorsOwnWrites writes again), and nothing
// else: each attack changes one of them in one way.
func TestStatefulSets(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, admin, "statefulsets-")
	w := newWeb(t, ns)
	api := statefulFor(w, "api")
	// The Services of another such app as the operator keeps them, for the writes that change
	// or delete them.
	cache := statefulFor(w, "cache")
	kept := []*corev1.Service{cache.governing, cache.podService("0")}
	for _, s := range kept {
		NewWithT(t).Expect(admin.Create(ctx, s)).To(Succeed())
	}
	// Past RBAC, which grants the operator no delete of StatefulSets: a platform's mistake.
	grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, Verbs: []string{"delete"}})

	t.Run("the operator's own writes", func(t *testing.T) {
		g := NewWithT(t)
		for _, obj := range []client.Object{api.statefulSet.DeepCopy(), api.governing.DeepCopy(), api.podService("0"), api.podService("12")} {
			g.Expect(operator.Create(ctx, obj, client.DryRunAll, asOperator)).To(Succeed(), "%T %s", obj, obj.GetName())
		}
		g.Expect(operator.Create(ctx, api.statefulSet.DeepCopy(), client.DryRunAll,
			client.FieldOwner(wellknown.FieldManager+"-replicas-handover"))).To(Succeed())
		// Without the fields the API server defaults, as the builder leaves them when the app
		// does not ask: a claim template without a class, the policies defaulted.
		bare := api.statefulSet.DeepCopy()
		bare.Spec.VolumeClaimTemplates[0].Spec.StorageClassName = nil
		bare.Spec.PersistentVolumeClaimRetentionPolicy, bare.Spec.PodManagementPolicy = nil, ""
		bare.Spec.UpdateStrategy, bare.Spec.Replicas, bare.Spec.RevisionHistoryLimit = appsv1.StatefulSetUpdateStrategy{}, nil, nil
		g.Expect(operator.Create(ctx, bare, client.DryRunAll, asOperator)).To(Succeed())
		// Changed as the operator changes them, and deleted as the garbage collector would.
		for _, s := range kept {
			changed := s.DeepCopy()
			changed.Spec.Ports = changed.Spec.Ports[:1]
			g.Expect(write(changed, asOperator)).To(Succeed(), "Service %s", s.Name)
			g.Expect(operator.Delete(ctx, s.DeepCopy(), client.DryRunAll)).To(Succeed(), "Service %s", s.Name)
		}
		// An HPA of the app's name scaling its StatefulSet.
		a := w.autoscaler.DeepCopy()
		a.Spec.ScaleTargetRef.Kind = "StatefulSet"
		g.Expect(write(a, asOperator)).To(Succeed())
	})

	statefulSet := func(change func(*appsv1.StatefulSet)) func() client.Object {
		return func() client.Object {
			s := api.statefulSet.DeepCopy()
			change(s)
			return s
		}
	}
	pod := func(change func(*corev1.PodSpec)) func() client.Object {
		return statefulSet(func(s *appsv1.StatefulSet) { change(&s.Spec.Template.Spec) })
	}
	claim := func(change func(*corev1.PersistentVolumeClaim)) func() client.Object {
		return statefulSet(func(s *appsv1.StatefulSet) { change(&s.Spec.VolumeClaimTemplates[0]) })
	}
	service := func(of *corev1.Service, change func(*corev1.Service)) func() client.Object {
		return func() client.Object {
			s := of.DeepCopy()
			change(s)
			return s
		}
	}
	for name, attack := range map[string]struct {
		object func() client.Object
		msg    string
	}{
		"a StatefulSet selecting another app's pods": {statefulSet(func(s *appsv1.StatefulSet) {
			web := map[string]string{wellknown.LabelName: "web", wellknown.LabelApplication: "web"}
			s.Spec.Selector.MatchLabels = web
			maps.Copy(s.Spec.Template.Labels, web)
		}), "may write only a StatefulSet that selects its app's pods, by the app's labels alone"},
		"a StatefulSet governed by another's Service": {statefulSet(func(s *appsv1.StatefulSet) { s.Spec.ServiceName = "theirs" }),
			"may write only a StatefulSet whose serviceName is its own governing Service, api-headless, not 'theirs'"},
		"a StatefulSet named otherwise than its controller": {statefulSet(func(s *appsv1.StatefulSet) { s.Name = "api-0" }),
			"may write only statefulsets that one controller reference ties to the DemoApplication (paas.cmft.com/v1) of their own name"},
		"a claim binding a chosen volume": {claim(func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "theirs" }),
			"whose volume claim templates each set their name, access modes, storage class, storage request and volumeMode Filesystem alone"},
		"a claim selecting volumes": {claim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "theirs"}}
		}), "no selector, volumeName, dataSource"},
		"a claim cloning another's claim": {claim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "theirs"}
		}), "no selector, volumeName, dataSource"},
		"a claim of a block device": {claim(func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) }),
			"volumeMode Filesystem alone"},
		"a claim owned by another": {claim(func(c *corev1.PersistentVolumeClaim) {
			c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: ns, UID: "00000000-0000-0000-0000-000000000001"}}
		}), "no selector, volumeName, dataSource, dataSourceRef, labels or annotations"},
		"a claim annotated for a node": {claim(func(c *corev1.PersistentVolumeClaim) {
			c.Annotations = map[string]string{"volume.kubernetes.io/selected-node": "control-plane"}
		}), "no selector, volumeName, dataSource, dataSourceRef, labels or annotations"},
		"a claim with limits": {claim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Limits = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
		}), "whose volume claim templates each set their name, access modes, storage class, storage request"},
		"ordinals": {statefulSet(func(s *appsv1.StatefulSet) { s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 5} }),
			"may not write a StatefulSet that sets ordinals: no DemoApplication asks for it"},
		"updates on delete": {statefulSet(func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
		}), "may not write a StatefulSet that sets updateStrategy.type OnDelete"},
		"a privileged StatefulSet pod": {pod(func(p *corev1.PodSpec) {
			p.Containers[0].SecurityContext.Privileged, p.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true), nil
		}), "may not write a StatefulSet whose pods run privileged containers"},
		"a StatefulSet pod on the node's network": {pod(func(p *corev1.PodSpec) { p.HostNetwork = true }),
			"may not write a StatefulSet whose pods set hostNetwork: no DemoApplication asks for it"},
		"a StatefulSet pod with the node's root": {pod(func(p *corev1.PodSpec) {
			p.Volumes = append(p.Volumes, corev1.Volume{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}})
		}), "may not write a StatefulSet whose pods use hostPath volumes"},
		"a StatefulSet pod with SYS_ADMIN": {pod(func(p *corev1.PodSpec) {
			p.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"SYS_ADMIN"}
		}), "may not write a StatefulSet whose containers add capabilities other than NET_BIND_SERVICE"},
		"a StatefulSet pod running a second container": {pod(func(p *corev1.PodSpec) {
			p.Containers = append(p.Containers, corev1.Container{Name: "miner", Image: "attacker.example/miner:1"})
		}), "may not write a StatefulSet whose pods run any container but their one container app"},
		"a StatefulSet pod at a system priority": {pod(func(p *corev1.PodSpec) { p.PriorityClassName = "system-node-critical" }),
			"may not write a StatefulSet whose pods run at PriorityClass system-node-critical"},
		"a StatefulSet pod tolerating the control plane": {pod(func(p *corev1.PodSpec) {
			p.Tolerations = append(p.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
		}), "may not write a StatefulSet whose pods tolerate every taint or the control plane's"},
		"a governing Service that selects another's pods": {service(api.governing, func(s *corev1.Service) {
			s.Spec.Selector = map[string]string{"app": "theirs"}
		}), "may write only a Service that selects its app's pods, by the app's labels alone"},
		"a governing Service with a cluster IP": {service(api.governing, func(s *corev1.Service) { s.Spec.ClusterIP = "" }),
			"may write only a governing Service (<app>-headless) that is headless"},
		"a governing Service with an external IP": {service(api.governing, func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"203.0.113.1"} }),
			"may not write a Service that sets externalIPs"},
		"a governing Service labelled for another app": {service(api.governing, func(s *corev1.Service) {
			s.Labels[wellknown.LabelName], s.Labels[wellknown.LabelApplication] = "web", "web"
		}), "whose labels paas.cmft.com/demoapplication and app.kubernetes.io/name name their app, their controller"},
		"a Service of another's name controlled by the app": {service(api.governing, func(s *corev1.Service) { s.Name = "theirs-headless" }),
			"or to the DemoApplication <app> whose governing Service (<app>-headless) or per-pod Service (<app>-<ordinal>) they are"},
		"a per-pod Service of another app's ordinal": {service(api.podService("7"), func(s *corev1.Service) {
			s.OwnerReferences[0].Name = "other"
		}), "that one controller reference ties to the DemoApplication (paas.cmft.com/v1) or Pod of their own name"},
		"a per-pod Service of the app's name, not an ordinal": {service(api.podService("7"), func(s *corev1.Service) {
			s.Name = "api-x7"
			s.Labels[wellknown.LabelPodService], s.Spec.Selector[wellknown.DefaultPodNameLabel] = s.Name, s.Name
		}), "that one controller reference ties to the DemoApplication (paas.cmft.com/v1) or Pod of their own name"},
		"a per-pod Service of an ordinal no pod has": {service(api.podService("07"), func(*corev1.Service) {}),
			"that one controller reference ties to the DemoApplication (paas.cmft.com/v1) or Pod of their own name"},
		"a per-pod Service labelled for another app": {service(api.podService("7"), func(s *corev1.Service) {
			s.Labels[wellknown.LabelName], s.Labels[wellknown.LabelApplication] = "other", "other"
		}), "name their app, their controller, and paas.cmft.com/pod-service their own name"},
		"a per-pod Service labelled for another pod": {service(api.podService("7"), func(s *corev1.Service) {
			s.Labels[wellknown.LabelPodService] = "api-0"
		}), "name their app, their controller, and paas.cmft.com/pod-service their own name"},
		"a per-pod Service selecting another pod": {service(api.podService("7"), func(s *corev1.Service) {
			s.Spec.Selector[wellknown.DefaultPodNameLabel] = "api-0"
		}), "may write only a per-pod Service that selects its pod alone, by the app's labels and padok.fr/pod-name"},
		"a per-pod Service selecting every pod of the app": {service(api.podService("7"), func(s *corev1.Service) {
			delete(s.Spec.Selector, wellknown.DefaultPodNameLabel)
		}), "may write only a per-pod Service that selects its pod alone"},
		"a per-pod Service with an external IP": {service(api.podService("7"), func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"203.0.113.1"} }),
			"may not write a Service that sets externalIPs"},
	} {
		t.Run(name, func(t *testing.T) {
			refused(NewWithT(t), operator.Create(ctx, attack.object(), client.DryRunAll, asOperator), attack.msg)
		})
	}

	t.Run("the operator's StatefulSet, written back with a privileged pod", func(t *testing.T) {
		s := w.db.statefulSet.DeepCopy()
		s.Spec.Template.Spec.Containers[0].SecurityContext.Privileged = ptr.To(true)
		s.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil
		refused(NewWithT(t), write(s, asOperator), "may not write a StatefulSet whose pods run privileged containers")
	})
	t.Run("the operator's per-pod Service, written back selecting another pod", func(t *testing.T) {
		s := w.db.podService.DeepCopy()
		s.Spec.Selector[wellknown.DefaultPodNameLabel] = "db-1"
		refused(NewWithT(t), write(s, asOperator), "may write only a per-pod Service that selects its pod alone")
	})
	t.Run("the operator's governing Service, written back selecting another's pods", func(t *testing.T) {
		s := w.db.governing.DeepCopy()
		s.Spec.Selector = map[string]string{"app": "theirs"}
		refused(NewWithT(t), write(s, asOperator), "may write only a Service that selects its app's pods, by the app's labels alone")
	})
	t.Run("an HPA scaling another's StatefulSet", func(t *testing.T) {
		a := w.db.autoscaler.DeepCopy()
		a.Spec.ScaleTargetRef.Name = "theirs"
		refused(NewWithT(t), write(a, asOperator), "may write only a HorizontalPodAutoscaler that scales the Deployment or the StatefulSet of its own name")
	})
	t.Run("a StatefulSet in kube-system", func(t *testing.T) {
		s := api.statefulSet.DeepCopy()
		s.Namespace = metav1.NamespaceSystem
		refused(NewWithT(t), operator.Create(ctx, s, client.DryRunAll, asOperator), "may not write statefulsets in the cluster's own namespace kube-system")
	})
	t.Run("the scale subresource", func(t *testing.T) {
		grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"statefulsets/scale"}, Verbs: []string{"update"}})
		theirs := api.statefulSet.DeepCopy()
		theirs.Name, theirs.OwnerReferences = "theirs", nil
		NewWithT(t).Expect(admin.Create(ctx, theirs)).To(Succeed())
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: theirs.Name}, Spec: autoscalingv1.ScaleSpec{Replicas: 100}}
		refused(NewWithT(t), operator.SubResource("scale").Update(ctx, theirs, client.WithSubResourceBody(scale), client.DryRunAll, asOperator),
			"may not write the scale of statefulsets")
	})
	t.Run("another's StatefulSet and Services taken over, or deleted", func(t *testing.T) {
		g := NewWithT(t)
		theirs := api.statefulSet.DeepCopy()
		theirs.Name, theirs.OwnerReferences, theirs.Spec.ServiceName = "mine", nil, "mine-headless"
		g.Expect(admin.Create(ctx, theirs)).To(Succeed())
		refused(g, operator.Delete(ctx, theirs, client.DryRunAll),
			"may change or delete only the statefulsets controlled by DemoApplication (paas.cmft.com/v1) of their own name")
		// A Service named like a governing or a per-pod Service, which no app controls.
		for _, name := range []string{"mine-headless", "mine-0"} {
			s := api.governing.DeepCopy()
			s.Name, s.OwnerReferences = name, nil
			g.Expect(admin.Create(ctx, s)).To(Succeed())
			refused(g, operator.Delete(ctx, s, client.DryRunAll), "may change or delete only the services controlled by "+
				"DemoApplication (paas.cmft.com/v1) or Pod of their own name, or by the DemoApplication <app> whose governing Service")
		}
	})
}
