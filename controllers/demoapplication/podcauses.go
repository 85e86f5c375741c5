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
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// podCauses are the reasons of a pod's cause, in the order a user meets them: a pod waits for
// its claims to be bound before it is scheduled, a pod that is not scheduled mounts no volume, a pod whose volumes are not mounted pulls no image, a container
// whose image is missing never crashes, and one that crashes is not probed for long. An
// eviction, which its ReplicaSet makes up for, comes last.
var podCauses = []string{
	paasv1.ReasonVolumeClaimPending, paasv1.ReasonUnschedulable, paasv1.ReasonVolumeMountFailed, paasv1.ReasonImagePullBackOff, paasv1.ReasonCreateContainerError,
	paasv1.ReasonOOMKilled, paasv1.ReasonCrashLoopBackOff, paasv1.ReasonReadinessProbeFailed, paasv1.ReasonEvicted,
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

const (
	// terminationMessageLimit is how much of a container's termination message the app repeats.
	terminationMessageLimit = 256
	// crashLoopWindow is how long a restarted container runs before it no longer crash-loops:
	// the kubelet resets a container's back-off once it ran that long.
	crashLoopWindow = 10 * time.Minute
	// evictionWindow is how long an evicted pod, which stays until the pod garbage collector
	// takes it, explains why the app lacks a pod.
	evictionWindow = 5 * time.Minute
	// eventsRecheck is how often the pass reads again the Events of a pod that may be failing
	// its readiness probe or mounting its volumes: the kubelet says so in an Event alone,
	// which changes nothing of the pod that the pod watch would see.
	eventsRecheck = 5 * time.Second
	// oomKilled is the reason of a container the kernel killed for exceeding its memory limit.
	oomKilled = "OOMKilled"
)

// podsView is what a pass read of the app's pods: the pods the app's workload runs, the
// Events eventsFor asks for, whether the Deployment's rollout is past its
// deadline, and when.
type podsView struct {
	pods             []corev1.Pod
	events           []corev1.Event
	deadlineExceeded bool
	now              time.Time
}

// finding is what one pod's status says keeps it from running, and what its Events may
// say instead.
type finding struct {
	pod *corev1.Pod
	// cause is what the status alone says; nil when it says nothing yet.
	cause *cause
	// ask is the reason the pod's Events, or its claims' (ReasonVolumeClaimPending), may show
	// (ReasonVolumeMountFailed, ReasonReadinessProbeFailed) for container, from since on; ""
	// when they tell nothing more.
	ask       string
	container string
	since     time.Time
	// claims are the PersistentVolumeClaims the pod waits for, of ReasonVolumeClaimPending.
	claims []string
}

func (f *finding) rank() int {
	if f.cause != nil {
		return rank(f.cause)
	}
	return slices.Index(podCauses, f.ask)
}

// findings returns what each pod's status says, the first a user meets first, then by pod
// name; pods that show nothing are left out.
func (v *podsView) findings() []finding {
	var fs []finding
	for i := range v.pods {
		if f := v.findingOf(&v.pods[i]); f.cause != nil || f.ask != "" {
			fs = append(fs, f)
		}
	}
	slices.SortStableFunc(fs, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.rank(), b.rank()), cmp.Compare(a.pod.Name, b.pod.Name))
	})
	return fs
}

// eventsFor returns the pod whose Events may tell what keeps the app's pods from running,
// nil when none need reading: only the first pod's, so that a pass reads at most one list.
// claims is set when what tells is the Events of the pod's claims instead.
func (v *podsView) eventsFor() (pod *corev1.Pod, claims bool) {
	if fs := v.findings(); len(fs) > 0 && fs[0].ask != "" {
		return fs[0].pod, fs[0].ask == paasv1.ReasonVolumeClaimPending
	}
	return nil, false
}

// podsCause returns what keeps pods from running, the first a user meets of all the pods
// show, in the words of the first pod (by name) that shows it and counting the others; nil
// when nothing does. recheck is set while the first pod's Events say why: a probe that keeps
// failing, or a volume that keeps failing to mount, changes nothing on the pod, and the
// kubelet's latest words (a 503 after a refused connection) are the ones that matter.
func (v *podsView) podsCause() (first *cause, recheck bool) {
	fs := v.findings()
	if len(fs) == 0 {
		return nil, false
	}
	if fs[0].ask != "" {
		recheck = true
		if c := v.fromEvents(&fs[0]); c != nil {
			fs[0].cause = c
		}
	}
	alike := 0
	for _, f := range fs {
		switch {
		case f.cause == nil:
		case first == nil || rank(f.cause) < rank(first):
			first, alike = f.cause, 1
		case f.cause.reason == first.reason:
			alike++
		}
	}
	if first == nil {
		return nil, recheck
	}
	if alike > 1 {
		first = &cause{reason: first.reason, stalls: first.stalls, message: first.message + fmt.Sprintf(" (and %d more pods)", alike-1)}
	}
	return first, recheck
}

