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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestPodCausesReachStatus plays the kubelet, which envtest does not run: a pod of the app
// whose image cannot be pulled, then whose container crash-loops, then runs. The app says
// each cause within seconds, in the pod's words, with one Warning Event per cause, and stops
// saying it once the pod runs: what the app's status reads is the pods' own, watched as
// metadata and read from the API server only while some are not ready.
func TestPodCausesReachStatus(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := builder.DemoApplication(ns, "web")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	var pod *corev1.Pod
	g.Eventually(func(g Gomega) { pod = newAppPod(g, app, "web-6b7f9-aaaaa") }, waitFor, pollEvery).Should(Succeed())
	// And the Deployment controller: one pod, not ready.
	d := get(g, ns, app.Name, &appsv1.Deployment{})
	d.Status.Replicas = 1
	g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())

	// setStatus writes the pod's status as the kubelet would, and waits for the app's Degraded
	// condition to say reason.
	setStatus := func(status corev1.ContainerStatus, reason string) *metav1.Condition {
		t.Helper()
		g.Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			pod.Status.Phase, pod.Status.ContainerStatuses = corev1.PodRunning, []corev1.ContainerStatus{status}
			g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		}, waitFor, pollEvery).Should(Succeed())
		var degraded *metav1.Condition
		g.Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			degraded = meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)
			g.Expect(degraded).To(HaveField("Reason", reason))
		}, 10*time.Second, 50*time.Millisecond).Should(Succeed())
		return degraded
	}

	pull := `Back-off pulling image "registry.invalid/nope:1"`
	degraded := setStatus(corev1.ContainerStatus{Name: "app", Image: "registry.invalid/nope:1",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: pull}}}, paasv1.ReasonImagePullBackOff)
	g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container app: " + pull))
	g.Expect(meta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionStalled)).To(BeTrue())

	// The kubelet retries: the reason alternates with ErrImagePull, the app's does not.
	setStatus(corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason: "ErrImagePull", Message: "dial tcp: lookup registry.invalid: no such host"}}}, paasv1.ReasonImagePullBackOff)
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
		g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded).Message).To(ContainSubstring("no such host"))
	}, 10*time.Second, 50*time.Millisecond).Should(Succeed())

	exited := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}
	degraded = setStatus(corev1.ContainerStatus{Name: "app", RestartCount: 1, LastTerminationState: exited,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}, paasv1.ReasonCrashLoopBackOff)
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container app: restarted 1 times; last exited with code 2 (Error)"))

	setStatus(corev1.ContainerStatus{Name: "app", Ready: true, RestartCount: 1, LastTerminationState: exited,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}, paasv1.ReasonAsExpected)
	g.Expect(meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionStalled)).To(BeNil())

	// One Warning Event per cause, however often the pod changed.
	g.Eventually(func(g Gomega) []string {
		return append(eventNotes(g, ns, app.Name, paasv1.ReasonImagePullBackOff), eventNotes(g, ns, app.Name, paasv1.ReasonCrashLoopBackOff)...)
	}, waitFor, pollEvery).Should(ConsistOf("Pod web-6b7f9-aaaaa, container app: "+pull,
		"Pod web-6b7f9-aaaaa, container app: restarted 1 times; last exited with code 2 (Error)"))
}

