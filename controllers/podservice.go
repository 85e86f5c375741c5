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

package controllers

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// podServicesEnabled reports whether app asks for per-pod Services.
func podServicesEnabled(app *paasv1.DemoApplication) bool {
	return app.Spec.PodServices != nil && app.Spec.PodServices.Enabled
}

// newPodService returns the Service that routes to pod alone: it selects the app's pods
// and, among them, the one whose pod-name label (keys.Label) holds pod's name. The pod
// is its controller, so the garbage collector deletes it with the pod.
func newPodService(app *paasv1.DemoApplication, pod metav1.Object, keys PodLabelKeys) *corev1ac.ServiceApplyConfiguration {
	labels := labelsFor(app)
	labels[LabelPodService] = pod.GetName()
	selector := selectorFor(app)
	selector[keys.Label] = pod.GetName()

	serviceType := corev1.ServiceTypeClusterIP
	var names []string
	if ps := app.Spec.PodServices; ps != nil {
		if ps.Type != "" {
			serviceType = ps.Type
		}
		names = ps.Ports
	}
	spec := corev1ac.ServiceSpec().WithType(serviceType).WithSelector(selector)
	for _, p := range app.Spec.Ports {
		// nodePorts are not copied: each is unique in the cluster, already the app's Service's.
		if len(names) == 0 || slices.Contains(names, p.Name) {
			spec.WithPorts(servicePort(p))
		}
	}
	return corev1ac.Service(pod.GetName(), app.Namespace).
		WithLabels(labels).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion("v1").
			WithKind("Pod").
			WithName(pod.GetName()).
			WithUID(pod.GetUID()).
			WithController(true).
			// Not blocking: a pod's foreground deletion need not wait for its Service, and
			// blocking it would take update on pods/finalizers in every namespace, which
			// OwnerReferencesPermissionEnforcement requires for it.
			WithBlockOwnerDeletion(false)).
		WithSpec(spec)
}

// isPodService reports whether svc is a per-pod Service the operator created: one that
// the pod of its name controls.
func isPodService(svc *corev1.Service) bool {
	owner := metav1.GetControllerOf(svc)
	return owner != nil && owner.APIVersion == "v1" && owner.Kind == "Pod" && owner.Name == svc.Name &&
		svc.Labels[LabelPodService] == svc.Name
}