func rank(c *cause) int { return slices.Index(podCauses, c.reason) }

// findingOf returns what pod's status says keeps it from running; nothing when the pod is
// going, or finished but for a recent eviction.
func (v *podsView) findingOf(pod *corev1.Pod) finding {
	f := finding{pod: pod}
	if !pod.DeletionTimestamp.IsZero() || pod.Status.Phase == corev1.PodSucceeded {
		return f
	}
	if pod.Status.Phase == corev1.PodFailed {
		if at := evictedAt(pod); !at.IsZero() && v.now.Sub(at) < evictionWindow {
			f.cause = &cause{reason: paasv1.ReasonEvicted, message: fmt.Sprintf("Pod %s: %s", pod.Name, cmp.Or(pod.Status.Message, pod.Status.Reason))}
		}
		return f
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			f.cause = &cause{stalls: true, reason: paasv1.ReasonUnschedulable, message: fmt.Sprintf("Pod %s: %s", pod.Name, c.Message)}
			// The scheduler says a claim is unbound; the claim's Events say why.
			if f.claims = podClaims(pod); len(f.claims) > 0 {
				f.ask = paasv1.ReasonVolumeClaimPending
			}
			return f
		}
	}
	// A container that runs, not ready, may be failing its readiness probe, which the kubelet
	// says in an Event alone: unless it restarted within the kubelet's back-off window and the
	// probe has not failed since, it does not crash-loop.
	var probed *corev1.ContainerStatus
	fromRunning := false
	inits := pendingInitContainers(pod)
	init := len(inits)
	for i, status := range slices.Concat(inits, pod.Status.ContainerStatuses) {
		running := status.State.Running != nil
		// Of two alike, a container that waits or exited crash-loops for sure.
		if c := containerCause(pod.Name, status, v.now); c != nil &&
			(f.cause == nil || rank(c) < rank(f.cause) || (rank(c) == rank(f.cause) && fromRunning && !running)) {
			f.cause, fromRunning = c, running
			if running {
				probed = &status
			}
		}
		if probed == nil && i >= init && running && !status.Ready && ptr.Deref(status.Started, true) {
			probed = &status
		}
	}
	switch {
	case f.cause != nil && !fromRunning:
	case mounting(pod):
		f.ask = paasv1.ReasonVolumeMountFailed
	case probed != nil:
		f.ask, f.container, f.since = paasv1.ReasonReadinessProbeFailed, probed.Name, probed.State.Running.StartedAt.Time
		if f.cause == nil && v.deadlineExceeded {
			f.cause = &cause{stalls: true, reason: paasv1.ReasonReadinessProbeFailed,
				message: fmt.Sprintf("Pod %s, container %s: %s", pod.Name, probed.Name, notReady(pod))}
		}
	}
	return f
}

// podClaims returns the names of the PersistentVolumeClaims pod's volumes mount.
func podClaims(pod *corev1.Pod) []string {
	var claims []string
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			claims = append(claims, v.PersistentVolumeClaim.ClaimName)
		}
	}
	return claims
}

// pendingInitContainers returns the statuses of pod's init containers but those that ran to
// completion: a sidecar, which the kubelet restarts whatever its exit, never does.
func pendingInitContainers(pod *corev1.Pod) []corev1.ContainerStatus {
	return slices.DeleteFunc(slices.Clone(pod.Status.InitContainerStatuses), func(status corev1.ContainerStatus) bool {
		t := status.State.Terminated
		if t == nil || t.ExitCode != 0 {
			return false
		}
		i := slices.IndexFunc(pod.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == status.Name })
		return i < 0 || ptr.Deref(pod.Spec.InitContainers[i].RestartPolicy, "") != corev1.ContainerRestartPolicyAlways
	})
}

// mounting reports whether pod may be waiting for its volumes: it is pending, a container
// waits to be created, and the kubelet has not yet made its sandbox, which it does once the
// volumes are mounted.
func mounting(pod *corev1.Pod) bool {
	if pod.Status.Phase != corev1.PodPending {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReadyToStartContainers && c.Status == corev1.ConditionTrue {
			return false
		}
	}
	return slices.ContainsFunc(slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses), func(s corev1.ContainerStatus) bool {
		w := s.State.Waiting
		return w != nil && (w.Reason == "ContainerCreating" || w.Reason == "PodInitializing")
	})
}

