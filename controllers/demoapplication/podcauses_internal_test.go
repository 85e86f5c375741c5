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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The pods below carry the status the scheduler and the kubelet write, as a real node wrote
// it for the image-pull and crash-loop tests of test/e2e/node.
func pendingPod(name string, conditions ...corev1.PodCondition) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: conditions}}
}

func podWith(name string, phase corev1.PodPhase, statuses ...corev1.ContainerStatus) corev1.Pod {
	pod := pendingPod(name)
	pod.Status.Phase, pod.Status.ContainerStatuses = phase, statuses
	return pod
}

func waiting(reason, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}

var (
	unschedulable = corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}
	pullFailed  = waiting("ErrImagePull", `failed to pull and unpack image "registry.invalid/nope:1": dial tcp: lookup registry.invalid: no such host`)
	pullBackOff = waiting("ImagePullBackOff", `Back-off pulling image "registry.invalid/nope:1"`)
	lastCrash   = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error", Message: "config missing"}}
	crashing    = corev1.ContainerStatus{Name: "app", RestartCount: 2, LastTerminationState: lastCrash, State: waiting(
		"CrashLoopBackOff", "back-off 20s restarting failed container=app pod=web-1").State}
	// Between back-offs, the crashing container runs again, not yet ready.
	restarted = corev1.ContainerStatus{Name: "app", RestartCount: 3, LastTerminationState: lastCrash,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	ready = corev1.ContainerStatus{Name: "app", Ready: true, RestartCount: 1, LastTerminationState: lastCrash,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
)

// now is when the tests' pods are read.
var now = time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)

// podsCause is what observePods finds in pods, before the progress deadline, with no Event.
func podsCause(pods []corev1.Pod) *cause {
	c, _ := (&podsView{pods: pods, now: now}).podsCause()
	return c
}

// runningFor is a container that has run for d, not ready, after restarts.
func runningFor(d time.Duration, restarts int32, last *corev1.ContainerStateTerminated) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: "app", RestartCount: restarts, Started: ptr.To(true),
		LastTerminationState: corev1.ContainerState{Terminated: last},
		State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-d))}}}
}

// kubeletEvent is an Event about pod web-0 as the kubelet writes it, ago before now.
func kubeletEvent(reason, fieldPath, message string, ago time.Duration) corev1.Event {
	return corev1.Event{
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-0", FieldPath: fieldPath},
		Reason:         reason, Message: message, Type: corev1.EventTypeWarning,
		FirstTimestamp: metav1.NewTime(now.Add(-ago - time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-ago)), Count: 4,
	}
}

// notReadyPod is a pod whose container has run for a minute, not ready.
func notReadyPod() corev1.Pod {
	pod := podWith("web-0", corev1.PodRunning, runningFor(time.Minute, 0, nil))
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
		Message: "containers with unready status: [app]"}}
	return pod
}

// unhealthy is the kubelet's Event of a failed probe of container.
func unhealthy(container, message string, ago time.Duration) corev1.Event {
	return kubeletEvent("Unhealthy", "spec.containers{"+container+"}", message, ago)
}

// firstSeen is e as the kubelet writes it the first time, at.
func firstSeen(e corev1.Event, at time.Time) corev1.Event {
	e.FirstTimestamp, e.LastTimestamp, e.Count = metav1.NewTime(at), metav1.NewTime(at), 1
	return e
}

// evicted is a pod the kubelet evicted ago before now.
func evicted(ago time.Duration) corev1.Pod {
	pod := podWith("web-0", corev1.PodFailed)
	pod.Status.Reason, pod.Status.Message = "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. "
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "TerminationByKubelet",
		LastTransitionTime: metav1.NewTime(now.Add(-ago))}}
	return pod
}

var (
	probeFailed = unhealthy("app", "Readiness probe failed: HTTP probe failed with statuscode: 503", 10*time.Second)
	// refused is the probe's failure while the app is not yet listening, which a 503 follows.
	refused     = unhealthy("app", `Readiness probe failed: Get "http://10.0.0.7:8080/ready": dial tcp 10.0.0.7:8080: connect: connection refused`, 10*time.Second)
	mountFailed = kubeletEvent("FailedMount", "", `MountVolume.SetUp failed for volume "config" : configmap "web-config" not found`, 5*time.Second)
	multiAttach = kubeletEvent("FailedAttachVolume", "",
		`Multi-Attach error for volume "pvc-1" Volume is already used by pod(s) web-7f9-zzzzz`, 2*time.Second)
	oom    = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}
	failed = &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}
	// creating is a pod whose container waits for its volumes.
	creating = podWith("web-0", corev1.PodPending, waiting("ContainerCreating", ""))
)