// BenchmarkCauseToStatus measures how long a cause takes from where the cluster writes it to
// the app's Degraded condition: on a pod's status (the pod watch as metadata, then a read of
// the app's pods from the API server), in a pod's Event (read again while a pod waits for its
// volumes), beside the Deployment's ReplicaFailure condition (the Deployment watch, read from
// the cache) as the baseline. One operation is one cause.
func BenchmarkCauseToStatus(b *testing.B) {
	g := NewWithT(b)
	ctx := context.Background()
	ns := testenv.NewNamespace(b, k8sClient, "test-")
	app := builder.DemoApplication(ns, "web")
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
	var pod *corev1.Pod
	g.Eventually(func(g Gomega) { pod = newAppPod(g, app, "web-6b7f9-aaaaa") }, waitFor, pollEvery).Should(Succeed())
	d := get(g, ns, app.Name, &appsv1.Deployment{})

	// until polls the app until its Degraded reason is reason, failing past the issue's
	// budget.
	until := func(reason string) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			if c := meta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded); c != nil && c.Reason == reason {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("the app's Degraded reason is not %s after 10s: %v", reason, app.Status.Conditions)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}

	b.Run("pod status", func(b *testing.B) {
		d.Status = appsv1.DeploymentStatus{Replicas: 1}
		g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		causes := map[string]corev1.ContainerStateWaiting{
			paasv1.ReasonImagePullBackOff: {Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.invalid/nope:1"`},
			paasv1.ReasonCrashLoopBackOff: {Reason: "CrashLoopBackOff", Message: "back-off 10s restarting failed container=app"},
		}
		reasons := []string{paasv1.ReasonImagePullBackOff, paasv1.ReasonCrashLoopBackOff}
		i := 0
		for b.Loop() {
			reason := reasons[i%2]
			i++
			waiting := causes[reason]
			pod.Status.Phase = corev1.PodPending
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &waiting}}}
			g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
			until(reason)
		}
	})

	// The kubelet says a volume cannot mount in an Event alone, which no watch sees: the pass
	// reads it again while a pod waits for its volumes.
	b.Run("pod Event", func(b *testing.B) {
		for b.Loop() {
			// Each operation starts from a pod that runs, then waits for its volumes anew.
			b.StopTimer()
			g.Expect(k8sClient.DeleteAllOf(ctx, &corev1.Event{}, client.InNamespace(ns))).To(Succeed())
			for _, state := range []corev1.ContainerState{
				{Running: &corev1.ContainerStateRunning{}}, {Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}},
			} {
				setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodPending,
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: state.Running != nil, State: state}}})
				until(paasv1.ReasonAsExpected)
			}
			b.StartTimer()
			recordPodEvent(g, pod, "", "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "web-config" not found`)
			until(paasv1.ReasonVolumeMountFailed)
		}
	})

	b.Run("baseline: Deployment condition", func(b *testing.B) {
		// Every pod ready: only the Deployment's condition says anything.
		pod.Status.ContainerStatuses = nil
		g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		d.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1}
		g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		until(paasv1.ReasonAsExpected)
		failure := appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: `pods "web-6b7f9-bbbbb" is forbidden: exceeded quota`}
		i := 0
		for b.Loop() {
			reason := []string{paasv1.ReasonFailedCreate, paasv1.ReasonAsExpected}[i%2]
			i++
			d.Status.Conditions = nil
			if reason == paasv1.ReasonFailedCreate {
				d.Status.Conditions = []appsv1.DeploymentCondition{failure}
			}
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
			until(reason)
		}
	})
}

// setDeploymentStatus writes the app's Deployment's status, as its controller would.
func setDeploymentStatus(g Gomega, app *paasv1.DemoApplication, status appsv1.DeploymentStatus) {
	g.Eventually(func(g Gomega) {
		d := get(g, app.Namespace, app.Name, &appsv1.Deployment{})
		d.Status = status
		g.Expect(k8sClient.Status().Update(context.Background(), d)).To(Succeed())
	}, waitFor, pollEvery).Should(Succeed())
}

// recordPodEvent writes an Event about pod's container (none when container is empty) as the
// kubelet's recorder writes it, after the kubelet met it count times.
func recordPodEvent(g Gomega, pod *corev1.Pod, container, reason, message string) {
	ref := corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	if container != "" {
		ref.FieldPath = "spec.containers{" + container + "}"
	}
	now := metav1.Now()
	g.Expect(k8sClient.Create(context.Background(), &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: pod.Namespace, GenerateName: pod.Name + "."},
		InvolvedObject: ref, Reason: reason, Message: message, Type: corev1.EventTypeWarning,
		Source: corev1.EventSource{Component: "kubelet", Host: "node-1"}, FirstTimestamp: now, LastTimestamp: now, Count: 3,
	})).To(Succeed())
}