// notReady is what pod's Ready condition says, for a readiness failure whose Event is gone.
func notReady(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Message != "" {
			return c.Message
		}
	}
	return "not ready"
}

// fromEvents returns the cause f's pod's Events, or its claims', show, as f asks, in the
// words of the kubelet, the attach controller or the volume binder: the latest of them. Nil
// when they show none.
func (v *podsView) fromEvents(f *finding) *cause {
	var latest *corev1.Event
	for i := range v.events {
		e := &v.events[i]
		if f.ask == paasv1.ReasonVolumeClaimPending {
			if e.InvolvedObject.Kind != "PersistentVolumeClaim" || !slices.Contains(f.claims, e.InvolvedObject.Name) ||
				e.Type != corev1.EventTypeWarning || e.Reason != "ProvisioningFailed" && e.Reason != "FailedBinding" {
				continue
			}
		} else if e.InvolvedObject.Name != f.pod.Name || (e.InvolvedObject.UID != "" && f.pod.UID != "" && e.InvolvedObject.UID != f.pod.UID) {
			continue
		}
		switch f.ask {
		case paasv1.ReasonVolumeMountFailed:
			if e.Reason != "FailedMount" && e.Reason != "FailedAttachVolume" {
				continue
			}
		case paasv1.ReasonReadinessProbeFailed:
			if e.Reason != "Unhealthy" || !strings.HasPrefix(e.Message, "Readiness probe") ||
				(e.InvolvedObject.FieldPath != "" && e.InvolvedObject.FieldPath != "spec.containers{"+f.container+"}") ||
				eventTime(e).Before(f.since.Truncate(time.Second)) {
				continue
			}
		}
		if latest == nil || newer(e, latest) {
			latest = e
		}
	}
	switch {
	case latest == nil:
		return nil
	case f.ask == paasv1.ReasonVolumeClaimPending:
		return &cause{stalls: true, reason: f.ask, message: fmt.Sprintf("Pod %s, claim %s: %s", f.pod.Name, latest.InvolvedObject.Name, latest.Message)}
	case f.ask == paasv1.ReasonVolumeMountFailed:
		return &cause{stalls: true, reason: f.ask, message: fmt.Sprintf("Pod %s: %s", f.pod.Name, latest.Message)}
	default:
		return &cause{stalls: v.deadlineExceeded, reason: f.ask, message: fmt.Sprintf("Pod %s, container %s: %s", f.pod.Name, f.container, latest.Message)}
	}
}

// eventTime is when e was last seen, whichever of its fields says it.
func eventTime(e *corev1.Event) time.Time {
	t := e.LastTimestamp.Time
	if s := e.Series; s != nil && s.LastObservedTime.After(t) {
		t = s.LastObservedTime.Time
	}
	if e.EventTime.After(t) {
		t = e.EventTime.Time
	}
	if e.FirstTimestamp.After(t) {
		t = e.FirstTimestamp.Time
	}
	return t
}

// newer reports whether a says what the kubelet saw after b. Legacy Events keep time to the
// second, so a refused connection and the first 503 that followed it may tie: the one that
// began later is the newer.
func newer(a, b *corev1.Event) bool {
	return cmp.Or(eventTime(a).Compare(eventTime(b)), a.FirstTimestamp.Compare(b.FirstTimestamp.Time),
		a.CreationTimestamp.Compare(b.CreationTimestamp.Time)) > 0
}

// evictedAt returns when the kubelet evicted pod; zero when it did not, or does not say when.
func evictedAt(pod *corev1.Pod) time.Time {
	if pod.Status.Reason != "Evicted" {
		return time.Time{}
	}
	var at time.Time
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget || c.Type == corev1.PodReady {
			if c.LastTransitionTime.After(at) {
				at = c.LastTransitionTime.Time
			}
		}
	}
	return at
}

