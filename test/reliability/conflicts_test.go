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
)

// someoneElses is an object named like the i-th DemoApplication that another team owns: a
// Deployment of no pods for even i, a Service for odd i.
func someoneElses(namespace string, i int) client.Object {
	meta := metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("app-%03d", i), Labels: map[string]string{"team": "other"}}
	if i%2 == 0 {
		labels := map[string]string{"app": meta.Name}
		return &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "other", Image: "registry.invalid/other:1"}}}},
		}}
	}
	return &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}}}
}

// TestConflictsAtVolume creates 100 DemoApplications whose names other teams' objects hold
// and 100 valid ones at once: each collision is reported by a ResourceConflict Degraded
// condition and one Warning Event, none of the other teams' objects changes, and the valid
// ones converge in the time 100 alone take (measured first, in this run).
func TestConflictsAtVolume(t *testing.T) {
	const n = 100
	g := NewWithT(t)
	ctx := context.Background()
	installRelease(t, currentImage)

	alone := appNamespace(t, "valid-")
	start := time.Now()
	createApps(t, alone, span(n, n))
	waitConverged(t, alone, n, 5*time.Minute)
	baseline := time.Since(start)

	// Valid ones are app-100 to app-199, next to the colliding app-000 to app-099.
	ns := appNamespace(t, "conflicts-")
	held := map[string]client.Object{}
	for i := range n {
		obj := someoneElses(ns, i)
		g.Expect(k8s.Create(ctx, obj, client.FieldOwner("other-team"))).To(Succeed())
		held[obj.GetName()] = obj
	}
	start = time.Now()
	// Interleaved, as a burst of bad input among good would come.
	var mixed []int
	for i := range n {
		mixed = append(mixed, i, n+i)
	}
	createApps(t, ns, mixed)
	var valid time.Duration
	g.Eventually(func(g Gomega) {
		list := &paasv1.DemoApplicationList{}
		g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		waiting := 0
		for _, app := range list.Items {
			if _, collides := held[app.Name]; !collides && converged(&app) != "" {
				waiting++
			}
		}
		g.Expect(waiting).To(BeZero(), "valid DemoApplications not converged")
		if valid == 0 {
			valid = time.Since(start)
		}
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
	var operatorPods []string
	for _, p := range managerPods(t, currentImage, time.Minute) {
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
	t.Logf("%d valid DemoApplications converged in %s alone, in %s beside %d colliding ones (%+.0f %%); "+
		"all collisions reported after %s; %d Warning Events, one each; %d of %d other teams' objects modified",
		n, baseline.Round(100*time.Millisecond), valid.Round(100*time.Millisecond), n,
		100*(valid.Seconds()-baseline.Seconds())/baseline.Seconds(), reported.Round(100*time.Millisecond), len(warnings), modified, n)
	g.Expect(valid.Seconds()).To(BeNumerically("<=", 1.2*baseline.Seconds()), "the collisions slowed the valid DemoApplications down")
}
