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
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The Deployment that runs the app's pods (their template: podtemplate.go). The steps after
// it read what it observed: the autoscaler and the per-pod Services wait for it, and its pods
// are read for why they do not run (pods.go).

// deploymentKind is the app's Deployment, in ownedKinds. The operator never deletes it.
var deploymentKind = owned{
	name:   "Deployment",
	object: func() client.Object { return &appsv1.Deployment{} },
	failed: paasv1.ReasonDeploymentFailed,
	build: func(r *Reconciler, app *paasv1.DemoApplication) runtime.ApplyConfiguration {
		if isStatefulSet(app) {
			return nil
		}
		return newDeployment(app, r.ExtraEnv, r.PodLabels)
	},
	observed: func(s *scope) (bool, bool) { return s.workload != nil, s.workloadKnown },
	reconcile: func(r *Reconciler, ctx context.Context, s *scope) {
		if !isStatefulSet(s.app) {
			r.reconcileDeployment(ctx, s)
			r.observePods(ctx, s)
		}
	},
	extract: extractWith(appsv1ac.ExtractDeployment),
	watch:   changed,
	kept:    true,
}

// newDeployment returns the Deployment that runs app: the fields the operator owns, to
// be server-side applied. extraEnv (OLM's proxy settings) follows the app's own env. With
// per-pod Services on, the pods carry the labeler's annotation (of keys), which opts them
// in to the pod-name label that those Services select.
func newDeployment(app *paasv1.DemoApplication, extraEnv []corev1.EnvVar, keys wellknown.PodLabelKeys) *appsv1ac.DeploymentApplyConfiguration {
	strategy := converted[*appsv1ac.DeploymentStrategyApplyConfiguration](app.Spec.Strategy)
	if ru := strategy; ru != nil && ru.RollingUpdate != nil && ru.RollingUpdate.MaxSurge == nil && ru.RollingUpdate.MaxUnavailable == nil {
		// An empty rollingUpdate is nothing the API server keeps: applied, it would never settle.
		strategy.RollingUpdate = nil
	}
	deployment := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))).
		WithTemplate(podTemplate(app, extraEnv, keys)).
		WithStrategy(strategy)
	// With autoscaling on, the replicas are the autoscaler's: applying them would fight it.
	if app.Spec.Autoscaling == nil {
		deployment.WithReplicas(ptr.Deref(app.Spec.Replica, 1))
	}
	if app.Spec.MinReadySeconds > 0 {
		deployment.WithMinReadySeconds(app.Spec.MinReadySeconds)
	}
	if app.Spec.RevisionHistoryLimit != nil {
		deployment.WithRevisionHistoryLimit(*app.Spec.RevisionHistoryLimit)
	}
	return appsv1ac.Deployment(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(deployment)
}

// withInitialTemplate completes d's pod template as completeTemplate does for an app that has
// no Deployment yet, in a namespace that enforces no Pod Security level: its pods carry
// configHash (none when empty) and the defaults of this operator.
func withInitialTemplate(app *paasv1.DemoApplication, d *appsv1ac.DeploymentApplyConfiguration, configHash string) {
	withConfigHashAnnotation(d.Spec.Template, configHash)
	// With no live Deployment, withDefaults only marks the defaults: it cannot fail.
	_, _ = withDefaults(app, nil, d)
}