// TestReadinessFailureReachesStatus: a container that runs and fails its readiness probe keeps
// the app Reconciling, in the probe's words, which the kubelet writes in an Event alone; past
// the Deployment's progress deadline, the app is Degraded for it, with a Warning Event.
func TestReadinessFailureReachesStatus(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	app, pod := podCauseApp(t, g)
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
			Message: "containers with unready status: [app]"}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Started: ptr.To(true), RestartCount: 1,
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}},
			State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(time.Now().Add(-time.Second))}}}}})
	// Restarted once and not yet failing its probe: it may be crash-looping.
	eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonCrashLoopBackOff)

	probe := "Readiness probe failed: HTTP probe failed with statuscode: 503"
	recordPodEvent(g, pod, "app", "Unhealthy", probe)
	reconciling := eventually(g, app, paasv1.ConditionReconciling, metav1.ConditionTrue, paasv1.ReasonReadinessProbeFailed)
	g.Expect(reconciling.Message).To(Equal("Pod web-6b7f9-aaaaa, container app: " + probe))
	g.Expect(app).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	g.Expect(app).To(haveCondition(paasv1.ConditionReady, metav1.ConditionFalse, paasv1.ReasonReadinessProbeFailed))

	setDeploymentStatus(g, app, appsv1.DeploymentStatus{Replicas: 1, Conditions: []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
		Message: `ReplicaSet "web-6b7f9" has timed out progressing.`}}})
	degraded := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonReadinessProbeFailed)
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container app: " + probe))
	g.Expect(app).To(haveCondition(paasv1.ConditionStalled, metav1.ConditionTrue, paasv1.ReasonReadinessProbeFailed))
	g.Eventually(func(g Gomega) []string {
		return eventNotes(g, app.Namespace, app.Name, paasv1.ReasonReadinessProbeFailed)
	}, waitFor, pollEvery).
		Should(ConsistOf("Pod web-6b7f9-aaaaa, container app: " + probe))
}

// TestVolumeMountFailureReachesStatus: a pod waiting in ContainerCreating for a volume that
// cannot mount: the app is Degraded in the kubelet's words, from the pod's Event.
func TestVolumeMountFailureReachesStatus(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	app, pod := podCauseApp(t, g)
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodPending,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionFalse}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}})
	mount := `MountVolume.SetUp failed for volume "config" : configmap "web-config" not found`
	recordPodEvent(g, pod, "", "FailedMount", mount)
	degraded := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonVolumeMountFailed)
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa: " + mount))
	g.Expect(app).To(haveCondition(paasv1.ConditionStalled, metav1.ConditionTrue, paasv1.ReasonVolumeMountFailed))
	g.Eventually(func(g Gomega) []string { return eventNotes(g, app.Namespace, app.Name, paasv1.ReasonVolumeMountFailed) }, waitFor, pollEvery).
		Should(ConsistOf("Pod web-6b7f9-aaaaa: " + mount))
}

// TestOOMKillsReachStatus: a container the kernel keeps killing for its memory is OOMKilled,
// not CrashLoopBackOff; one killed and ready again, which the status never shows, is a
// Warning Event once per kill.
func TestOOMKillsReachStatus(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	app, pod := podCauseApp(t, g)
	oom := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 2,
		LastTerminationState: oom, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=app pod=web-6b7f9-aaaaa"}}}}})
	degraded := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonOOMKilled)
	g.Expect(degraded.Message).To(Equal(
		"Pod web-6b7f9-aaaaa, container app: back-off 20s restarting failed container=app pod=web-6b7f9-aaaaa; last exited with code 137 (OOMKilled)"))

	// Every pod ready again; then killed once more and ready before the Deployment said so.
	readyAfter := func(restarts int32) corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true),
			RestartCount: restarts, LastTerminationState: oom, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
	}
	setPodStatus(g, pod, readyAfter(2))
	setDeploymentStatus(g, app, appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1})
	eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected)
	setPodStatus(g, pod, readyAfter(3))
	killed := func(restarts int) string {
		return fmt.Sprintf("Pod web-6b7f9-aaaaa, container app: killed for exceeding its memory limit "+
			"(restart %d, exited with code 137 (OOMKilled)), and ready again", restarts)
	}
	// The events library counts a second kill of the pod on the first one's Event, as a series.
	kills := func(g Gomega) []eventsv1.Event {
		list := &eventsv1.EventList{}
		g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(app.Namespace))).To(Succeed())
		return slices.DeleteFunc(list.Items, func(e eventsv1.Event) bool { return e.Reason != paasv1.ReasonOOMKilled })
	}
	g.Eventually(kills, 10*time.Second, 50*time.Millisecond).Should(ConsistOf(
		HaveField("Note", degraded.Message),
		And(HaveField("Note", killed(2)), HaveField("Series", HaveField("Count", int32(2))))))

	// Another change of the pod tells no kill twice.
	suite.MergePatch(t, pod, `{"metadata":{"annotations":{"touched":"yes"}}}`)
	g.Consistently(kills, 2*time.Second, 100*time.Millisecond).Should(ConsistOf(
		HaveField("Note", degraded.Message), HaveField("Series", HaveField("Count", int32(2)))))
}

