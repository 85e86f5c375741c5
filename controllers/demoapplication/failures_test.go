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

package demoapplication_test

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// inPlace matches an app whose whole spec is applied and which is not degraded.
func inPlace() OmegaMatcher {
	return And(
		haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected),
		WithTransform(func(a *paasv1.DemoApplication) bool { return a.Status.ObservedGeneration == a.Generation }, BeTrue()),
	)
}

// failing matches an app Degraded for this reason, said of its current spec.
func failing(reason string) OmegaMatcher {
	return And(
		haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, reason),
		WithTransform(func(a *paasv1.DemoApplication) bool {
			return condition(a, paasv1.ConditionDegraded).ObservedGeneration == a.Generation
		}, BeTrue()),
	)
}

// behind matches an app whose current spec is not (yet) in place: not Ready.
func behind() OmegaMatcher {
	return WithTransform(func(a *paasv1.DemoApplication) bool {
		return !meta.IsStatusConditionTrue(a.Status.Conditions, paasv1.ConditionReady)
	}, BeTrue())
}

// createInPlace creates app and waits until its spec is in place.
func createInPlace(g Gomega, app *paasv1.DemoApplication) *paasv1.DemoApplication {
	g.Expect(k8sClient.Create(context.Background(), app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(get(g, app.Namespace, app.Name, &paasv1.DemoApplication{})).To(inPlace())
	}, waitFor, pollEvery).Should(Succeed())
	return app
}

type portKey struct {
	Port     int32
	Protocol corev1.Protocol
}

// servicePorts returns the Service's ports by port and protocol, with their node ports.
func servicePorts(g Gomega, namespace, name string) map[portKey]int32 {
	out := map[portKey]int32{}
	for _, p := range get(g, namespace, name, &corev1.Service{}).Spec.Ports {
		out[portKey{p.Port, p.Protocol}] = p.NodePort
	}
	return out
}

func TestServicePortEdits(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP

	// edit changes app's ports and waits until the Service has exactly want's ports and
	// the app says its spec is in place.
	edit := func(g Gomega, app *paasv1.DemoApplication, ports []paasv1.DemoApplicationPort, want ...portKey) map[portKey]int32 {
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Ports = ports })
		var got map[portKey]int32
		g.Eventually(func(g Gomega) {
			got = servicePorts(g, ns, app.Name)
			g.Expect(slices.Collect(maps.Keys(got))).To(ConsistOf(want))
			g.Expect(get(g, ns, app.Name, &paasv1.DemoApplication{})).To(inPlace())
		}, waitFor, pollEvery).Should(Succeed())
		return got
	}

	t.Run("dropping one half of a TCP/UDP pair", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "dns")
		app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "dns-tcp", Port: 53}, {Name: "dns-udp", Port: 53, Protocol: udp}}
		g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
		g.Eventually(func(g Gomega) map[portKey]int32 { return servicePorts(g, ns, "dns") }, waitFor, pollEvery).Should(HaveLen(2))

		edit(g, app, []paasv1.DemoApplicationPort{{Name: "dns-tcp", Port: 53}}, portKey{53, tcp})
	})

	t.Run("renumbering a port and swapping protocols", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "renumber")
		app.Spec.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80}, {Name: "dns", Port: 53}}
		g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
		g.Eventually(func(g Gomega) map[portKey]int32 { return servicePorts(g, ns, "renumber") }, waitFor, pollEvery).Should(HaveLen(2))

		edit(g, app, []paasv1.DemoApplicationPort{{Name: "http", Port: 8080}, {Name: "dns", Port: 53}}, portKey{8080, tcp}, portKey{53, tcp})
		edit(g, app, []paasv1.DemoApplicationPort{{Name: "http", Port: 8080}, {Name: "dns", Port: 53, Protocol: udp}}, portKey{8080, tcp}, portKey{53, udp})
		// Both halves of a pair, their names swapped.
		edit(g, app, []paasv1.DemoApplicationPort{{Name: "dns", Port: 53, Protocol: udp}, {Name: "dns-tcp", Port: 53}},
			portKey{53, udp}, portKey{53, tcp})
		edit(g, app, []paasv1.DemoApplicationPort{{Name: "dns-tcp", Port: 53, Protocol: udp}, {Name: "dns", Port: 53}},
			portKey{53, udp}, portKey{53, tcp})
	})

	t.Run("a NodePort Service keeps its node ports where the spec keeps the port", func(t *testing.T) {
		g := NewWithT(t)
		app := builder.DemoApplication(ns, "nodeports")
		app.Spec.Ports = []paasv1.DemoApplicationPort{
			{Name: "web", Port: 80, NodePort: ptr.To[int32](30120)},
			{Name: "dns-tcp", Port: 53}, {Name: "dns-udp", Port: 53, Protocol: udp},
		}
		g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
		var allocated map[portKey]int32
		g.Eventually(func(g Gomega) {
			allocated = servicePorts(g, ns, "nodeports")
			g.Expect(allocated).To(HaveLen(3))
			g.Expect(allocated).To(HaveEach(Not(BeZero())))
		}, waitFor, pollEvery).Should(Succeed())

		got := edit(g, app, []paasv1.DemoApplicationPort{{Name: "web", Port: 80, NodePort: ptr.To[int32](30120)}, {Name: "dns-tcp", Port: 53}},
			portKey{80, tcp}, portKey{53, tcp})
		g.Expect(got).To(Equal(map[portKey]int32{{80, tcp}: 30120, {53, tcp}: allocated[portKey{53, tcp}]}))
	})
}