// reconcileDeployment applies the desired Deployment and records the one it observed.
func (r *Reconciler) reconcileDeployment(ctx context.Context, s *scope) {
	current := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newDeployment(s.app, r.ExtraEnv, r.PodLabels)
	var done outcome
	// The Deployment as the cache holds it, nil when it holds none, for the writes the apply
	// cannot make.
	live := &appsv1.Deployment{}
	err := r.Get(ctx, client.ObjectKeyFromObject(s.app), live)
	if apierrors.IsNotFound(err) {
		live, err = nil, nil
	} else if err != nil {
		err = fmt.Errorf("getting Deployment %s: %w", klog.KObj(s.app), err)
	}
	if err == nil {
		var was configHashes
		if live != nil {
			was = configHashesOf(s.app, live, &live.Spec.Template)
		}
		err = r.completeTemplate(ctx, s, was, desired.ObjectMetaApplyConfiguration, desired.Spec.Template)
	}
	if err == nil {
		s.defaultsBefore, err = withDefaults(s.app, live, desired)
	}
	if err == nil {
		err = r.replaceStrategy(ctx, s.app, live)
	}
	if err == nil && s.app.Spec.Autoscaling != nil {
		if live == nil {
			// A new workload starts at the autoscaler's minimum, handed over on the next pass.
			desired.Spec.WithReplicas(ptr.Deref(s.app.Spec.Autoscaling.MinReplicas, 1))
		} else {
			err = r.handOverReplicas(ctx, s.app, live, live.Spec.Replicas)
		}
	}
	if err == nil {
		done, err = r.apply(ctx, s.app, current, desired)
		s.note(current, done)
	}
	f := s.fail(paasv1.ReasonDeploymentFailed, err)
	if done != absent {
		s.workload = observeDeployment(current)
	}
	s.workloadKnown = known(done, f)
}

// replaceStrategy writes the Deployment's strategy type, with no rollingUpdate, when it is not
// the one app declares (RollingUpdate unless it says Recreate): applying cannot switch it, as
// the rollingUpdate the API server defaulted is no one's field, and Recreate refuses one; nor
// can it take back a type another writer (or this one's own switch) still holds once the spec
// drops it. The write is guarded by the resourceVersion it was computed from; the apply that
// follows sets the declared bounds, or the API server defaults them.
func (r *Reconciler) replaceStrategy(ctx context.Context, app *paasv1.DemoApplication, d *appsv1.Deployment) error {
	if d == nil || !metav1.IsControlledBy(d, app) {
		return nil
	}
	want := appsv1.RollingUpdateDeploymentStrategyType
	if st := app.Spec.Strategy; st != nil && st.Type != "" {
		want = st.Type
	}
	if d.Spec.Strategy.Type == want {
		return nil
	}
	patched := d.DeepCopy()
	patched.Spec.Strategy = appsv1.DeploymentStrategy{Type: want}
	patch := client.MergeFromWithOptions(d, client.MergeFromWithOptimisticLock{})
	if err := r.Patch(ctx, patched, patch, client.FieldOwner(wellknown.FieldManager)); err != nil {
		return fmt.Errorf("switching Deployment %s to strategy %s: %w", klog.KObj(d), want, err)
	}
	return nil
}

// handOverReplicas keeps the replicas of live, the app's workload as the cache holds it, as
// they are when autoscaling takes them: an apply that stops declaring a field the operator
// alone owns removes it, and the workload would fall back to one pod until the autoscaler
// scales it again. Another manager first applies the same value, and holds it until the
// autoscaler writes its own.
func (r *Reconciler) handOverReplicas(ctx context.Context, app *paasv1.DemoApplication, live client.Object, replicas *int32) error {
	if !metav1.IsControlledBy(live, app) {
		return nil
	}
	owned, err := ownedFields(live)
	if err != nil {
		return fmt.Errorf("reading the fields of %s %s the operator owns: %w", r.kindOf(live), klog.KObj(live), err)
	}
	var fields struct {
		Spec struct {
			Replicas *int32 `json:"replicas"`
		} `json:"spec"`
	}
	convert(owned, &fields)
	if fields.Spec.Replicas == nil {
		return nil
	}
	gvk, err := r.GroupVersionKindFor(live)
	if err != nil {
		return err
	}
	handover := &unstructured.Unstructured{}
	handover.SetGroupVersionKind(gvk)
	handover.SetName(live.GetName())
	handover.SetNamespace(live.GetNamespace())
	handover.SetUID(live.GetUID())
	if err := unstructured.SetNestedField(handover.Object, int64(ptr.Deref(replicas, 1)), "spec", "replicas"); err != nil {
		return err
	}
	if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(handover), client.FieldOwner(ReplicasHandoverManager)); err != nil {
		return fmt.Errorf("handing the replicas of %s %s to its autoscaler: %w", gvk.Kind, klog.KObj(live), err)
	}
	return nil
}

// ReplicasHandoverManager is the field manager that holds a Deployment's replicas between the
// operator letting them go and the autoscaler's first write.
const ReplicasHandoverManager = wellknown.FieldManager + "-replicas-handover"
