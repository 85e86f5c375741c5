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

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestPodsCause(t *testing.T) {
	deleting := podWith("web-0", corev1.PodRunning, pullBackOff)
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	for name, tc := range map[string]struct {
		pods          []corev1.Pod
		reason, words string
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
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			got := podsCause(tc.pods)
			if tc.reason == "" {
				g.Expect(got).To(BeNil())
				return
			}
			g.Expect(got).To(Equal(&cause{stalls: true, reason: tc.reason, message: tc.words}))
		})
	}
}

// TestTerminationMessageIsCut checks that a long termination message does not fill the
// app's status.
func TestTerminationMessageIsCut(t *testing.T) {
	status := restarted
	status.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Message: strings.Repeat("x", 10000)}
	got := podsCause([]corev1.Pod{podWith("web-0", corev1.PodRunning, status)})
	NewWithT(t).Expect(len(got.message)).To(BeNumerically("<", 400))
}
