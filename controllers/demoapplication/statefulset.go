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
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// The StatefulSet of an app of workload StatefulSet: pods named <app>-0, <app>-1..., each
// keeping its name and its claims through restarts and rollouts, and the headless Service
// that governs their DNS names (<app>-N.<app>-headless). The operator never deletes the
// StatefulSet, nor the claims: the garbage collector deletes the StatefulSet with the app,
// and the claims as the app's retention policy says.

// statefulSetKind is the app's StatefulSet, in ownedKinds.
var statefulSetKind = owned{
	name:   "StatefulSet",
	object: func() client.Object { return &appsv1.StatefulSet{} },
	failed: paasv1.ReasonStatefulSetFailed,
	build: func(r *Reconciler, app *paasv1.DemoApplication) runtime.ApplyConfiguration {
		if !isStatefulSet(app) {
			return nil
		}
		return newStatefulSet(app, r.ExtraEnv, r.PodLabels)
	},
	observed: func(s *scope) (bool, bool) { return s.workload != nil, s.workloadKnown },
	reconcile: func(r *Reconciler, ctx context.Context, s *scope) {
		if isStatefulSet(s.app) {
			r.reconcileStatefulSet(ctx, s)
			r.observePods(ctx, s)
		}
	},
	extract: extractWith(appsv1ac.ExtractStatefulSet),
	watch:   changed,
	kept:    true,
}

// governingServiceKind is the headless Service of a StatefulSet app, in ownedKinds: it comes
// before the StatefulSet, which names it.
var governingServiceKind = owned{
	name:    "governing Service",
	suffix:  governingServiceSuffix,
	object:  func() client.Object { return &corev1.Service{} },
	failed:  paasv1.ReasonGoverningServiceFailed,
	build:   fromApp(newGoverningService),
	extract: extractWith(corev1ac.ExtractService),
	watch:   changed,
}

// governingServiceSuffix follows the app's name in its governing Service's.
const governingServiceSuffix = "-headless"

// isStatefulSet reports whether a StatefulSet runs app's pods.
func isStatefulSet(app *paasv1.DemoApplication) bool {
	return app.Spec.Workload == paasv1.WorkloadStatefulSet
}

// workloadOf returns the entry of ownedKinds that runs app's pods.
func workloadOf(app *paasv1.DemoApplication) *owned {
	if isStatefulSet(app) {
		return &statefulSetKind
	}
	return &deploymentKind
}

// newGoverningService returns the headless Service that gives each pod of a StatefulSet app
// its DNS name, nil for an app of another workload.
func newGoverningService(app *paasv1.DemoApplication) *corev1ac.ServiceApplyConfiguration {
	if !isStatefulSet(app) {
		return nil
	}
	spec := corev1ac.ServiceSpec().
		WithClusterIP(corev1.ClusterIPNone).
		WithSelector(selectorFor(app))
	for _, p := range app.Spec.Ports {
		spec.WithPorts(servicePort(p))
	}
	return corev1ac.Service(app.Name+governingServiceSuffix, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// newStatefulSet returns the StatefulSet that runs app's pods: the pod template every
// workload runs, each claim template mounted into the app's container (podTemplate), and
// what spec.statefulSet sets.
func newStatefulSet(app *paasv1.DemoApplication, extraEnv []corev1.EnvVar, keys wellknown.PodLabelKeys) *appsv1ac.StatefulSetApplyConfiguration {
	settings := ptr.Deref(app.Spec.StatefulSet, paasv1.StatefulSetSettings{})
	retention := ptr.Deref(settings.PersistentVolumeClaimRetentionPolicy, paasv1.PersistentVolumeClaimRetentionPolicy{})
	spec := appsv1ac.StatefulSetSpec().
		WithServiceName(app.Name + governingServiceSuffix).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))).
		WithTemplate(podTemplate(app, extraEnv, keys)).
		WithPodManagementPolicy(cmp.Or(settings.PodManagementPolicy, appsv1.OrderedReadyPodManagement)).
		WithUpdateStrategy(appsv1ac.StatefulSetUpdateStrategy().
			WithType(appsv1.RollingUpdateStatefulSetStrategyType).
			WithRollingUpdate(appsv1ac.RollingUpdateStatefulSetStrategy().WithPartition(ptr.Deref(settings.Partition, 0)))).
		WithPersistentVolumeClaimRetentionPolicy(appsv1ac.StatefulSetPersistentVolumeClaimRetentionPolicy().
			WithWhenDeleted(cmp.Or(retention.WhenDeleted, appsv1.RetainPersistentVolumeClaimRetentionPolicyType)).
			WithWhenScaled(cmp.Or(retention.WhenScaled, appsv1.RetainPersistentVolumeClaimRetentionPolicyType)))
	for _, c := range settings.VolumeClaimTemplates {
		spec.WithVolumeClaimTemplates(volumeClaimTemplate(c))
	}
	// With autoscaling on, the replicas are the autoscaler's: applying them would fight it.
	if app.Spec.Autoscaling == nil {
		spec.WithReplicas(ptr.Deref(app.Spec.Replica, 1))
	}
	if app.Spec.MinReadySeconds > 0 {
		spec.WithMinReadySeconds(app.Spec.MinReadySeconds)
	}
	if app.Spec.RevisionHistoryLimit != nil {
		spec.WithRevisionHistoryLimit(*app.Spec.RevisionHistoryLimit)
	}
	return appsv1ac.StatefulSet(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		// A StatefulSet has no template built by an earlier operator's defaults to keep.
		WithAnnotations(map[string]string{DefaultsAnnotation: defaultsVersion}).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// volumeClaimTemplate returns the claim each pod makes of c.
func volumeClaimTemplate(c paasv1.VolumeClaimTemplate) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	modes := c.AccessModes
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	spec := corev1ac.PersistentVolumeClaimSpec().
		WithAccessModes(modes...).
		WithResources(corev1ac.VolumeResourceRequirements().
			WithRequests(corev1.ResourceList{corev1.ResourceStorage: c.Size})).
		WithVolumeMode(corev1.PersistentVolumeFilesystem)
	if c.StorageClassName != nil {
		spec.WithStorageClassName(*c.StorageClassName)
	}
	// The templates are one atomic list, which the operator owns whole: it declares the
	// defaults the API server fills in (volumeMode, the status's phase), or every apply would
	// find the stored list otherwise than asked.
	claim := &corev1ac.PersistentVolumeClaimApplyConfiguration{}
	return claim.WithName(c.Name).WithSpec(spec).WithStatus(corev1ac.PersistentVolumeClaimStatus().WithPhase(corev1.ClaimPending))
}

