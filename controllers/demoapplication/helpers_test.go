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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/health"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The helpers the integration tests of this package share, in one home: reads through the
// suite's client, conditions and the waits for them, Events, and the stand-ins for the
// controllers envtest does not run. A helper one test file alone uses stays in that file.

// waitFor and pollEvery are how long a test waits for the operator to act, and how often it
// looks: reconciles race the tests' own writes on two shared cores.
const (
	waitFor   = 15 * time.Second
	pollEvery = 50 * time.Millisecond
)

// get reads the object of name into obj, through the suite's client, and returns it.
func get[T client.Object](g Gomega, namespace, name string, obj T) T {
	g.Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, obj)).To(Succeed())
	return obj
}

// condition returns app's condition of type t, the zero condition when it has none.
func condition(app *paasv1.DemoApplication, t string) metav1.Condition {
	if c := meta.FindStatusCondition(app.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// haveCondition matches a condition's type, status and reason.
func haveCondition(t string, status metav1.ConditionStatus, reason string) OmegaMatcher {
	return WithTransform(func(app *paasv1.DemoApplication) metav1.Condition {
		c := condition(app, t)
		return metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason}
	}, Equal(metav1.Condition{Type: t, Status: status, Reason: reason}))
}

// expectLeftAlone waits for app to say, Degraded with ResourceConflict, that the kind object of
// its name, theirs, is someone else's; then, once stop makes the app no longer ask for one,
// for the app to be Degraded no more, theirs neither written nor deleted.
func expectLeftAlone(g Gomega, app *paasv1.DemoApplication, kind string, theirs client.Object, stop func(*paasv1.DemoApplication)) {
	g.Eventually(func(g Gomega) {
		got := get(g, app.Namespace, app.Name, &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonResourceConflict))
		g.Expect(condition(got, paasv1.ConditionDegraded).Message).
			To(ContainSubstring(fmt.Sprintf("%s %q already exists and is not the operator's", kind, theirs.GetName())))
	}, waitFor, pollEvery).Should(Succeed())
	update(g, app, stop)
	g.Eventually(func(g Gomega) {
		got := get(g, app.Namespace, app.Name, &paasv1.DemoApplication{})
		g.Expect(got).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	}, waitFor, pollEvery).Should(Succeed())
	current := get(g, theirs.GetNamespace(), theirs.GetName(), theirs.DeepCopyObject().(client.Object))
	g.Expect(current.GetResourceVersion()).To(Equal(theirs.GetResourceVersion()))
}

// update applies change to the latest DemoApplication, retrying on conflicts.
func update(g Gomega, app *paasv1.DemoApplication, change func(*paasv1.DemoApplication)) {
	g.Eventually(func(g Gomega) error {
		latest := get(g, app.Namespace, app.Name, &paasv1.DemoApplication{})
		change(latest)
		return k8sClient.Update(context.Background(), latest)
	}, waitFor, pollEvery).Should(Succeed())
}

// markDeploymentAvailable plays the deployment controller, which envtest does not run.
func markDeploymentAvailable(g Gomega, namespace, name string) {
	d := get(g, namespace, name, &appsv1.Deployment{})
	n := *d.Spec.Replicas
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"},
		},
	}
	g.Expect(k8sClient.Status().Update(context.Background(), d)).To(Succeed())
}

// theirDeployment is a Deployment of someone else's, outside the operator's cache.
func theirDeployment(namespace, name string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"owner": "someone"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "theirs"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "theirs:1"}}},
			},
		},
	}
}

// gone reports whether the object of name is not found.
func gone(namespace, name string, obj client.Object) func() bool {
	return func() bool {
		return apierrors.IsNotFound(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, obj))
	}
}

// eventually waits for the app's condition t to have status and reason, within the issue's
// budget, and returns it.
func eventually(g Gomega, app *paasv1.DemoApplication, t string, status metav1.ConditionStatus, reason string) metav1.Condition {
	g.Eventually(func(g Gomega) *paasv1.DemoApplication {
		return get(g, app.Namespace, app.Name, app)
	}, 10*time.Second, 50*time.Millisecond).Should(haveCondition(t, status, reason))
	return condition(app, t)
}

// podCauseApp creates an app with one pod its Deployment runs, and plays the Deployment
// controller: one pod, not ready.
func podCauseApp(t *testing.T, g Gomega) (*paasv1.DemoApplication, *corev1.Pod) {
	t.Helper()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := builder.DemoApplication(ns, "web")
	g.Expect(k8sClient.Create(context.Background(), app)).To(Succeed())
	var pod *corev1.Pod
	g.Eventually(func(g Gomega) { pod = newAppPod(g, app, "web-6b7f9-aaaaa") }, waitFor, pollEvery).Should(Succeed())
	setDeploymentStatus(g, app, appsv1.DeploymentStatus{Replicas: 1})
	return app, pod
}

// setPodStatus writes pod's status as the kubelet would.
func setPodStatus(g Gomega, pod *corev1.Pod, status corev1.PodStatus) {
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		pod.Status = status
		g.Expect(k8sClient.Status().Update(context.Background(), pod)).To(Succeed())
	}, waitFor, pollEvery).Should(Succeed())
}

// deleteAtEnd deletes app when the test ends: an app in conflict tries its name again at
// intervals, with a write the API server refuses, which later tests' counts would see.
func deleteAtEnd(t *testing.T, app *paasv1.DemoApplication) {
	t.Cleanup(func() {
		if err := k8sClient.Delete(context.Background(), app); client.IgnoreNotFound(err) != nil {
			t.Errorf("deleting %s: %v", app.Name, err)
		}
	})
}