// containerCause returns what keeps a container of pod from running: the kubelet's reason
// for keeping it waiting, its exit, or, between the back-offs of a crash loop, its restarts.
// A container the kernel keeps killing for its memory is OOMKilled rather than crash-looping.
func containerCause(pod string, status corev1.ContainerStatus, now time.Time) *cause {
	what := fmt.Sprintf("Pod %s, container %s: ", pod, status.Name)
	last := status.LastTerminationState.Terminated
	crashed := func(t *corev1.ContainerStateTerminated, message string) *cause {
		reason := paasv1.ReasonCrashLoopBackOff
		if t != nil && t.Reason == oomKilled {
			reason = paasv1.ReasonOOMKilled
		}
		return &cause{stalls: true, reason: reason, message: what + message}
	}
	if w := status.State.Waiting; w != nil {
		reason, ok := waitingCauses[w.Reason]
		switch {
		case !ok:
			return nil
		case reason == paasv1.ReasonCrashLoopBackOff && last != nil:
			return crashed(last, cmp.Or(w.Message, w.Reason)+"; last "+exited(last))
		case reason == paasv1.ReasonCrashLoopBackOff:
			return crashed(nil, cmp.Or(w.Message, w.Reason))
		}
		return &cause{stalls: true, reason: reason, message: what + cmp.Or(w.Message, w.Reason)}
	}
	// A container of a Deployment's pod that exited is restarted: it crashed, before the
	// kubelet backs off.
	if t := status.State.Terminated; t != nil {
		return crashed(t, exited(t))
	}
	// A crashing container runs again between its back-offs: until it is ready, it still
	// crash-loops, within the kubelet's back-off window (findingOf tells it from one that only
	// fails its readiness probe).
	if r := status.State.Running; r != nil && !status.Ready && status.RestartCount > 0 && last != nil &&
		(r.StartedAt.IsZero() || now.Sub(r.StartedAt.Time) < crashLoopWindow) {
		return crashed(last, fmt.Sprintf("restarted %d times; last %s", status.RestartCount, exited(last)))
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

// news is what a pass tells once in a Warning Event, as no condition keeps it: a container
// the kernel killed for its memory that is ready again, a recent eviction. key names it
// among the pod's news, beginning with the pod's UID.
type news struct {
	key, reason, message string
	pod                  *corev1.Pod
}

// news returns what the pods show that no condition keeps.
func (v *podsView) news() []news {
	var ns []news
	for i := range v.pods {
		pod := &v.pods[i]
		if c := v.findingOf(pod).cause; c != nil && c.reason == paasv1.ReasonEvicted {
			ns = append(ns, news{key: string(pod.UID), reason: paasv1.ReasonEvicted, message: c.message, pod: pod})
		}
		for _, status := range pod.Status.ContainerStatuses {
			if last := status.LastTerminationState.Terminated; last != nil && last.Reason == oomKilled && status.Ready {
				ns = append(ns, news{key: fmt.Sprintf("%s/%s/%d", pod.UID, status.Name, status.RestartCount), reason: paasv1.ReasonOOMKilled, pod: pod,
					message: fmt.Sprintf("Pod %s, container %s: killed for exceeding its memory limit (restart %d, %s), and ready again",
						pod.Name, status.Name, status.RestartCount, exited(last))})
			}
		}
	}
	return ns
}

// podsRead remembers, by app, what the operator last read of its pods: their versions in
// the pod cache, so that it reads them again when one changes, and the news it told, so
// that it tells each once. It is lost when the operator restarts, which may tell news once
// more.
type podsRead struct {
	mu   sync.Mutex
	apps map[types.NamespacedName]podsSeen
}

type podsSeen struct {
	// versions digests the pods' UIDs and resourceVersions in the pod cache.
	versions uint64
	told     map[string]bool
	// recheck is set when the read asked to read them again.
	recheck bool
}

// due reports whether app's pods are to be read again: they changed since they were last
// read, or that read asked to read them again. On the first pass of an app since the
// operator started they are not, so that a restart reads no healthy app's pods.
func (p *podsRead) due(app types.NamespacedName, versions uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen, ok := p.apps[app]
	if !ok {
		p.remember(app, podsSeen{versions: versions})
	}
	return ok && (seen.versions != versions || seen.recheck)
}

// read records that app's pods were read at versions and showed ns, and whether to read them
// again; it returns the news not yet told. What was told of pods that are gone is forgotten.
func (p *podsRead) read(app types.NamespacedName, versions uint64, recheck bool, pods []corev1.Pod, ns []news) []news {
	p.mu.Lock()
	defer p.mu.Unlock()
	told := map[string]bool{}
	for key := range p.apps[app].told {
		if slices.ContainsFunc(pods, func(pod corev1.Pod) bool { return strings.HasPrefix(key, string(pod.UID)) }) {
			told[key] = true
		}
	}
	var untold []news
	for _, n := range ns {
		if !told[n.key] {
			untold = append(untold, n)
			told[n.key] = true
		}
	}
	p.remember(app, podsSeen{versions: versions, told: told, recheck: recheck})
	return untold
}

func (p *podsRead) remember(app types.NamespacedName, seen podsSeen) {
	if p.apps == nil {
		p.apps = map[types.NamespacedName]podsSeen{}
	}
	p.apps[app] = seen
}

// forget drops what was read of app's pods, once app is gone.
func (p *podsRead) forget(app types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.apps, app)
}
