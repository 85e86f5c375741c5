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
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// podCauses are the reasons of a pod's cause, in the order a user meets them: a pod that is not
// scheduled pulls no image, and a container whose image is missing never crashes.
var podCauses = []string{
	paasv1.ReasonUnschedulable, paasv1.ReasonImagePullBackOff, paasv1.ReasonCreateContainerError, paasv1.ReasonCrashLoopBackOff,
}

// waitingCauses are the kubelet's reasons for a waiting container that last until someone
// acts, by the reason the app reports. Pulls alternate between ErrImagePull and
// ImagePullBackOff: one reason for both, so that the app's does not flap with them.
var waitingCauses = map[string]string{
	"ErrImagePull":               paasv1.ReasonImagePullBackOff,
	"ImagePullBackOff":           paasv1.ReasonImagePullBackOff,
	"InvalidImageName":           paasv1.ReasonImagePullBackOff,
	"ErrImageNeverPull":          paasv1.ReasonImagePullBackOff,
	"CreateContainerConfigError": paasv1.ReasonCreateContainerError,
	"CreateContainerError":       paasv1.ReasonCreateContainerError,
	"RunContainerError":          paasv1.ReasonCreateContainerError,
	"CrashLoopBackOff":           paasv1.ReasonCrashLoopBackOff,
}

// terminationMessageLimit is how much of a container's termination message the app repeats.
const terminationMessageLimit = 256

// podsCause returns what keeps pods from running, the first a user meets of all the pods
// show, in the words of the first pod (by name) that shows it and counting the others; nil
// when nothing does.
func podsCause(pods []corev1.Pod) *cause {
	var first *cause
	alike := 0
	for _, pod := range slices.SortedFunc(slices.Values(pods), func(a, b corev1.Pod) int { return cmp.Compare(a.Name, b.Name) }) {
		c := causeOf(&pod)
		switch {
		case c == nil:
		case first == nil || rank(c) < rank(first):
			first, alike = c, 1
		case c.reason == first.reason:
			alike++
		}
	}
	if alike > 1 {
		first.message += fmt.Sprintf(" (and %d more pods)", alike-1)
	}
	return first
}

func rank(c *cause) int { return slices.Index(podCauses, c.reason) }

// causeOf returns what keeps pod from running, nil when nothing does or the pod is going.
func causeOf(pod *corev1.Pod) *cause {
	if !pod.DeletionTimestamp.IsZero() || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return nil
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return &cause{stalls: true, reason: paasv1.ReasonUnschedulable, message: fmt.Sprintf("Pod %s: %s", pod.Name, c.Message)}
		}
	}
	var first *cause
	for _, status := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		if c := containerCause(pod.Name, status); c != nil && (first == nil || rank(c) < rank(first)) {
			first = c
		}
	}
	return first
}

// containerCause returns what keeps a container of pod from running: the kubelet's reason
// for keeping it waiting, its exit, or, between the back-offs of a crash loop, its restarts.
func containerCause(pod string, status corev1.ContainerStatus) *cause {
	what := fmt.Sprintf("Pod %s, container %s: ", pod, status.Name)
	last := status.LastTerminationState.Terminated
	if w := status.State.Waiting; w != nil {
		reason, ok := waitingCauses[w.Reason]
		if !ok {
			return nil
		}
		what += cmp.Or(w.Message, w.Reason)
		if reason == paasv1.ReasonCrashLoopBackOff && last != nil {
			what += "; last " + exited(last)
		}
		return &cause{stalls: true, reason: reason, message: what}
	}
	// A container of a Deployment's pod that exited is restarted: it crashed, before the
	// kubelet backs off.
	if t := status.State.Terminated; t != nil {
		return &cause{stalls: true, reason: paasv1.ReasonCrashLoopBackOff, message: what + exited(t)}
	}
	// A crashing container runs again between its back-offs: until it is ready, it still
	// crash-loops.
	if status.State.Running != nil && !status.Ready && status.RestartCount > 0 && last != nil {
		return &cause{stalls: true, reason: paasv1.ReasonCrashLoopBackOff,
			message: what + fmt.Sprintf("restarted %d times; last %s", status.RestartCount, exited(last))}
	}
	return nil
}

// exited says how a container ended: its exit code, reason and termination message.
func exited(t *corev1.ContainerStateTerminated) string {
	s := fmt.Sprintf("exited with code %d", t.ExitCode)
	if t.Reason != "" {
		s += " (" + t.Reason + ")"
	}
	if m := t.Message; m != "" {
		if len(m) > terminationMessageLimit {
			m = m[:terminationMessageLimit] + "…"
		}
		s += ": " + m
	}
	return s
}
