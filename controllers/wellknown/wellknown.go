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

// Package wellknown holds the names both controllers, the manager's caches and users rely on:
// the labels that mark what the operator manages, the field manager it applies as, and the
// pod labeler's keys, which the DemoApplication controller's per-pod Services rely on too.
package wellknown

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Labels the operator puts on what it creates for a DemoApplication.
const (
	// LabelManagedBy marks the objects the operator manages; its caches hold only those.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// LabelName is the recommended application-name label.
	LabelName = "app.kubernetes.io/name"
	// LabelApplication names the DemoApplication a pod belongs to, so that selectors
	// never match another workload's pods.
	LabelApplication = "paas.cmft.com/demoapplication"
	// LabelPodService marks a per-pod Service; its value is the name of the pod it selects.
	LabelPodService = "paas.cmft.com/pod-service"
	// ManagedByValue is LabelManagedBy's value.
	ManagedByValue = "demo-operator"
)

// The label by which the platform hands a namespace to applications: the operator's restraint
// (config/restraint) lets it write an app's objects only in namespaces that carry it.
const (
	LabelApplicationsNamespace = "paas.cmft.com/applications"
	ApplicationsEnabled        = "enabled"
)

// FieldManager is the name under which the operator owns the fields it applies.
const FieldManager = "demo-operator"

// Default keys of the pod labeler.
const (
	// DefaultPodLabelAnnotation is the annotation that opts a pod in, with the value "true".
	DefaultPodLabelAnnotation = "padok.fr/add-pod-name-label"
	// DefaultPodNameLabel is the label that carries the pod's own name.
	DefaultPodNameLabel = "padok.fr/pod-name"
	// OptIn is the value of the annotation that opts a pod in.
	OptIn = "true"
)

// PodLabelKeys are the pod labeler's keys. The DemoApplication controller's per-pod
// Services rely on them too: its pods opt in through Annotation, its Services select Label.
type PodLabelKeys struct {
	// Annotation opts a pod in, with the value "true".
	Annotation string
	// Label carries the pod's own name.
	Label string
}

// DefaultPodLabelKeys are the keys the labeler uses unless told otherwise.
var DefaultPodLabelKeys = PodLabelKeys{Annotation: DefaultPodLabelAnnotation, Label: DefaultPodNameLabel}

// OwnName stands, in the pod cache, for a label value that is the pod's own name. It is not a
// valid label value, so no pod can carry it.
const OwnName = "(the pod's name)"

// PodLabel returns the value of pod's label key, and whether it has one, as the API server
// holds it, for a pod from the pod cache as for any other.
func PodLabel(pod metav1.Object, key string) (string, bool) {
	value, ok := pod.GetLabels()[key]
	if value == OwnName {
		value = pod.GetName()
	}
	return value, ok
}