// TestEvictionReachesStatus: an evicted pod, which its ReplicaSet replaces, keeps the app
// Reconciling in the kubelet's words, with a Warning Event once.
func TestEvictionReachesStatus(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	app, pod := podCauseApp(t, g)
	message := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. "
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: message,
		Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "TerminationByKubelet",
			LastTransitionTime: metav1.Now()}}})
	reconciling := eventually(g, app, paasv1.ConditionReconciling, metav1.ConditionTrue, paasv1.ReasonEvicted)
	g.Expect(reconciling.Message).To(Equal("Pod web-6b7f9-aaaaa: " + message))
	g.Expect(app).To(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	notes := func(g Gomega) []string { return eventNotes(g, app.Namespace, app.Name, paasv1.ReasonEvicted) }
	g.Eventually(notes, waitFor, pollEvery).Should(ConsistOf("Pod web-6b7f9-aaaaa: " + message))
	suite.MergePatch(t, pod, `{"metadata":{"annotations":{"touched":"yes"}}}`)
	g.Consistently(notes, 2*time.Second, 100*time.Millisecond).Should(HaveLen(1))
}

// TestForeignPodChangesNothing: a pod that carries the app's label but that the app's
// Deployment does not run, crash-looping and OOM-killed, changes neither the app's status
// nor its Events.
func TestForeignPodChangesNothing(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	app, _ := podCauseApp(t, g)
	d := get(g, app.Namespace, app.Name, &appsv1.Deployment{})
	eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected)
	foreign := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: "intruder", Labels: d.Spec.Template.Labels},
		Spec: d.Spec.Template.Spec}
	g.Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
	oom := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}
	setPodStatus(g, foreign, corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
		LastTerminationState: oom, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}})
	g.Consistently(func(g Gomega) *paasv1.DemoApplication { return get(g, app.Namespace, app.Name, app) }, 3*time.Second, 100*time.Millisecond).
		Should(haveCondition(paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected))
	g.Expect(eventNotes(g, app.Namespace, app.Name, paasv1.ReasonOOMKilled)).To(BeEmpty())
}

// TestHelperContainerFailuresReachStatus plays the kubelet: an init container that keeps
// failing, then, once it completed, a sidecar that crash-loops. The app is Degraded for each,
// naming the pod and the container; a completed init container is not a failure.
func TestHelperContainerFailuresReachStatus(t *testing.T) {
	g := NewWithT(t)
	app, pod := podCauseApp(t, g)
	lastExit := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}

	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodPending,
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "migrate", RestartCount: 3, LastTerminationState: lastExit,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 40s restarting failed container=migrate pod=" + pod.Name}}}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}})
	degraded := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonCrashLoopBackOff)
	g.Expect(degraded.Message).To(Equal("Pod web-6b7f9-aaaaa, container migrate: " +
		"back-off 40s restarting failed container=migrate pod=web-6b7f9-aaaaa; last exited with code 1 (Error)"))

	completed := corev1.ContainerStatus{Name: "migrate",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}
	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodRunning,
		InitContainerStatuses: []corev1.ContainerStatus{
			{Name: "proxy", RestartCount: 2, LastTerminationState: lastExit, State: running, Started: ptr.To(true)}, completed},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true), State: running}}})
	g.Eventually(func(g Gomega) metav1.Condition {
		return condition(get(g, app.Namespace, app.Name, app), paasv1.ConditionDegraded)
	}, 10*time.Second, 50*time.Millisecond).Should(And(HaveField("Reason", paasv1.ReasonCrashLoopBackOff),
		HaveField("Message", "Pod web-6b7f9-aaaaa, container proxy: restarted 2 times; last exited with code 1 (Error)")))

	setPodStatus(g, pod, corev1.PodStatus{Phase: corev1.PodRunning,
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "proxy", Ready: true, Started: ptr.To(true), State: running}, completed},
		ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true), State: running}}})
	eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionFalse, paasv1.ReasonAsExpected)
}
