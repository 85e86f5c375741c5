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

package chart_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
)

func TestApplicationPolicyOffByDefault(t *testing.T) {
	NewWithT(t).Expect(mustRender(t, nil).keys()).NotTo(ContainElement(ContainSubstring("application-policy")))
}

// TestApplicationPolicy installs the policies of two releases on a real API server, each
// bound to the namespace it watches, and creates DemoApplications as a team would: what the
// platform refuses is refused at create time, in the API server's words, naming the field.
func TestApplicationPolicy(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	crd := false
	for name, vals := range map[string]string{
		"strict": `{watchNamespaces: [strict], applicationPolicy: {denyNodePorts: true, denyLoadBalancers: true,
			allowedImageRegistries: [registry.example.com/, mirror.example.com/], maxReplicas: 5}}`,
		"ranged": `{watchNamespaces: [ranged], applicationPolicy: {nodePortRange: {min: 30100, max: 30199}, requireIngressHosts: true}}`,
		"tenants": `{watchNamespaces: [team-a, team-b], applicationPolicy: {denyNodePorts: true,
			allowedImageRegistries: [registry.example.com], allowedServiceAccounts: [default, web],
			allowedTolerations: [dedicated], allowedPriorityClasses: [high], allowedNodeSelectors: [example.com/pool],
			ingressHostSuffixes: {team-a: [a.example.com]}, defaultIngressHostSuffixes: [.shared.example.com],
			allowedIngressClasses: [public], allowedIngressAnnotations: [nginx.ingress.kubernetes.io/rewrite-target, example.com/*],
			allowedStorageClasses: [standard]}}`,
	} {
		rel, err := renderRelease(t, loadChart(t), name, values(t, vals))
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		for key, obj := range parseManifest(t, rel.Manifest) {
			policy := strings.HasPrefix(obj.GetName(), name+"-demo-operator-application-")
			if policy || (obj.GetKind() == "CustomResourceDefinition" && !crd) {
				NewWithT(t).Expect(c.admin.Create(ctx, obj)).To(Succeed(), key)
				crd = crd || !policy
			}
		}
	}
	for _, ns := range []string{"strict", "ranged", "team-a", "team-b", "elsewhere"} {
		c.namespace(t, ns)
	}
	app := func(ns string, mutate func(*paasv1.DemoApplication)) *paasv1.DemoApplication {
		a := builder.DemoApplication(ns, "web", builder.Image("registry.example.com/web:1"))
		mutate(a)
		return a
	}
	refused := func(g Gomega, a *paasv1.DemoApplication, msg string) {
		err := c.admin.Create(ctx, a, client.DryRunAll)
		g.ExpectWithOffset(1, apierrors.IsForbidden(err)).To(BeTrue(), "want a refusal, got %v", err)
		g.ExpectWithOffset(1, err).To(MatchError(ContainSubstring(msg)))
	}
	nodePort := func(port int32) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) { a.Spec.Ports[0].NodePort = ptr.To(port) }
	}
	podServices := func(typ corev1.ServiceType) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) { a.Spec.PodServices = &paasv1.PodServices{Enabled: true, Type: typ} }
	}
	service := func(typ corev1.ServiceType) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) { a.Spec.Service = &paasv1.ServiceSettings{Type: typ} }
	}

	// The API server serves the CRD, and loads a new policy, a moment after they are created.
	NewWithT(t).Eventually(func(g Gomega) {
		refused(g, app("strict", nodePort(30080)), "spec.ports[].nodePort")
		refused(g, app("ranged", nodePort(30500)), "spec.ports[].nodePort")
		refused(g, app("team-a", nodePort(30500)), "spec.ports[].nodePort")
	}, 30*time.Second, 100*time.Millisecond).Should(Succeed())

	t.Run("node ports, when denied", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("strict", nodePort(30080)), "spec.ports[].nodePort: this cluster exposes no application on its nodes' ports")
		refused(g, app("strict", podServices(corev1.ServiceTypeNodePort)), "spec.podServices.type: NodePort is not allowed on this cluster")
	})
	t.Run("load balancers, when denied", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("strict", podServices(corev1.ServiceTypeLoadBalancer)), "spec.podServices.type: LoadBalancer is not allowed on this cluster")
		refused(g, app("strict", service(corev1.ServiceTypeLoadBalancer)),
			"spec.service.type: LoadBalancer is not allowed on this cluster")
	})
	t.Run("images from other registries", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("strict", func(a *paasv1.DemoApplication) { a.Spec.Image = "docker.io/library/nginx:1.27" }),
			"spec.image: docker.io/library/nginx:1.27 is not from a registry this cluster allows: registry.example.com/, mirror.example.com/")
		refused(g, app("strict", func(a *paasv1.DemoApplication) {
			a.Spec.InitContainers = []paasv1.Container{{Name: "migrate", Image: "mirror.example.com/migrate:1"}, {Name: "seed", Image: "docker.io/seed:1"}}
		}), "spec.initContainers[].image: docker.io/seed:1 is not from a registry this cluster allows: registry.example.com/, mirror.example.com/")
		refused(g, app("strict", func(a *paasv1.DemoApplication) {
			a.Spec.Sidecars = []paasv1.Sidecar{{Container: paasv1.Container{Name: "proxy", Image: "quay.io/proxy:1"}}}
		}), "spec.sidecars[].image: quay.io/proxy:1 is not from a registry this cluster allows: registry.example.com/, mirror.example.com/")
	})
	t.Run("more replicas than allowed", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("strict", func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](6) }),
			"spec.replica: 6 is more than the 5 replicas this cluster allows an application")
		refused(g, app("strict", func(a *paasv1.DemoApplication) {
			a.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}
			a.Spec.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 10, TargetMemoryUtilizationPercentage: ptr.To[int32](80)}
		}), "spec.autoscaling.maxReplicas: 10 is more than the 5 replicas this cluster allows an application")

		// kubectl scale, an HPA or KEDA scale the app through its scale subresource.
		scaled := app("strict", func(a *paasv1.DemoApplication) { a.Name = "scaled" })
		g.Expect(c.admin.Create(ctx, scaled)).To(Succeed())
		scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 6}}
		err := c.admin.SubResource("scale").Update(ctx, scaled, client.WithSubResourceBody(scale))
		g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want a refusal, got %v", err)
		g.Expect(err).To(MatchError(ContainSubstring("spec.replica: 6 is more than the 5 replicas this cluster allows an application")))
		scale.Spec.Replicas = 5
		g.Expect(c.admin.SubResource("scale").Update(ctx, scaled, client.WithSubResourceBody(scale))).To(Succeed())
		g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(scaled), scaled)).To(Succeed())
		g.Expect(scaled.Spec.Replica).To(HaveValue(BeEquivalentTo(5)))
	})
	t.Run("node ports outside the range", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("ranged", nodePort(30500)), "spec.ports[].nodePort: 30500 outside 30100-30199")
		g.Expect(c.admin.Create(ctx, app("ranged", nodePort(30150)), client.DryRunAll)).To(Succeed())
	})
	t.Run("what the platform allows is created", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(c.admin.Create(ctx, app("strict", func(a *paasv1.DemoApplication) { a.Spec.Image = "mirror.example.com/web:1" }))).To(Succeed())
		g.Expect(c.admin.Create(ctx, app("ranged", podServices(corev1.ServiceTypeLoadBalancer)))).To(Succeed())
	})
	ingress := func(in paasv1.Ingress) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) { a.Spec.Ingress = &in }
	}
	// allowed dry-runs a, under a name no earlier case has taken.
	allowed := func(g Gomega, a *paasv1.DemoApplication) {
		a.Name = "allowed"
		g.ExpectWithOffset(1, c.admin.Create(ctx, a, client.DryRunAll)).To(Succeed())
	}
	// A StatefulSet app: its per-pod Services are of spec.podServices.type and its replicas
	// spec.replica, as a Deployment app's; its claims' classes are the platform's to allow.
	stateful := func(mutate func(*paasv1.DemoApplication)) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) {
			a.Spec.Workload = paasv1.WorkloadStatefulSet
			a.Spec.StatefulSet = &paasv1.StatefulSetSettings{VolumeClaimTemplates: []paasv1.VolumeClaimTemplate{
				{Name: "data", MountPath: "/data", Size: resource.MustParse("1Gi")}}}
			mutate(a)
		}
	}
	storageClass := func(names ...string) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) {
			for i, name := range names {
				a.Spec.StatefulSet.VolumeClaimTemplates = append(a.Spec.StatefulSet.VolumeClaimTemplates, paasv1.VolumeClaimTemplate{
					Name: fmt.Sprintf("claim-%d", i), MountPath: fmt.Sprintf("/claim-%d", i), Size: resource.MustParse("1Gi"), StorageClassName: ptr.To(name)})
			}
		}
	}
	t.Run("a StatefulSet app held as a Deployment app", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("strict", stateful(podServices(corev1.ServiceTypeNodePort))), "spec.podServices.type: NodePort is not allowed on this cluster")
		refused(g, app("strict", stateful(podServices(corev1.ServiceTypeLoadBalancer))), "spec.podServices.type: LoadBalancer is not allowed on this cluster")
		refused(g, app("strict", stateful(func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](6) })),
			"spec.replica: 6 is more than the 5 replicas this cluster allows an application")
		allowed(g, app("strict", stateful(podServices(corev1.ServiceTypeClusterIP))))
	})
	t.Run("storage classes not allowed", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", stateful(storageClass("standard", "fast"))),
			"spec.statefulSet.volumeClaimTemplates[].storageClassName: fast is not a StorageClass applications may claim volumes of on this cluster "+
				"(the platform's applicationPolicy.allowedStorageClasses): standard")
		refused(g, app("team-a", stateful(storageClass(""))),
			`spec.statefulSet.volumeClaimTemplates[].storageClassName: "" is not a StorageClass applications may claim volumes of`)
		allowed(g, app("team-a", stateful(storageClass("standard"))))
		// The cluster's default class, and any where the platform lists none.
		allowed(g, app("team-a", stateful(storageClass())))
		allowed(g, app("strict", stateful(storageClass("fast", ""))))
	})
	t.Run("load balancers, when node ports are denied", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", podServices(corev1.ServiceTypeLoadBalancer)),
			"spec.podServices.type: LoadBalancer is not allowed on this cluster: it opens node ports too (the platform's applicationPolicy.denyNodePorts)")
		refused(g, app("team-a", service(corev1.ServiceTypeLoadBalancer)),
			"spec.service.type: LoadBalancer is not allowed on this cluster: it opens node ports too (the platform's applicationPolicy.denyNodePorts)")
		refused(g, app("team-a", service(corev1.ServiceTypeNodePort)),
			"spec.service.type: NodePort is not allowed on this cluster (the platform's applicationPolicy.denyNodePorts)")
		allowed(g, app("ranged", service(corev1.ServiceTypeLoadBalancer)))
	})
	t.Run("priority classes not allowed", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", func(a *paasv1.DemoApplication) { a.Spec.PriorityClassName = "urgent" }),
			"spec.priorityClassName: urgent is not a PriorityClass applications may run at on this cluster (the platform's "+
				"applicationPolicy.allowedPriorityClasses): high")
		allowed(g, app("team-a", func(a *paasv1.DemoApplication) { a.Spec.PriorityClassName = "high" }))
		allowed(g, app("team-b", func(*paasv1.DemoApplication) {}))
	})
	t.Run("images from a registry named like an allowed one", func(t *testing.T) {
		g := NewWithT(t)
		for _, image := range []string{"registry.example.com.evil.io/web:1", "registry.example.com:5000/web:1", "registry.example.community/web:1"} {
			refused(g, app("team-a", func(a *paasv1.DemoApplication) { a.Spec.Image = image }),
				"spec.image: "+image+" is not from a registry this cluster allows: registry.example.com")
		}
		allowed(g, app("team-a", func(a *paasv1.DemoApplication) { a.Spec.Image = "registry.example.com/team/web:1" }))
	})
	t.Run("service accounts not allowed", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", func(a *paasv1.DemoApplication) { a.Spec.ServiceAccountName = "deployer" }),
			"spec.serviceAccountName: deployer is not a ServiceAccount applications may run as on this cluster (the platform's "+
				"applicationPolicy.allowedServiceAccounts): default, web")
		allowed(g, app("team-a", func(a *paasv1.DemoApplication) { a.Spec.ServiceAccountName = "web" }))
		allowed(g, app("team-a", func(*paasv1.DemoApplication) {}))
	})
	t.Run("tolerations and node selectors not allowed", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", func(a *paasv1.DemoApplication) {
			a.Spec.Tolerations = []paasv1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpExists}, {Key: "example.com/gpu", Operator: corev1.TolerationOpExists}}
		}), "spec.tolerations[].key: example.com/gpu is not a taint applications may tolerate on this cluster (the platform's "+
			"applicationPolicy.allowedTolerations): dedicated")
		refused(g, app("team-a", func(a *paasv1.DemoApplication) {
			a.Spec.NodeSelector = map[string]paasv1.LabelValue{"kubernetes.io/hostname": "node-1"}
		}), "spec.nodeSelector: kubernetes.io/hostname is not a node label applications may select on this cluster (the platform's "+
			"applicationPolicy.allowedNodeSelectors): example.com/pool")
		refused(g, app("team-a", func(a *paasv1.DemoApplication) {
			a.Spec.Affinity = &paasv1.Affinity{NodeAffinity: &paasv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &paasv1.NodeSelector{
				NodeSelectorTerms: []paasv1.NodeSelectorTerm{{MatchExpressions: []paasv1.NodeSelectorRequirement{
					{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpExists}}}}}}}
		}), "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[].key: "+
			"kubernetes.io/hostname is not a node label applications may select on this cluster (the platform's "+
			"applicationPolicy.allowedNodeSelectors): example.com/pool")
		allowed(g, app("team-a", func(a *paasv1.DemoApplication) {
			a.Spec.Tolerations = []paasv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
			a.Spec.NodeSelector = map[string]paasv1.LabelValue{"example.com/pool": "shop"}
		}))
	})
	t.Run("ingress hosts outside the namespace's suffixes", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", ingress(paasv1.Ingress{})),
			"spec.ingress.hosts: an Ingress must name its hosts on this cluster: without, it would take every host (the platform's "+
				"applicationPolicy.ingressHostSuffixes)")
		for _, host := range []string{"shop.shared.example.com", "a.example.com.evil.io", "evila.example.com", "*.example.com"} {
			refused(g, app("team-a", ingress(paasv1.Ingress{Hosts: []string{"shop.a.example.com", host}})),
				"spec.ingress.hosts: "+host+" is not under a host suffix namespace team-a may use (the platform's applicationPolicy.ingressHostSuffixes): a.example.com")
		}
		allowed(g, app("team-a", ingress(paasv1.Ingress{Hosts: []string{"a.example.com", "shop.a.example.com", "*.a.example.com"}})))
		// Another namespace gets the default suffixes.
		refused(g, app("team-b", ingress(paasv1.Ingress{Hosts: []string{"shop.a.example.com"}})),
			"spec.ingress.hosts: shop.a.example.com is not under a host suffix namespace team-b may use (the platform's "+
				"applicationPolicy.ingressHostSuffixes): shared.example.com")
		allowed(g, app("team-b", ingress(paasv1.Ingress{Hosts: []string{"shop.shared.example.com"}})))
	})
	httpRoute := func(hostnames ...string) func(*paasv1.DemoApplication) {
		return func(a *paasv1.DemoApplication) {
			a.Spec.HTTPRoute = &paasv1.HTTPRoute{ParentRefs: []paasv1.GatewayReference{{Name: "gateway"}}, Hostnames: hostnames}
		}
	}
	t.Run("HTTPRoute hostnames outside the namespace's suffixes", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("team-a", httpRoute()),
			"spec.httpRoute.hostnames: an HTTPRoute must name its hostnames on this cluster: without, it would take every host (the platform's "+
				"applicationPolicy.ingressHostSuffixes)")
		refused(g, app("team-a", httpRoute("shop.a.example.com", "shop.shared.example.com")),
			"spec.httpRoute.hostnames: shop.shared.example.com is not under a host suffix namespace team-a may use (the platform's "+
				"applicationPolicy.ingressHostSuffixes): a.example.com")
		allowed(g, app("team-a", httpRoute("shop.a.example.com", "*.a.example.com")))
		allowed(g, app("team-b", httpRoute("shop.shared.example.com")))
	})
	t.Run("HTTPRoutes without hostnames, when hosts are required", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("ranged", httpRoute()),
			"spec.httpRoute.hostnames: an HTTPRoute must name its hostnames on this cluster: without, it would take every host (the platform's "+
				"applicationPolicy.requireIngressHosts)")
		allowed(g, app("ranged", httpRoute("anything.example.org")))
		allowed(g, app("strict", httpRoute()))
	})
	t.Run("ingresses without hosts, when hosts are required", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, app("ranged", ingress(paasv1.Ingress{})),
			"spec.ingress.hosts: an Ingress must name its hosts on this cluster: without, it would take every host (the platform's "+
				"applicationPolicy.requireIngressHosts)")
		allowed(g, app("ranged", ingress(paasv1.Ingress{Hosts: []string{"anything.example.org"}})))
		allowed(g, app("strict", ingress(paasv1.Ingress{})))
	})
	t.Run("ingress classes and annotations not allowed", func(t *testing.T) {
		g := NewWithT(t)
		hosts := []string{"shop.a.example.com"}
		refused(g, app("team-a", ingress(paasv1.Ingress{Hosts: hosts, ClassName: "internal"})),
			"spec.ingress.className: internal is not an IngressClass applications may use on this cluster (the platform's "+
				"applicationPolicy.allowedIngressClasses): public")
		refused(g, app("team-a", ingress(paasv1.Ingress{Hosts: hosts, Annotations: map[string]string{
			"example.com/owner": "shop", "cert-manager.io/cluster-issuer": "letsencrypt"}})),
			"spec.ingress.annotations: cert-manager.io/cluster-issuer is not an annotation applications may set on their Ingress on this cluster (the "+
				"platform's applicationPolicy.allowedIngressAnnotations): nginx.ingress.kubernetes.io/rewrite-target, example.com/*")
		refused(g, app("team-a", ingress(paasv1.Ingress{Hosts: hosts, Annotations: map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "x"}})),
			"spec.ingress.annotations: nginx.ingress.kubernetes.io/server-snippet is not an annotation")
		allowed(g, app("team-a", ingress(paasv1.Ingress{Hosts: hosts, ClassName: "public", Annotations: map[string]string{
			"example.com/owner": "shop", "nginx.ingress.kubernetes.io/rewrite-target": "/"}})))
		allowed(g, app("team-a", ingress(paasv1.Ingress{Hosts: hosts})))
	})
	t.Run("only in the namespaces the release watches", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(c.admin.Create(ctx, app("elsewhere", func(a *paasv1.DemoApplication) {
			a.Spec.Image, a.Spec.Ports[0].NodePort, a.Spec.Replica = "docker.io/library/nginx:1.27", ptr.To[int32](30500), ptr.To[int32](50)
		}))).To(Succeed())
	})
	t.Run("an app that no longer complies can only be brought back into line", func(t *testing.T) {
		g := NewWithT(t)
		a := &paasv1.DemoApplication{}
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Namespace: "strict", Name: "web"}, a)).To(Succeed())
		a.Spec.Replica = ptr.To[int32](9)
		g.Expect(apierrors.IsForbidden(c.admin.Update(ctx, a))).To(BeTrue())
	})
}