// withoutVerb removes verb from the operator's rules on a resource until the returned
// function, or the end of t, puts it back.
func withoutVerb(t *testing.T, resourceName, verb string) (restore func()) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{}
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "manager-role"}, role)).To(Succeed())
	original := role.DeepCopy()
	for i, rule := range role.Rules {
		if slices.Contains(rule.Resources, resourceName) {
			role.Rules[i].Verbs = slices.DeleteFunc(slices.Clone(rule.Verbs), func(v string) bool { return v == verb })
		}
	}
	g.Expect(k8sClient.Update(ctx, role)).To(Succeed())
	restore = sync.OnceFunc(func() {
		latest := &rbacv1.ClusterRole{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "manager-role"}, latest)).To(Succeed())
		latest.Rules = original.Rules
		g.Expect(k8sClient.Update(ctx, latest)).To(Succeed())
	})
	t.Cleanup(restore)
	return restore
}

func TestFailuresReachStatus(t *testing.T) {
	ctx := context.Background()

	t.Run("RBAC removed: a forbidden read", func(t *testing.T) {
		g := NewWithT(t)
		ns := testenv.NewNamespace(t, k8sClient, "test-")
		// A name taken by a Deployment outside the cache is looked up on the API server, to
		// tell whose it is: forbidden now.
		theirs := theirDeployment(ns, "rbac")
		g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
		restore := withoutVerb(t, "deployments", "get")
		app := builder.DemoApplication(ns, "rbac")
		g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "rbac", &paasv1.DemoApplication{})
			g.Expect(got).To(And(failing(paasv1.ReasonDeploymentFailed), behind()))
			g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(ContainSubstring("forbidden"))
			g.Expect(condition(got, paasv1.ConditionAvailable).Type).To(BeEmpty(), "the Deployment was not seen: nothing is said of it")
			g.Expect(suite.EventReasons(g, ns, "rbac")).To(ContainElement(paasv1.ReasonDeploymentFailed))
		}, waitFor, pollEvery).Should(Succeed())

		restore()
		g.Expect(k8sClient.Delete(ctx, theirs)).To(Succeed())
		g.Eventually(func(g Gomega) { g.Expect(get(g, ns, "rbac", &paasv1.DemoApplication{})).To(inPlace()) }, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("an admission policy that denies: a refused delete", func(t *testing.T) {
		g := NewWithT(t)
		ns := testenv.NewNamespace(t, k8sClient, "test-")
		app := createInPlace(g, builder.DemoApplication(ns, "kept"))

		denyServiceDeletes(t, ns)
		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Ports = nil })
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "kept", &paasv1.DemoApplication{})
			g.Expect(got).To(And(failing(paasv1.ReasonServiceFailed), behind()))
			g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(ContainSubstring("Services here are kept"))
			g.Expect(suite.EventReasons(g, ns, "kept")).To(ContainElement(paasv1.ReasonServiceFailed))
		}, waitFor, pollEvery).Should(Succeed())
	})

	t.Run("a namespace not handed to applications: the restraint's refusal", func(t *testing.T) {
		g := NewWithT(t)
		ns := testenv.NewNamespace(t, k8sClient, "test-", testenv.NotForApplications)
		g.Expect(k8sClient.Create(ctx, builder.DemoApplication(ns, "unplaced"))).To(Succeed())
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "unplaced", &paasv1.DemoApplication{})
			g.Expect(got).To(And(failing(paasv1.ReasonDeploymentFailed), behind()))
			g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(ContainSubstring(
				"only in namespaces labelled paas.cmft.com/applications=enabled, and " + ns + " is not"))
			g.Expect(suite.EventReasons(g, ns, "unplaced")).To(ContainElement(demoapplication.EventApplyFailed))
		}, 30*time.Second).Should(Succeed())
		g.Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "unplaced"}, &appsv1.Deployment{}))).To(BeTrue())

		// Handed over, as a platform team does: the app converges.
		testenv.HandOver(t, k8sClient, ns)
		g.Eventually(func(g Gomega) { g.Expect(get(g, ns, "unplaced", &paasv1.DemoApplication{})).To(inPlace()) }, 60*time.Second).Should(Succeed())
	})

	t.Run("a ResourceQuota that denies: refused per-pod Services", func(t *testing.T) {
		g := NewWithT(t)
		ns := testenv.NewNamespace(t, k8sClient, "test-")
		app := createInPlace(g, builder.DemoApplication(ns, "quota"))

		// envtest runs no quota controller: the test writes the usage it would.
		one := resource.MustParse("1")
		quota := &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one-service"},
			Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceServices: one}},
		}
		g.Expect(k8sClient.Create(ctx, quota)).To(Succeed())
		quota.Status = corev1.ResourceQuotaStatus{Hard: quota.Spec.Hard, Used: corev1.ResourceList{corev1.ResourceServices: one}}
		g.Expect(k8sClient.Status().Update(ctx, quota)).To(Succeed())

		update(g, app, func(a *paasv1.DemoApplication) { a.Spec.PodServices = &paasv1.PodServices{Enabled: true} })
		g.Eventually(func(g Gomega) {
			g.Expect(get(g, ns, "quota", &appsv1.Deployment{}).Spec.Template.Annotations).To(HaveKey(wellknown.DefaultPodLabelAnnotation))
		}, waitFor, pollEvery).Should(Succeed())
		newAppPod(g, app, "quota-5c8d7-aaaaa")
		g.Eventually(func(g Gomega) {
			got := get(g, ns, "quota", &paasv1.DemoApplication{})
			g.Expect(got).To(failing(paasv1.ReasonPodServicesFailed))
			g.Expect(condition(got, paasv1.ConditionDegraded).Message).To(ContainSubstring("exceeded quota"))
			// Apply recorded the refusal; the step adds no second Event of it.
			g.Expect(suite.EventReasons(g, ns, "quota")).To(And(ContainElement(demoapplication.EventApplyFailed),
				Not(ContainElement(paasv1.ReasonPodServicesFailed))))
		}, waitFor, pollEvery).Should(Succeed())
	})
}