// newAppPod plays the Deployment and ReplicaSet controllers, which envtest does not run: a
// pod of app's Deployment, controlled by the Deployment's ReplicaSet, with the template's
// labels and annotations. The pod labeler, which runs in the suite's manager, gives it its
// pod-name label.
func newAppPod(g Gomega, app *paasv1.DemoApplication, name string) *corev1.Pod {
	d := get(g, app.Namespace, app.Name, &appsv1.Deployment{})
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: d.Name + "-rs", Labels: d.Spec.Template.Labels}}
	_, err := controllerutil.CreateOrUpdate(context.Background(), k8sClient, rs, func() error {
		rs.Spec.Selector, rs.Spec.Template = d.Spec.Selector, d.Spec.Template
		return controllerutil.SetControllerReference(d, rs, k8sClient.Scheme())
	})
	g.Expect(err).NotTo(HaveOccurred())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: app.Namespace, Name: name,
			Labels: d.Spec.Template.Labels, Annotations: d.Spec.Template.Annotations,
		},
		Spec: d.Spec.Template.Spec,
	}
	g.Expect(controllerutil.SetControllerReference(rs, pod, k8sClient.Scheme())).To(Succeed())
	g.Expect(k8sClient.Create(context.Background(), pod)).To(Succeed())
	return pod
}

// eventNotes returns the notes of the events of reason recorded about the named object.
func eventNotes(g Gomega, namespace, name, reason string) []string {
	list := &eventsv1.EventList{}
	g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

// eventCount counts the events of reason recorded about the named object.
func eventCount(g Gomega, namespace, name, reason string) int {
	return len(eventNotes(g, namespace, name, reason))
}

// writesNothing asserts that, converged, the operator writes nothing under prefixes, where it
// wrote the objects: once its last write has landed (quiesced), none follows for two seconds more.
func writesNothing(g Gomega, prefixes ...string) {
	before := suite.Quiesced(g, prefixes...)
	g.Expect(before).To(BeNumerically(">", 0), "the operator's writes under %v", prefixes)
	g.Consistently(func() int { return suite.WritesUnder(prefixes...) }, 2*time.Second).Should(Equal(before), "writes under %v", prefixes)
}

// storedBeforeTheRules stores app, of a group of its own (so that the suite's CRD stays as it
// is), under a copy of the CRD in that group whose v1 schema without has taken rules out of,
// as the CRD was before them, then upgrades that copy to the CRD of today. It returns change,
// which dry-runs an update of the stored app by mutate.
func storedBeforeTheRules(t *testing.T, app *unstructured.Unstructured, without func(schema any)) (change func(mutate func(spec map[string]any)) error) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config/crd/bases/paas.cmft.com_demoapplications.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	crd := &unstructured.Unstructured{}
	group := app.GroupVersionKind().Group
	g.Expect(yaml.Unmarshal([]byte(strings.ReplaceAll(string(data), "paas.cmft.com", group)), &crd.Object)).To(Succeed())
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	current := versions[0].(map[string]any)
	g.Expect(current["name"]).To(Equal("v1"))
	g.Expect(unstructured.SetNestedSlice(crd.Object, []any{current}, "spec", "versions")).To(Succeed())
	upgraded := crd.DeepCopy()
	without(current)
	g.Expect(unstructured.SetNestedSlice(crd.Object, []any{current}, "spec", "versions")).To(Succeed())
	g.Expect(k8sClient.Create(ctx, crd)).To(Succeed())
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), crd) })
	g.Eventually(func() error { return k8sClient.Create(ctx, app.DeepCopy()) }, waitFor, pollEvery).Should(Succeed())

	upgraded.SetResourceVersion("")
	g.Eventually(func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return err
		}
		upgraded.SetResourceVersion(crd.GetResourceVersion())
		return k8sClient.Update(ctx, upgraded.DeepCopy())
	}, waitFor, pollEvery).Should(Succeed())
	return func(mutate func(spec map[string]any)) error {
		stored := app.DeepCopy()
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(app), stored); err != nil {
			return err
		}
		mutate(stored.Object["spec"].(map[string]any))
		return k8sClient.Update(ctx, stored, client.DryRunAll)
	}
}

// withoutRules takes the CEL rules drop matches out of schema.
func withoutRules(schema any, drop func(rule string) bool) {
	eachSchema(schema, func(n map[string]any) {
		if rules, ok := n["x-kubernetes-validations"].([]any); ok {
			n["x-kubernetes-validations"] = slices.DeleteFunc(rules, func(r any) bool { return drop(r.(map[string]any)["rule"].(string)) })
		}
	})
}

// eachSchema calls visit on every object of a schema.
func eachSchema(node any, visit func(map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		visit(n)
		for _, child := range n {
			eachSchema(child, visit)
		}
	case []any:
		for _, child := range n {
			eachSchema(child, visit)
		}
	}
}

// verdicts returns kstatus' and Argo CD's verdicts on app.
func verdicts(g Gomega, app *paasv1.DemoApplication) (kstatus.Status, string) {
	k, err := health.Kstatus(app)
	g.Expect(err).NotTo(HaveOccurred())
	a, err := health.ArgoCDOf(app)
	g.Expect(err).NotTo(HaveOccurred())
	return k, a.Status
}
