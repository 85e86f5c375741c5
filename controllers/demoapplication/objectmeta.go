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
	corev1 "k8s.io/api/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// What every object a DemoApplication declares shares: its labels, its selector of the app's
// pods and its owner. Each kind's builder (deployment.go, service.go, ...) is a pure function
// of the app and explicit inputs, returning the fields the operator owns, to be server-side
// applied; tests use the same builders as the expected values.

// labelsFor returns the labels of every object created for app.
func labelsFor(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{
		wellknown.LabelName:        app.Name,
		wellknown.LabelApplication: app.Name,
		wellknown.LabelManagedBy:   wellknown.ManagedByValue,
	}
}

// selectorFor returns the labels that select app's pods. They are immutable in a
// Deployment, so they hold nothing that could change over the app's life.
func selectorFor(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{
		wellknown.LabelName:        app.Name,
		wellknown.LabelApplication: app.Name,
	}
}

// labelValues returns m with plain string values, as a Kubernetes object's labels hold them.
func labelValues(m map[string]paasv1.LabelValue) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// ownerReference makes app the controller of an object, so that the garbage collector
// deletes the object with app.
func ownerReference(app *paasv1.DemoApplication) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(paasv1.GroupVersion.String()).
		WithKind("DemoApplication").
		WithName(app.Name).
		WithUID(app.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// protocolOf returns p's protocol, TCP when unset (the API server defaults it, but a
// builder may see an object that never went through it).
func protocolOf(p paasv1.DemoApplicationPort) corev1.Protocol {
	if p.Protocol == "" {
		return corev1.ProtocolTCP
	}
	return p.Protocol
}