func TestPodsCause(t *testing.T) {
	deleting := podWith("web-0", corev1.PodRunning, pullBackOff)
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	notReady := notReadyPod()
	sandboxReady := creating
	sandboxReady.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue}}
	oomLooping := crashing
	crashWords := "Pod web-1, container app: " + crashing.State.Waiting.Message + "; last exited with code 3 (Error): config missing"
	oomLooping.LastTerminationState.Terminated = oom
	for name, tc := range map[string]struct {
		pods     []corev1.Pod
		events   []corev1.Event
		deadline bool
		reason   string
		words    string
		// passes is set for a cause that may pass by itself.
		passes bool
	}{
		"no pods":        {},
		"ready":          {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, ready)}},
		"being created":  {pods: []corev1.Pod{podWith("web-0", corev1.PodPending, waiting("ContainerCreating", ""))}},
		"not yet placed": {pods: []corev1.Pod{pendingPod("web-0")}},
		"unschedulable": {pods: []corev1.Pod{pendingPod("web-0", unschedulable)},
			reason: paasv1.ReasonUnschedulable, words: "Pod web-0: " + unschedulable.Message},
		"image pull failed": {pods: []corev1.Pod{podWith("web-0", corev1.PodPending, pullFailed)},
			reason: paasv1.ReasonImagePullBackOff, words: "Pod web-0, container app: " + pullFailed.State.Waiting.Message},
		"image pull backing off, the same reason": {pods: []corev1.Pod{podWith("web-0", corev1.PodPending, pullBackOff)},
			reason: paasv1.ReasonImagePullBackOff, words: "Pod web-0, container app: " + pullBackOff.State.Waiting.Message},
		"secret missing": {pods: []corev1.Pod{podWith("web-0", corev1.PodPending, waiting("CreateContainerConfigError", `secret "db" not found`))},
			reason: paasv1.ReasonCreateContainerError, words: `Pod web-0, container app: secret "db" not found`},
		"crash loop backing off": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, crashing)},
			reason: paasv1.ReasonCrashLoopBackOff,
			words:  "Pod web-0, container app: back-off 20s restarting failed container=app pod=web-1; last exited with code 3 (Error): config missing"},
		"crash loop between back-offs": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, restarted)},
			reason: paasv1.ReasonCrashLoopBackOff, words: "Pod web-0, container app: restarted 3 times; last exited with code 3 (Error): config missing"},
		"exited, not yet restarted": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, corev1.ContainerStatus{Name: "app", State: lastCrash})},
			reason: paasv1.ReasonCrashLoopBackOff, words: "Pod web-0, container app: exited with code 3 (Error): config missing"},
		"going":    {pods: []corev1.Pod{deleting}},
		"finished": {pods: []corev1.Pod{podWith("web-0", corev1.PodFailed, pullBackOff)}},
		"the first cause a user meets, in the first pod's words, counting the others": {
			pods: []corev1.Pod{
				podWith("web-3", corev1.PodRunning, crashing), podWith("web-2", corev1.PodPending, pullBackOff),
				podWith("web-1", corev1.PodPending, pullFailed), podWith("web-0", corev1.PodRunning, ready),
			},
			reason: paasv1.ReasonImagePullBackOff, words: "Pod web-1, container app: " + pullFailed.State.Waiting.Message + " (and 1 more pods)"},

		"readiness failing, in the probe's words": {pods: []corev1.Pod{notReady}, events: []corev1.Event{probeFailed},
			reason: paasv1.ReasonReadinessProbeFailed, passes: true, words: "Pod web-0, container app: " + probeFailed.Message},
		"readiness failing past the progress deadline stalls": {pods: []corev1.Pod{notReady}, events: []corev1.Event{probeFailed}, deadline: true,
			reason: paasv1.ReasonReadinessProbeFailed, words: "Pod web-0, container app: " + probeFailed.Message},
		"readiness failing past the deadline, its Event gone: the Ready condition's words": {pods: []corev1.Pod{notReady}, deadline: true,
			reason: paasv1.ReasonReadinessProbeFailed, words: "Pod web-0, container app: containers with unready status: [app]"},
		"running, not yet probed":          {pods: []corev1.Pod{notReady}},
		"running, a liveness probe failed": {pods: []corev1.Pod{notReady}, events: []corev1.Event{unhealthy("app", "Liveness probe failed: EOF", time.Second)}},
		"readiness failing, in the kubelet's latest words": {pods: []corev1.Pod{notReady},
			events: []corev1.Event{probeFailed, unhealthy("app", refused.Message, 20*time.Second)},
			reason: paasv1.ReasonReadinessProbeFailed, passes: true, words: "Pod web-0, container app: " + probeFailed.Message},
		"readiness failing, a 503 in the second of the last refused connection": {pods: []corev1.Pod{notReady},
			events: []corev1.Event{refused, firstSeen(probeFailed, refused.LastTimestamp.Time)},
			reason: paasv1.ReasonReadinessProbeFailed, passes: true, words: "Pod web-0, container app: " + probeFailed.Message},
		"running, another container's probe":   {pods: []corev1.Pod{notReady}, events: []corev1.Event{unhealthy("proxy", probeFailed.Message, time.Second)}},
		"running, the probe of an earlier run": {pods: []corev1.Pod{notReady}, events: []corev1.Event{unhealthy("app", probeFailed.Message, time.Hour)}},
		"restarted once, now only failing readiness": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, runningFor(time.Minute, 1, failed))},
			events: []corev1.Event{probeFailed}, reason: paasv1.ReasonReadinessProbeFailed, passes: true, words: "Pod web-0, container app: " + probeFailed.Message},
		"restarted once, no probe failed since: it crash-loops": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, runningFor(time.Minute, 1, failed))},
			events: []corev1.Event{unhealthy("app", probeFailed.Message, 2*time.Minute)},
			reason: paasv1.ReasonCrashLoopBackOff, words: "Pod web-0, container app: restarted 1 times; last exited with code 3 (Error)"},
		"restarted once, failing readiness, beside a container backing off": {
			pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, runningFor(time.Minute, 1, failed),
				corev1.ContainerStatus{Name: "proxy", RestartCount: 2, LastTerminationState: corev1.ContainerState{Terminated: failed},
					State: waiting("CrashLoopBackOff", "back-off 20s").State})},
			events: []corev1.Event{probeFailed},
			reason: paasv1.ReasonCrashLoopBackOff, words: "Pod web-0, container proxy: back-off 20s; last exited with code 3 (Error)"},
		"restarted long ago, not ready, not yet probed": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, runningFor(time.Hour, 1, failed))}},
		"restarted long ago, failing readiness": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, runningFor(time.Hour, 1, failed))},
			events: []corev1.Event{probeFailed}, reason: paasv1.ReasonReadinessProbeFailed, passes: true, words: "Pod web-0, container app: " + probeFailed.Message},

		"a volume cannot mount": {pods: []corev1.Pod{creating}, events: []corev1.Event{mountFailed},
			reason: paasv1.ReasonVolumeMountFailed, words: "Pod web-0: " + mountFailed.Message},
		"a volume attached elsewhere": {pods: []corev1.Pod{creating}, events: []corev1.Event{mountFailed, multiAttach},
			reason: paasv1.ReasonVolumeMountFailed, words: "Pod web-0: " + multiAttach.Message},
		"volumes mounted, the sandbox made": {pods: []corev1.Pod{sandboxReady}, events: []corev1.Event{mountFailed}},
		"a volume cannot mount, before another pod's crash loop": {
			pods:   []corev1.Pod{podWith("web-1", corev1.PodRunning, crashing), creating},
			events: []corev1.Event{mountFailed}, reason: paasv1.ReasonVolumeMountFailed, words: "Pod web-0: " + mountFailed.Message},
		"creating, then another pod's crash loop": {
			pods:   []corev1.Pod{podWith("web-1", corev1.PodRunning, crashing), creating},
			reason: paasv1.ReasonCrashLoopBackOff, words: crashWords},

		"OOM-killed, backing off": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, oomLooping)},
			reason: paasv1.ReasonOOMKilled,
			words:  "Pod web-0, container app: back-off 20s restarting failed container=app pod=web-1; last exited with code 137 (OOMKilled)"},
		"OOM-killed, between back-offs": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, runningFor(time.Second, 2, oom))},
			reason: paasv1.ReasonOOMKilled, words: "Pod web-0, container app: restarted 2 times; last exited with code 137 (OOMKilled)"},
		"OOM-killed, not yet restarted": {
			pods:   []corev1.Pod{podWith("web-0", corev1.PodRunning, corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Terminated: oom}})},
			reason: paasv1.ReasonOOMKilled, words: "Pod web-0, container app: exited with code 137 (OOMKilled)"},
		"OOM-killed once, ready again": {pods: []corev1.Pod{podWith("web-0", corev1.PodRunning, corev1.ContainerStatus{Name: "app", Ready: true, RestartCount: 1,
			LastTerminationState: corev1.ContainerState{Terminated: oom}, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})}},

		"evicted": {pods: []corev1.Pod{evicted(time.Minute)},
			reason: paasv1.ReasonEvicted, passes: true, words: "Pod web-0: " + evicted(0).Status.Message},
		"evicted long ago": {pods: []corev1.Pod{evicted(time.Hour)}},
		"evicted, and another pod crash-loops": {pods: []corev1.Pod{evicted(time.Minute), podWith("web-1", corev1.PodRunning, crashing)},
			reason: paasv1.ReasonCrashLoopBackOff, words: crashWords},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			view := &podsView{pods: tc.pods, events: tc.events, deadlineExceeded: tc.deadline, now: now}
			got, _ := view.podsCause()
			if tc.reason == "" {
				g.Expect(got).To(BeNil())
				return
			}
			g.Expect(got).To(Equal(&cause{stalls: !tc.passes, reason: tc.reason, message: tc.words}))
		})
	}
}

