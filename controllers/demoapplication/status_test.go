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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/health"
)

// deployment is a Deployment of two replicas, at generation 3, with status.
func deployment(status appsv1.DeploymentStatus) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Generation: 3},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)},
		Status:     status,
	}
}

// observed is what a pass observes of d, nil for none.
func observed(d *appsv1.Deployment) *workload {
	if d == nil {
		return nil
	}
	return observeDeployment(d)
}

func available(status corev1.ConditionStatus) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: status, Message: "m"}
}

func TestSetStatus(t *testing.T) {
	stalled := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
		Reason: "ProgressDeadlineExceeded", Message: "stuck"}
	for _, tc := range []struct {
		name       string
		deployment *appsv1.Deployment
		step       string
		err        error
		// pods are the Deployment's pods, as observePods reads them, and events the Events
		// it reads of one of them.
		pods    []corev1.Pod
		events  []corev1.Event
		want    map[string]metav1.ConditionStatus
		reasons map[string]string
		// kstatus is the verdict of cli-utils' kstatus (Flux's health checks) on the app.
		kstatus kstatus.Status
	}{
		{
			name:    "no Deployment yet",
			kstatus: kstatus.InProgressStatus,
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionAvailable: "False", paasv1.ConditionProgressing: "False", paasv1.ConditionDegraded: "False"},
			reasons: map[string]string{paasv1.ConditionAvailable: paasv1.ReasonDeploymentMissing,
				paasv1.ConditionDegraded: paasv1.ReasonAsExpected},
		},
		{
			name:       "rolling out",
			kstatus:    kstatus.InProgressStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 1}),
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionAvailable: "False", paasv1.ConditionProgressing: "True"},
			reasons:    map[string]string{paasv1.ConditionAvailable: paasv1.ReasonReplicasUnavailable, paasv1.ConditionProgressing: paasv1.ReasonRollingOut},
		},
		{
			name:    "rolled out and available",
			kstatus: kstatus.CurrentStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2,
				ReadyReplicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{available(corev1.ConditionTrue)}}),
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionAvailable: "True", paasv1.ConditionProgressing: "False", paasv1.ConditionDegraded: "False"},
			reasons: map[string]string{paasv1.ConditionAvailable: paasv1.ReasonMinimumReplicasAvailable, paasv1.ConditionProgressing: paasv1.ReasonRolloutComplete},
		},
		{
			name:       "the Deployment has not seen its latest spec",
			kstatus:    kstatus.InProgressStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}),
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionProgressing: "True"},
		},
		{
			name:       "stalled rollout",
			kstatus:    kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{stalled}}),
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionProgressing: "False", paasv1.ConditionDegraded: "True"},
			reasons: map[string]string{paasv1.ConditionProgressing: paasv1.ReasonProgressDeadlineExceeded,
				paasv1.ConditionDegraded: paasv1.ReasonProgressDeadlineExceeded},
		},
		{
			name:    "Deployment name taken",
			kstatus: kstatus.FailedStatus,
			step:    paasv1.ReasonDeploymentFailed,
			err:     &conflictError{kind: "Deployment", name: "web", holder: `controlled by no one, written by "kubectl"`},
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionAvailable: "False", paasv1.ConditionProgressing: "False", paasv1.ConditionDegraded: "True"},
			reasons: map[string]string{paasv1.ConditionAvailable: paasv1.ReasonResourceConflict,
				paasv1.ConditionProgressing: paasv1.ReasonResourceConflict, paasv1.ConditionDegraded: paasv1.ReasonResourceConflict},
		},
		{
			name:    "Service name taken",
			kstatus: kstatus.FailedStatus,
			step:    paasv1.ReasonServiceFailed,
			err:     &conflictError{kind: "Service", name: "web"},
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True"},
			reasons: map[string]string{paasv1.ConditionDegraded: paasv1.ReasonResourceConflict},
		},
		{
			name:    "refused as invalid",
			kstatus: kstatus.FailedStatus,
			step:    paasv1.ReasonServiceFailed,
			err: &applyError{kind: "Service",
				err: apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), "web", nil)},
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True"},
			reasons: map[string]string{paasv1.ConditionDegraded: paasv1.ReasonServiceFailed},
		},
		{
			name:    "forbidden",
			kstatus: kstatus.FailedStatus,
			step:    paasv1.ReasonPodServicesFailed,
			err:     apierrors.NewForbidden(corev1.Resource("services"), "web-1", errors.New("exceeded quota")),
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True"},
			reasons: map[string]string{paasv1.ConditionDegraded: paasv1.ReasonPodServicesFailed},
		},
		{
			name:    "pods refused",
			kstatus: kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
				Message: `pods "web-1" is forbidden: violates PodSecurity "restricted:latest"`}}}),
			want: map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True", paasv1.ConditionReady: "False"},
			reasons: map[string]string{paasv1.ConditionDegraded: paasv1.ReasonFailedCreate, paasv1.ConditionStalled: paasv1.ReasonFailedCreate,
				paasv1.ConditionReady: paasv1.ReasonFailedCreate},
		},
		{
			name:       "image cannot be pulled",
			kstatus:    kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2}),
			pods:       []corev1.Pod{podWith("web-0", corev1.PodPending, pullBackOff), podWith("web-1", corev1.PodPending, pullFailed)},
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True", paasv1.ConditionProgressing: "True"},
			reasons: map[string]string{paasv1.ConditionDegraded: paasv1.ReasonImagePullBackOff, paasv1.ConditionStalled: paasv1.ReasonImagePullBackOff,
				paasv1.ConditionReady: paasv1.ReasonImagePullBackOff},
		},
		{
			name:       "crash loop",
			kstatus:    kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}),
			pods:       []corev1.Pod{podWith("web-0", corev1.PodRunning, ready), podWith("web-1", corev1.PodRunning, restarted)},
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True"},
			reasons:    map[string]string{paasv1.ConditionDegraded: paasv1.ReasonCrashLoopBackOff, paasv1.ConditionReady: paasv1.ReasonCrashLoopBackOff},
		},
		{
			name:       "unschedulable",
			kstatus:    kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2}),
			pods:       []corev1.Pod{pendingPod("web-0", unschedulable)},
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True"},
			reasons:    map[string]string{paasv1.ConditionDegraded: paasv1.ReasonUnschedulable},
		},
		{
			name:       "pods starting",
			kstatus:    kstatus.InProgressStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2}),
			pods:       []corev1.Pod{podWith("web-0", corev1.PodPending, waiting("ContainerCreating", "")), pendingPod("web-1")},
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "False", paasv1.ConditionReconciling: "True"},
			reasons:    map[string]string{paasv1.ConditionDegraded: paasv1.ReasonAsExpected},
		},
		{
			name:       "readiness failing",
			kstatus:    kstatus.InProgressStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}),
			pods:       []corev1.Pod{notReadyPod(), podWith("web-1", corev1.PodRunning, ready)},
			events:     []corev1.Event{probeFailed},
			want: map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "False", paasv1.ConditionReconciling: "True",
				paasv1.ConditionReady: "False"},
			reasons: map[string]string{paasv1.ConditionReconciling: paasv1.ReasonReadinessProbeFailed, paasv1.ConditionReady: paasv1.ReasonReadinessProbeFailed},
		},
		{
			name:    "readiness failing past the progress deadline",
			kstatus: kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1,
				Conditions: []appsv1.DeploymentCondition{stalled}}),
			pods:   []corev1.Pod{notReadyPod(), podWith("web-1", corev1.PodRunning, ready)},
			events: []corev1.Event{probeFailed},
			want: map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True",
				paasv1.ConditionProgressing: "False"},
			reasons: map[string]string{paasv1.ConditionDegraded: paasv1.ReasonReadinessProbeFailed, paasv1.ConditionReady: paasv1.ReasonReadinessProbeFailed,
				paasv1.ConditionProgressing: paasv1.ReasonProgressDeadlineExceeded},
		},
		{
			name:       "a volume cannot mount",
			kstatus:    kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2}),
			pods:       []corev1.Pod{creating},
			events:     []corev1.Event{mountFailed},
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True"},
			reasons:    map[string]string{paasv1.ConditionDegraded: paasv1.ReasonVolumeMountFailed, paasv1.ConditionReady: paasv1.ReasonVolumeMountFailed},
		},
		{
			name:       "OOM-killed",
			kstatus:    kstatus.FailedStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}),
			pods:       []corev1.Pod{podWith("web-0", corev1.PodRunning, ready), podWith("web-1", corev1.PodRunning, runningFor(time.Second, 2, oom))},
			want:       map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "True", paasv1.ConditionStalled: "True"},
			reasons:    map[string]string{paasv1.ConditionDegraded: paasv1.ReasonOOMKilled, paasv1.ConditionReady: paasv1.ReasonOOMKilled},
		},
		{
			name:       "evicted",
			kstatus:    kstatus.InProgressStatus,
			deployment: deployment(appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}),
			pods:       []corev1.Pod{evicted(time.Minute), podWith("web-1", corev1.PodRunning, ready)},
			want: map[string]metav1.ConditionStatus{paasv1.ConditionDegraded: "False", paasv1.ConditionReconciling: "True",
				paasv1.ConditionReady: "False"},
			reasons: map[string]string{paasv1.ConditionReconciling: paasv1.ReasonEvicted, paasv1.ConditionReady: paasv1.ReasonEvicted},
		},
		{
			name:    "a transient failure",
			kstatus: kstatus.InProgressStatus,
			step:    paasv1.ReasonDeploymentFailed,
			err:     apierrors.NewTimeoutError("the API server timed out", 1),
			want:    map[string]metav1.ConditionStatus{paasv1.ConditionReconciling: "True", paasv1.ConditionReady: "False"},
			reasons: map[string]string{paasv1.ConditionReconciling: paasv1.ReasonRetrying},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			app := testApp()
			app.Generation = 7
			view := &podsView{pods: tc.pods, events: tc.events, deadlineExceeded: tc.deployment != nil && observeDeployment(tc.deployment).stalled != "", now: now}
			c, _ := view.podsCause()
			s := &scope{app: app, workload: observed(tc.deployment), workloadKnown: true, causes: causes(c)}
			s.fail(tc.step, tc.err)
			setStatus(s)
			for typ, status := range tc.want {
				c := meta.FindStatusCondition(app.Status.Conditions, typ)
				g.Expect(c).NotTo(BeNil(), typ)
				g.Expect(c.Status).To(Equal(status), typ)
				g.Expect(c.ObservedGeneration).To(Equal(int64(7)))
				if reason, ok := tc.reasons[typ]; ok {
					g.Expect(c.Reason).To(Equal(reason), typ)
				}
			}
			g.Expect(app.Status.ObservedGeneration).To(Equal(int64(7)))
			g.Expect(computeKstatus(g, app)).To(Equal(tc.kstatus))
			g.Expect(argoHealth(g, app)).To(Equal(argoVerdicts[tc.kstatus]), "Argo CD's verdict agrees with kstatus'")
			g.Expect(meta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionReady)).To(Equal(tc.kstatus == kstatus.CurrentStatus),
				"Ready is True exactly when kstatus says Current")
		})
	}

	t.Run("lastTransitionTime moves only when a condition flips", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		setStatus(&scope{app: app, workloadKnown: true})
		first := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionAvailable).LastTransitionTime
		app.Status.Conditions[0].LastTransitionTime = metav1.NewTime(first.Add(-3600e9))
		earlier := app.Status.Conditions[0].LastTransitionTime
		setStatus(&scope{app: app, workloadKnown: true})
		g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionAvailable).LastTransitionTime).To(Equal(earlier))
	})

	t.Run("a transient failure leaves unchanged what it kept from being seen, and Degraded, and says it retries", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Generation = 6
		setStatus(&scope{app: app, workload: observed(deployment(appsv1.DeploymentStatus{Replicas: 2})), workloadKnown: true, podServices: ptr.To[int32](2)})
		before := app.Status.DeepCopy()

		app.Generation = 7
		timeout := apierrors.NewTimeoutError("the server was too slow", 1)
		s := &scope{app: app}
		s.fail(paasv1.ReasonDeploymentFailed, timeout)
		setStatus(s)
		for _, typ := range []string{paasv1.ConditionAvailable, paasv1.ConditionProgressing, paasv1.ConditionDegraded} {
			g.Expect(meta.FindStatusCondition(app.Status.Conditions, typ)).To(Equal(meta.FindStatusCondition(before.Conditions, typ)),
				"nothing was seen: %s of generation 6 stands", typ)
		}
		g.Expect(app.Status.Replicas).To(Equal(before.Replicas))
		g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionReconciling)).To(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", paasv1.ReasonRetrying), HaveField("ObservedGeneration", int64(7))))
		g.Expect(computeKstatus(g, app)).To(Equal(kstatus.InProgressStatus))
	})

	t.Run("a persistent failure after a success: Degraded and Stalled for this generation", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Generation = 6
		setStatus(&scope{app: app, workloadKnown: true})
		app.Generation = 7
		forbidden := apierrors.NewForbidden(appsv1.Resource("deployments"), "web", errors.New("RBAC"))
		s := &scope{app: app}
		s.fail(paasv1.ReasonDeploymentFailed, forbidden)
		setStatus(s)
		g.Expect(app.Status.ObservedGeneration).To(Equal(int64(7)))
		g.Expect(computeKstatus(g, app)).To(Equal(kstatus.FailedStatus))
		c := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(paasv1.ReasonDeploymentFailed))
		g.Expect(c.ObservedGeneration).To(Equal(int64(7)))
		g.Expect(c.Message).To(ContainSubstring("forbidden"))
	})
}

