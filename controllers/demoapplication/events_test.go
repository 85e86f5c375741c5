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
	"errors"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// recordingReconciler is a Reconciler whose Events go to the returned recorder, which holds
// up to n; its client only names kinds.
func recordingReconciler(g Gomega, n int) (*Reconciler, *events.FakeRecorder) {
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(paasv1.AddToScheme(scheme)).To(Succeed())
	recorder := events.NewFakeRecorder(n)
	return &Reconciler{Client: fake.NewClientBuilder().WithScheme(scheme).Build(), Recorder: recorder}, recorder
}

// TestRecordEvents checks that what the steps noted in the scope becomes the app's Events,
// and that a transient failure raises none.
func TestRecordEvents(t *testing.T) {
	g := NewWithT(t)
	r, recorder := recordingReconciler(g, 20)

	service := func(name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
	}
	held := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "web-0", errors.New("denied"))
	s := &scope{
		app:          testApp(),
		created:      []client.Object{service("web-1")},
		updated:      []client.Object{service("web")},
		deleted:      []client.Object{service("web-0")},
		misnamedPods: []misnamedPod{{name: "1web", problems: []string{"must start with a letter"}}},
	}
	s.fail(paasv1.ReasonDeploymentFailed, newConflict("Deployment", held))
	s.fail(paasv1.ReasonServiceFailed, &applyError{kind: "Service", name: "web", err: errors.New("exceeded quota")})
	s.fail(paasv1.ReasonPodServicesFailed, forbidden)
	s.fail(paasv1.ReasonPodServicesFailed, errors.New("the server is currently unable to handle the request"))

	r.recordEvents(s)
	close(recorder.Events)
	var got []string
	for e := range recorder.Events {
		got = append(got, e)
	}
	g.Expect(got).To(ConsistOf(
		"Normal Created Created Service web-1",
		"Normal Updated Updated Service web",
		"Normal Deleted Deleted Service web-0",
		"Warning PodServiceNameInvalid Pod 1web gets no Service of its own: its name is not a valid Service name: must start with a letter",
		`Warning ResourceConflict Deployment "web" already exists and is not the operator's: it is controlled by no one; it is left untouched`,
		"Warning ApplyFailed Applying Service web failed: exceeded quota",
		"Warning PodServicesFailed "+forbidden.Error(),
	))
}

// TestRecordTransitions checks that the Warning Event for what keeps pods from running is
// raised by the written status that first says so, not by a pass that finds it said already.
func TestRecordTransitions(t *testing.T) {
	degraded := func(reason, message string) paasv1.DemoApplicationStatus {
		c := metav1.Condition{Type: paasv1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason, Message: message}
		return paasv1.DemoApplicationStatus{Conditions: []metav1.Condition{c}}
	}
	refused := `pods "web-1" is forbidden: violates PodSecurity "restricted:latest"`
	told := []string{"Warning FailedCreate " + refused}
	for name, tc := range map[string]struct {
		before, after paasv1.DemoApplicationStatus
		want          []string
	}{
		"starts":          {before: degraded(paasv1.ReasonAsExpected, ""), after: degraded(paasv1.ReasonFailedCreate, refused), want: told},
		"first pass":      {after: degraded(paasv1.ReasonFailedCreate, refused), want: told},
		"lasts":           {before: degraded(paasv1.ReasonFailedCreate, `pods "web-0" is forbidden`), after: degraded(paasv1.ReasonFailedCreate, refused)},
		"ends":            {before: degraded(paasv1.ReasonFailedCreate, refused), after: degraded(paasv1.ReasonAsExpected, "")},
		"another failure": {before: degraded(paasv1.ReasonAsExpected, ""), after: degraded(paasv1.ReasonServiceFailed, "exceeded quota")},
		"another cause": {before: degraded(paasv1.ReasonFailedCreate, refused), after: degraded(paasv1.ReasonImagePullBackOff, "Back-off pulling image"),
			want: []string{"Warning ImagePullBackOff Back-off pulling image"}},
		"the same cause in another pod": {before: degraded(paasv1.ReasonCrashLoopBackOff, "Pod web-0"), after: degraded(paasv1.ReasonCrashLoopBackOff, "Pod web-1")},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			r, recorder := recordingReconciler(g, 5)
			app := testApp()
			app.Status = tc.after
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
			r.recordTransitions(&scope{app: app, workload: observeDeployment(d)}, &tc.before)
			close(recorder.Events)
			var got []string
			for e := range recorder.Events {
				got = append(got, e)
			}
			g.Expect(got).To(Equal(tc.want))
		})
	}
}

func TestListNote(t *testing.T) {
	if got, want := listNote("Created ", []string{"Deployment shop", "Service shop"}), "Created Deployment shop, Service shop"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A burst of per-pod Services with the longest names: the note must still be accepted.
	created := make([]string, 0, 100)
	for i := range 100 {
		created = append(created, fmt.Sprintf("Service %s-%04d", strings.Repeat("p", 58), i))
	}
	note := listNote("Created ", created)
	if len(note) > noteLimit {
		t.Fatalf("note of %d bytes, more than the API server's %d", len(note), noteLimit)
	}
	var named, more int
	named = strings.Count(note, "Service ")
	if _, err := fmt.Sscanf(note[strings.LastIndex(note, " and ")+5:], "%d more", &more); err != nil || named+more != len(created) {
		t.Errorf("note names %d and counts %d more (%v), of %d: %q", named, more, err, len(created), note)
	}
}