// TestEventsForOnePod: a pass reads the Events of one pod at most, the first whose Events may
// say what its status cannot, and none when a pod's status says more already.
func TestEventsForOnePod(t *testing.T) {
	g := NewWithT(t)
	probing := podWith("web-1", corev1.PodRunning, runningFor(time.Minute, 0, nil))
	creating2 := podWith("web-2", corev1.PodPending, waiting("ContainerCreating", ""))
	view := &podsView{pods: []corev1.Pod{probing, creating2}, now: now}
	pod, _ := view.eventsFor()
	g.Expect(pod).To(HaveField("Name", "web-2"), "a volume is mounted before a probe runs")
	_, recheck := view.podsCause()
	g.Expect(recheck).To(BeTrue(), "the kubelet may yet say it in an Event")
	view.pods, view.events = []corev1.Pod{notReadyPod()}, []corev1.Event{probeFailed}
	c, recheck := view.podsCause()
	g.Expect(c.reason).To(Equal(paasv1.ReasonReadinessProbeFailed))
	g.Expect(recheck).To(BeTrue(), "a probe that keeps failing changes nothing on the pod: its latest words are in its next Events")
	view.events = nil
	view.pods = []corev1.Pod{probing, creating2}
	view.pods = append(view.pods, podWith("web-0", corev1.PodPending, pullBackOff))
	pod, _ = view.eventsFor()
	g.Expect(pod).To(HaveField("Name", "web-2"))
	view.pods = []corev1.Pod{probing, podWith("web-0", corev1.PodPending, pullBackOff)}
	pod, _ = view.eventsFor()
	g.Expect(pod).To(BeNil(), "an image pull fails before a probe runs")
	_, recheck = view.podsCause()
	g.Expect(recheck).To(BeFalse())
}