// argoVerdicts are Argo CD's health statuses for kstatus' verdicts.
var argoVerdicts = map[kstatus.Status]string{kstatus.CurrentStatus: health.Healthy,
	kstatus.InProgressStatus: health.Progressing, kstatus.FailedStatus: health.Degraded}

// computeKstatus is kstatus' verdict on app.
func computeKstatus(g Gomega, app *paasv1.DemoApplication) kstatus.Status {
	verdict, err := health.Kstatus(app)
	g.Expect(err).NotTo(HaveOccurred())
	return verdict
}

// argoHealth is Argo CD's verdict on app, from the health check the repository ships.
func argoHealth(g Gomega, app *paasv1.DemoApplication) string {
	h, err := health.ArgoCDOf(app)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(h.Message).NotTo(BeEmpty())
	return h.Status
}

func TestKstatusOfANewSpec(t *testing.T) {
	g := NewWithT(t)
	app := testApp()
	app.Generation = 7
	setStatus(&scope{app: app, workloadKnown: true, workload: observed(deployment(appsv1.DeploymentStatus{ObservedGeneration: 3,
		Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		Conditions: []appsv1.DeploymentCondition{available(corev1.ConditionTrue)}}))})
	g.Expect(computeKstatus(g, app)).To(Equal(kstatus.CurrentStatus))
	app.Generation = 8
	g.Expect(computeKstatus(g, app)).To(Equal(kstatus.InProgressStatus), "a spec the operator has not acted on yet")
	g.Expect(argoHealth(g, app)).To(Equal(health.Progressing))
	app.Status = paasv1.DemoApplicationStatus{}
	g.Expect(argoHealth(g, app)).To(Equal(health.Progressing), "an app the operator has not reported on")
}

// TestDegradedSaysWhatWaits: Degraded names, beside whoever holds the app's object, what of
// the app waits for it.
func TestDegradedSaysWhatWaits(t *testing.T) {
	g := NewWithT(t)
	s := &scope{app: &paasv1.DemoApplication{}, workloadKnown: true}
	s.fail(paasv1.ReasonDeploymentFailed, &conflictError{kind: "Deployment", name: "web", holder: "controlled by no one"})
	s.wait(paasv1.ReasonDeploymentFailed, "the HorizontalPodAutoscaler waits for a Deployment of the app's own")
	setStatus(s)
	degraded := meta.FindStatusCondition(s.app.Status.Conditions, paasv1.ConditionDegraded)
	g.Expect(degraded).NotTo(BeNil())
	g.Expect(degraded.Reason).To(Equal(paasv1.ReasonResourceConflict))
	g.Expect(degraded.Message).To(Equal(`Deployment "web" already exists and is not the operator's: it is controlled by no one; ` +
		"the HorizontalPodAutoscaler waits for a Deployment of the app's own"))
}

// causes is the pass's causes when c is its only one, if any.
func causes(c *cause) []*cause {
	if c == nil {
		return nil
	}
	return []*cause{c}
}