// denyServiceDeletes makes the API server refuse, through a ValidatingAdmissionPolicy, to
// delete Services in namespace, and waits until it does.
func denyServiceDeletes(t *testing.T, namespace string) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "keep-services-" + namespace},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"services"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: "Services here are kept"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{corev1.LabelMetadataName: namespace},
			}},
		},
	}
	g.Expect(k8sClient.Create(ctx, policy)).To(Succeed())
	g.Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() {
		_ = k8sClient.Delete(ctx, binding)
		_ = k8sClient.Delete(ctx, policy)
	})
	probe := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "probe"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 1}}}}
	g.Expect(k8sClient.Create(ctx, probe)).To(Succeed())
	g.Eventually(func() error { return k8sClient.Delete(ctx, probe, client.DryRunAll) }, waitFor, pollEvery).
		Should(MatchError(ContainSubstring("Services here are kept")))
}

// staleCache answers reads from the objects it was given, as a cache that has not yet seen
// the latest changes does, and sends writes to the API server.
type staleCache struct {
	client.Client
	objects []client.Object
}

func (c staleCache) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	for _, o := range c.objects {
		if client.ObjectKeyFromObject(o) == key && reflect.TypeOf(o) == reflect.TypeOf(obj) {
			reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(o.DeepCopyObject()).Elem())
			return nil
		}
	}
	return apierrors.NewNotFound(schema.GroupResource{}, key.Name)
}

func TestReplacedSinceCached(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	g := NewWithT(t)
	// The cache still holds the app's Deployment, since deleted, and cannot see the one of
	// someone else that took its name (it holds only labelled objects). The app exists only
	// in that cache, so that the suite's manager leaves the name alone.
	app := builder.DemoApplication(ns, "replaced", builder.UID("3f0b7c52-9d1e-4a57-8c1e-6b2f4e0a0001"))
	app.ResourceVersion = "1"
	ours := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "replaced", UID: "3f0b7c52-9d1e-4a57-8c1e-6b2f4e0a0002",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(app, paasv1.GroupVersion.WithKind("DemoApplication"))}},
		// The strategy the API server defaults.
		Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}}}
	// Theirs selects the app's pods, so that nothing but the precondition refuses the apply.
	theirs := theirDeployment(ns, "replaced")
	selector := map[string]string{wellknown.LabelName: "replaced", wellknown.LabelApplication: "replaced"}
	theirs.Spec.Selector.MatchLabels, theirs.Spec.Template.Labels = selector, selector
	g.Expect(k8sClient.Create(ctx, theirs)).To(Succeed())

	namespace := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	r := &demoapplication.Reconciler{Client: staleCache{Client: k8sClient, objects: []client.Object{app, ours, namespace}},
		APIReader: k8sClient, Recorder: mgr.GetEventRecorder("stale-cache-test")}
	_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(app)})
	g.Expect(get(g, ns, "replaced", &appsv1.Deployment{}).ResourceVersion).To(Equal(theirs.ResourceVersion),
		"someone else's Deployment was written through a stale cache")
	// A transient failure, retried once the cache caught up: not a refusal of the spec.
	g.Expect(err).To(MatchError(ContainSubstring("was replaced since the cache read it")))
}