// TestPodsNews: a kill for memory that the container recovered from, and an eviction, are
// told once each; a new kill is told again.
func TestPodsNews(t *testing.T) {
	g := NewWithT(t)
	recovered := func(restarts int32) corev1.Pod {
		pod := podWith("web-1", corev1.PodRunning, corev1.ContainerStatus{Name: "app", Ready: true, RestartCount: restarts,
			LastTerminationState: corev1.ContainerState{Terminated: oom}, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
		pod.UID = "uid-1"
		return pod
	}
	gone := evicted(time.Minute)
	gone.UID = "uid-0"
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	read := &podsRead{}
	tell := func(pods ...corev1.Pod) []string {
		told := read.read(key, 7, false, pods, (&podsView{pods: pods, now: now}).news())
		notes := make([]string, 0, len(told))
		for _, n := range told {
			notes = append(notes, n.reason+": "+n.message)
		}
		return notes
	}
	g.Expect(tell(gone, recovered(1))).To(ConsistOf(
		"Evicted: Pod web-0: "+gone.Status.Message,
		"OOMKilled: Pod web-1, container app: killed for exceeding its memory limit (restart 1, exited with code 137 (OOMKilled)), and ready again"))
	g.Expect(tell(gone, recovered(1))).To(BeEmpty(), "told once")
	g.Expect(tell(gone, recovered(2))).To(ConsistOf(ContainSubstring("restart 2")), "a new kill")
	g.Expect(tell(recovered(2))).To(BeEmpty())

	other := types.NamespacedName{Name: "other"}
	g.Expect(read.due(other, 1)).To(BeFalse(), "a first pass since the operator started reads no healthy app's pods")
	g.Expect(read.due(other, 1)).To(BeFalse())
	g.Expect(read.due(other, 2)).To(BeTrue(), "a pod changed")
	read.read(other, 2, true, nil, nil)
	g.Expect(read.due(other, 2)).To(BeTrue(), "the read asked to read again")
	g.Expect(read.due(key, 7)).To(BeFalse())
	read.forget(key)
	g.Expect(read.apps).NotTo(HaveKey(key))
}

// TestTerminationMessageIsCut checks that a long termination message does not fill the
// app's status.
func TestTerminationMessageIsCut(t *testing.T) {
	status := restarted
	status.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Message: strings.Repeat("x", 10000)}
	got := podsCause([]corev1.Pod{podWith("web-0", corev1.PodRunning, status)})
	NewWithT(t).Expect(len(got.message)).To(BeNumerically("<", 400))
}

// TestCompletedInitContainerIsNoCause: an init container that ran to completion is done,
// where a sidecar that exited 0 is restarted: it crashed.
func TestCompletedInitContainerIsNoCause(t *testing.T) {
	g := NewWithT(t)
	done := corev1.ContainerStatus{Name: "migrate", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}
	pod := podWith("web-1", corev1.PodRunning, ready)
	pod.Spec.InitContainers = []corev1.Container{{Name: "migrate"}}
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{done}
	g.Expect(podsCause([]corev1.Pod{pod})).To(BeNil())

	pod.Spec.InitContainers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	c := podsCause([]corev1.Pod{pod})
	g.Expect(c).NotTo(BeNil())
	g.Expect(c.reason).To(Equal(paasv1.ReasonCrashLoopBackOff))
}

// TestClaimPendingCause: a pod the scheduler holds back for an unbound claim takes its cause
// from the claim's Events, the volume binder's words; without them, the scheduler's.
func TestClaimPendingCause(t *testing.T) {
	g := NewWithT(t)
	pod := pendingPod("db-0")
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-db-0"}}}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."}}
	view := &podsView{pods: []corev1.Pod{pod}, now: now}

	got, claims := view.eventsFor()
	g.Expect(got).To(HaveField("Name", "db-0"))
	g.Expect(claims).To(BeTrue(), "the claims' Events say why")
	c, _ := view.podsCause()
	g.Expect(c.reason).To(Equal(paasv1.ReasonUnschedulable), "until they say it, the scheduler's words")

	claimEvent := func(claim, reason, message string) corev1.Event {
		return corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: claim},
			Type: corev1.EventTypeWarning, Reason: reason, Message: message, LastTimestamp: metav1.NewTime(now.Add(-time.Second))}
	}
	view.events = []corev1.Event{
		claimEvent("data-db-1", "ProvisioningFailed", "another pod's claim"),
		claimEvent("data-db-0", "ProvisioningFailed", `storageclass.storage.k8s.io "fast" not found`),
	}
	c, _ = view.podsCause()
	g.Expect(c).To(Equal(&cause{stalls: true, reason: paasv1.ReasonVolumeClaimPending,
		message: `Pod db-0, claim data-db-0: storageclass.storage.k8s.io "fast" not found`}))
}
