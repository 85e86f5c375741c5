//go:build reliability

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

package reliability

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/framework"
)

// someoneElses is an object named like the i-th DemoApplication that another team owns: a
// Deployment of no pods for even i, a Service for odd i.
func someoneElses(namespace string, i int) client.Object {
	objectMeta := metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("app-%03d", i), Labels: map[string]string{"team": "other"}}
	if i%2 == 0 {
		labels := map[string]string{"app": objectMeta.Name}
		return &appsv1.Deployment{ObjectMeta: objectMeta, Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "other", Image: "registry.invalid/other:1"}}}},
		}}
	}
	return &corev1.Service{ObjectMeta: objectMeta, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}}}
}

// interleaved creates app-000 to app-199 in namespace, a colliding one and a valid one in
// turn, as a burst of bad input among good would come, and returns how long the valid ones,
// app-100 to app-199, took to converge.
func interleaved(t *testing.T, namespace string, n int) time.Duration {
	t.Helper()
	indices := make([]int, 0, 2*n)
	valid := map[string]bool{}
	for i := range n {
		indices = append(indices, i, n+i)
		valid[fmt.Sprintf("app-%03d", n+i)] = true
	}
	start := time.Now()
	createApps(t, namespace, indices)
	NewWithT(t).Eventually(func(g Gomega) {
		list := &paasv1.DemoApplicationList{}
		g.Expect(k8s.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
		waiting := map[string]string{}
		for _, app := range list.Items {
			if why := converged(&app); valid[app.Name] && why != "" {
				waiting[app.Name] = why
			}
		}
		g.Expect(waiting).To(BeEmpty(), "valid DemoApplications not converged")
	}, 5*time.Minute, 250*time.Millisecond).Should(Succeed())
	return time.Since(start)
}

// waitQuiet waits until no namespace is being deleted: the garbage collector deleting a
// test's hundreds of objects loads the controllers whose pace a timing measures.
func waitQuiet(t *testing.T) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		list := &corev1.NamespaceList{}
		g.Expect(k8s.List(context.Background(), list)).To(Succeed())
		var terminating []string
		for _, ns := range list.Items {
			if ns.Status.Phase == corev1.NamespaceTerminating {
				terminating = append(terminating, ns.Name)
			}
		}
		g.Expect(terminating).To(BeEmpty(), "namespaces being deleted")
	}, 5*time.Minute, time.Second).Should(Succeed())
}

