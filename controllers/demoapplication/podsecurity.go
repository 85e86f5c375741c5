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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// podSecurityEnforceLabel is the namespace label whose value is the Pod Security level the
// API server enforces on the namespace's pods.
const podSecurityEnforceLabel = "pod-security.kubernetes.io/enforce"

// enforcedPodSecurity returns the Pod Security level namespace enforces, empty when none. The
// Namespace is read as metadata, from the cache its watch fills: its labels are all the
// operator reads of it.
func (r *Reconciler) enforcedPodSecurity(ctx context.Context, namespace string) (string, error) {
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if err := r.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return "", fmt.Errorf("reading the Pod Security level of namespace %s: %w", namespace, err)
	}
	return ns.GetLabels()[podSecurityEnforceLabel], nil
}

// namespaceApps maps a namespace to its DemoApplications, whose Deployments take their
// security defaults from its Pod Security level.
func (r *Reconciler) namespaceApps(ctx context.Context, obj client.Object) []reconcile.Request {
	apps := &paasv1.DemoApplicationList{}
	// A namespace the operator does not watch has none it can list.
	if err := r.List(ctx, apps, client.InNamespace(obj.GetName())); err != nil {
		return nil
	}
	requests := make([]reconcile.Request, 0, len(apps.Items))
	for _, app := range apps.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&app)})
	}
	return requests
}

// namespaceLabelsChanged lets through the namespace updates that change its enforced Pod
// Security level, or hand it to applications (the restraint then admits the writes it refused);
// a new namespace has no DemoApplications yet, and a deleted one none left.
func namespaceLabelsChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, after := e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()
			return before[podSecurityEnforceLabel] != after[podSecurityEnforceLabel] ||
				before[wellknown.LabelApplicationsNamespace] != after[wellknown.LabelApplicationsNamespace]
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