// claimMounts returns the mounts of the volumes app's pods claim, none but for a StatefulSet
// app's.
func claimMounts(app *paasv1.DemoApplication) []*corev1ac.VolumeMountApplyConfiguration {
	var mounts []*corev1ac.VolumeMountApplyConfiguration
	if settings := app.Spec.StatefulSet; settings != nil && isStatefulSet(app) {
		for _, c := range settings.VolumeClaimTemplates {
			mounts = append(mounts, corev1ac.VolumeMount().WithName(c.Name).WithMountPath(c.MountPath))
		}
	}
	return mounts
}

// reconcileStatefulSet applies the app's StatefulSet, its pod template completed from what
// the cluster holds, and records what it observed of it.
func (r *Reconciler) reconcileStatefulSet(ctx context.Context, s *scope) {
	current := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: s.app.Name, Namespace: s.app.Namespace}}
	desired := newStatefulSet(s.app, r.ExtraEnv, r.PodLabels)
	var done outcome
	live := &appsv1.StatefulSet{}
	err := r.Get(ctx, client.ObjectKeyFromObject(s.app), live)
	if apierrors.IsNotFound(err) {
		live, err = nil, nil
	} else if err != nil {
		err = fmt.Errorf("getting StatefulSet %s: %w", klog.KObj(s.app), err)
	}
	if err == nil {
		var was configHashes
		if live != nil {
			was = configHashesOf(s.app, live, &live.Spec.Template)
		}
		err = r.completeTemplate(ctx, s, was, desired.ObjectMetaApplyConfiguration, desired.Spec.Template)
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
	f := s.fail(paasv1.ReasonStatefulSetFailed, err)
	if done != absent {
		s.workload = observeStatefulSet(current)
	}
	s.workloadKnown = known(done, f)
}

// observeStatefulSet returns what the status and the later steps read of st. It has rolled
// out once every pod from the partition up runs the current revision: the pods below it keep
// the one before, as the app asks.
func observeStatefulSet(st *appsv1.StatefulSet) *workload {
	desired := ptr.Deref(st.Spec.Replicas, 1)
	w := &workload{
		object: st,
		kind:   "StatefulSet", failed: paasv1.ReasonStatefulSetFailed,
		desired:  desired,
		replicas: st.Status.Replicas, updated: st.Status.UpdatedReplicas,
		ready: st.Status.ReadyReplicas, available: st.Status.AvailableReplicas,
		observed: st.Status.ObservedGeneration >= st.Generation,
	}
	if ru := st.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil && *ru.Partition > 0 {
		// The pods below the partition count as updated: they run what the app asks of them.
		w.updated = min(desired, w.updated+min(*ru.Partition, desired))
	}
	if w.available >= desired {
		w.availableMessage = fmt.Sprintf("StatefulSet has %d of %d pods available", w.available, desired)
	}
	return w
}
