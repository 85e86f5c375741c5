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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// scope is what one reconcile pass of a DemoApplication met: what its steps observed of the
// app's children and what they could not do. Each step writes to it; status, Events and the
// requeue decision read it.
type scope struct {
	app *paasv1.DemoApplication
	// first is set on the app's first pass: the operator has never reported on it, so its
	// status has no condition yet.
	first bool
	// workload is what the pass observed of app's Deployment, nil when it has none.
	// workloadKnown is false when the pass could not tell (reading it failed): status then
	// keeps what it said before.
	workload      *workload
	workloadKnown bool
	// defaultsBefore is set when the Deployment keeps the template an earlier operator
	// built (withDefaults): the app gets this operator's defaults with its next rollout.
	defaultsBefore bool
	// service is app's Service, nil when it has none; serviceKnown as workloadKnown.
	service      *corev1.Service
	serviceKnown bool
	// waiting says, by the step of the object it waits for (paasv1.ReasonDeploymentFailed,
	// ReasonServiceFailed), what is not in place until the app has that object.
	waiting map[string][]string
	// causes are what keeps the app from serving as its spec asks, beyond what its steps
	// could not do, most telling first: its pods' (none when every pod is ready and none was
	// read), its Ingress's, its autoscaler's, in the order of the steps.
	causes []*cause
	// news are what the pass tells once in a Warning Event, as no condition keeps it.
	news []news
	// recheckAfter, when set, is when the pass asks to look again: what it could not yet see
	// changes nothing it watches.
	recheckAfter time.Duration
	// podServices counts the per-pod Services in place; nil when they could not be listed.
	podServices *int32
	// failures are what the steps could not do, in the order they met them.
	failures []failure
	// created, updated and deleted are the objects the pass created, brought back to the
	// spec, and deleted.
	created, updated, deleted []client.Object
	// misnamedPods are the pods that get no per-pod Service: their name is not a valid
	// Service name.
	misnamedPods []misnamedPod
	// unrolledSecrets are the spec's fields that read a Secret whose changes
	// rolloutOnConfigChange asks to roll the pods on, which the operator, without
	// --config-rollout-secrets, does not.
	unrolledSecrets []string
}

// cause is why the app does not serve as its spec asks, in the cluster's words: the reason
// the app reports and a message naming the object that says it. A cause that stalls lasts
// until someone acts (Degraded, Stalled); one that does not may pass by itself (Reconciling).
type cause struct {
	reason, message string
	stalls          bool
}

// firstCause returns the first of the pass's causes that stalls, or that does not; nil when
// there is none.
func (s *scope) firstCause(stalls bool) *cause {
	for _, c := range s.causes {
		if c.stalls == stalls {
			return c
		}
	}
	return nil
}

// recheck asks to look again after at most d, when d is positive.
func (s *scope) recheck(d time.Duration) {
	if d > 0 && (s.recheckAfter == 0 || d < s.recheckAfter) {
		s.recheckAfter = d
	}
}

// misnamedPod is a pod whose name is not a valid Service name, for the reasons problems give.
type misnamedPod struct {
	name     string
	problems []string
}

// failure is one thing a step could not do.
type failure struct {
	// step names the step, as the Degraded condition and the Warning Event give it:
	// paasv1.ReasonDeploymentFailed, ReasonServiceFailed or ReasonPodServicesFailed.
	step string
	err  error
	// conflict is set when the object's name is someone else's.
	conflict *conflictError
	// refused is set when the API server refused to apply the object.
	refused *applyError
	// persistent is set when the failure comes back on its own until someone acts.
	persistent bool
}

// afterRead reports whether f came once the object was read: its name is someone else's,
// or applying it was refused. Any other failure may leave unknown whether it exists.
func (f *failure) afterRead() bool { return f.conflict != nil || f.refused != nil }

// note records what apply or delete did to obj, for the pass's Events.
func (s *scope) note(obj client.Object, o outcome) {
	switch o {
	case created:
		s.created = append(s.created, obj)
	case updated:
		s.updated = append(s.updated, obj)
	case deleted:
		s.deleted = append(s.deleted, obj)
	}
}

// fail records err, if any, as a failure of step and returns it. This is the one place an
// error is examined: what it says goes into the failure's fields.
func (s *scope) fail(step string, err error) *failure {
	if err == nil {
		return nil
	}
	f := failure{step: step, err: err, persistent: persistent(err)}
	switch e := err.(type) {
	case *conflictError:
		f.conflict, f.persistent = e, true
	case *applyError:
		f.refused = e
	}
	s.failures = append(s.failures, f)
	return &s.failures[len(s.failures)-1]
}

// wait records that what (a sentence) is not in place until the object of step is the app's.
func (s *scope) wait(step, what string) {
	if s.waiting == nil {
		s.waiting = map[string][]string{}
	}
	s.waiting[step] = append(s.waiting[step], what)
}

// conflictOf returns the conflict that kept step from its object, if any.
func (s *scope) conflictOf(step string) *conflictError {
	for _, f := range s.failures {
		if f.step == step && f.conflict != nil {
			return f.conflict
		}
	}
	return nil
}

// err joins the failures' errors; nil when there are none.
func (s *scope) err() error {
	errs := make([]error, 0, len(s.failures))
	for _, f := range s.failures {
		errs = append(errs, f.err)
	}
	return errors.Join(errs...)
}

// persistent reports whether err will come back on its own until someone acts: a request
// the API server refused (forbidden by RBAC, a quota or an admission webhook or policy;
// invalid). Anything else (a timeout, throttling, an API server unavailable, a stale read)
// is transient and retried.
func persistent(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) ||
		apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsRequestEntityTooLargeError(err) || apierrors.IsMethodNotSupported(err)
}
