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
	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// FieldManager is the name under which the operator owns the fields it applies.
const FieldManager = "demo-operator"

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

// labelsFor returns the labels of every object created for app.
func labelsFor(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{
		LabelName:        app.Name,
		LabelApplication: app.Name,
		LabelManagedBy:   ManagedByValue,
	}
}

// selectorFor returns the labels that select app's pods. They are immutable in a
// Deployment, so they hold nothing that could change over the app's life.
func selectorFor(app *paasv1.DemoApplication) map[string]string {
	return map[string]string{
		LabelName:        app.Name,
		LabelApplication: app.Name,
	}
}