// TestConflictsAtVolume creates 100 DemoApplications whose names other teams' objects hold
// interleaved with 100 valid ones: each collision is reported by a ResourceConflict Degraded
// condition and one Warning Event, none of the other teams' objects changes, and the valid
// ones converge within 20 % of the time they take without the collisions: the same 200
// created the same way with every name free, measured before and after (the mean of the two,
// so that a machine growing busier or quieter does not decide).
func TestConflictsAtVolume(t *testing.T) {
	const n = 100
	g := NewWithT(t)
	ctx := context.Background()
	installRelease(t, currentImage)
	waitQuiet(t)
	first := interleaved(t, appNamespace(t, "free-"), n)

	// The other teams' objects take app-000 to app-099's names. Their Deployments are
	// rolled out (kube-controller-manager is done with them) before the clock starts.
	ns := appNamespace(t, "conflicts-")
	held := map[string]client.Object{}
	for i := range n {
		obj := someoneElses(ns, i)
		g.Expect(k8s.Create(ctx, obj, client.FieldOwner("other-team"))).To(Succeed())
		held[obj.GetName()] = obj
	}
	g.Eventually(func(g Gomega) {
		for name, d := range deploymentsOf(g, ns) {
			progressing := slices.IndexFunc(d.Status.Conditions, func(c appsv1.DeploymentCondition) bool {
				return c.Type == appsv1.DeploymentProgressing && c.Reason == "NewReplicaSetAvailable"
			})
			g.Expect(progressing).NotTo(Equal(-1), "other team's Deployment %s rolled out", name)
		}
	}, 2*time.Minute, time.Second).Should(Succeed())
	leader := framework.LeaseHolder(g, cs, operatorNamespace)
	reconcilesBefore := reconcileCount(g, ns, leader)
	start := time.Now()
	valid := interleaved(t, ns, n)
	g.Eventually(func(g Gomega) {
		list := &paasv1.DemoApplicationList{}
		g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		for _, app := range list.Items {
			if _, collides := held[app.Name]; collides {
				degraded := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
				g.Expect(degraded).NotTo(BeNil(), app.Name)
				g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue), app.Name)
				g.Expect(degraded.Reason).To(Equal(paasv1.ReasonResourceConflict), app.Name)
				// Of this spec; status.observedGeneration stays behind, as the spec is not all in place.
				g.Expect(degraded.ObservedGeneration).To(Equal(app.Generation), app.Name)
			}
		}
	}, 5*time.Minute, 250*time.Millisecond).Should(Succeed())
	reported := time.Since(start)
	reconciles := reconcileCount(g, ns, leader) - reconcilesBefore
	waitQuiet(t)
	second := interleaved(t, appNamespace(t, "free-"), n)
	baseline := (first + second) / 2

	// One Warning Event per collision, about that DemoApplication; a repeat of it is a
	// count on the same Event, not another.
	events := &eventsv1.EventList{}
	g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
	warnings := map[string][]string{} // notes by DemoApplication
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning && e.Regarding.Kind == "DemoApplication" {
			g.Expect(e.Reason).To(Equal(paasv1.ReasonResourceConflict), "Warning Event of %s", e.Regarding.Name)
			warnings[e.Regarding.Name] = append(warnings[e.Regarding.Name], e.EventTime.Format(time.StampMilli)+" "+e.Note)
		}
	}
	g.Expect(warnings).To(HaveLen(n), "DemoApplications with a Warning Event")
	for name, notes := range warnings {
		g.Expect(held).To(HaveKey(name), "a Warning Event about a valid DemoApplication")
		g.Expect(notes).To(HaveLen(1), "Warning Events of %s", name)
	}
	// The operator never wrote the other teams' objects: the audit log has no write of its
	// pods to any of them. (Their objects still change: kube-controller-manager writes a
	// Deployment's status and revision.)
	pods := electedPods(t, currentImage, time.Minute)
	operatorPods := make([]string, 0, len(pods))
	for _, p := range pods {
		operatorPods = append(operatorPods, p.Name)
	}
	writes := auditEvents(g, func(e *auditv1.Event) bool {
		if e.ObjectRef == nil || e.ObjectRef.Namespace != ns || !succeeded(e) || !sentBy(e, operatorPods...) {
			return false
		}
		obj, theirs := held[e.ObjectRef.Name]
		if !theirs {
			return false
		}
		_, deployment := obj.(*appsv1.Deployment)
		return deployment && e.ObjectRef.Resource == "deployments" || !deployment && e.ObjectRef.Resource == "services"
	})
	modified := len(writes)
	for _, e := range writes {
		t.Errorf("the operator wrote another team's object: %s", describe(e))
	}
	// What a collision costs: the operator's writes of a colliding DemoApplication's status
	// and Events, beside a valid one's (a lasting conflict is looked at again every
	// conflict-retry-interval, not retried with backoff).
	ownWrites := map[bool]int{} // by whether the app collides
	for _, e := range auditEvents(g, func(e *auditv1.Event) bool {
		return e.ObjectRef != nil && e.ObjectRef.Namespace == ns && succeeded(e) && sentBy(e, operatorPods...) &&
			(e.ObjectRef.Resource == "demoapplications" || e.ObjectRef.Resource == "events")
	}) {
		app, _, _ := strings.Cut(e.ObjectRef.Name, ".") // an Event's name starts with its app's
		_, collides := held[app]
		ownWrites[collides]++
	}
	t.Logf("%d valid DemoApplications converged in %s and %s beside %d others with free names, in %s beside %d colliding ones "+
		"(%+.0f %% of the mean); all collisions reported after %s; %d Warning Events, one each; %d of %d other teams' objects modified; "+
		"%d reconciles of the 200, status and Event writes per app %.1f colliding, %.1f valid",
		n, first.Round(100*time.Millisecond), second.Round(100*time.Millisecond), n, valid.Round(100*time.Millisecond), n,
		100*(valid.Seconds()-baseline.Seconds())/baseline.Seconds(), reported.Round(100*time.Millisecond), len(warnings), modified, n,
		reconciles, float64(ownWrites[true])/n, float64(ownWrites[false])/n)
	g.Expect(valid.Seconds()).To(BeNumerically("<=", 1.2*baseline.Seconds()), "the collisions slowed the valid DemoApplications down")
}
