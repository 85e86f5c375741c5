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
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReplicaSetCacheTransform is the transform of the operator's ReplicaSet cache, which tells
// whose pods are an app's (Reconciler.runs): of a ReplicaSet its identity and its
// controller, the rest of its metadata dropped. The cache holds them as metadata only.
func ReplicaSetCacheTransform(in any) (any, error) {
	rs, ok := in.(*metav1.PartialObjectMetadata)
	if !ok {
		return in, nil
	}
	m := rs.ObjectMeta
	rs.ObjectMeta = metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}
	if ref := metav1.GetControllerOfNoCopy(&m); ref != nil {
		rs.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	return rs, nil
}

// ConfigCacheTransform is the transform of the operator's ConfigMap and Secret caches, which
// tell when one that an app reads changes (configApps): of each its name and namespace (shared
// by the namespace's objects) and the resourceVersion that says it changed. The cache holds
// them as metadata only, and this drops the rest, annotations included, where kubectl apply
// keeps a copy of the data.
func ConfigCacheTransform(in any) (any, error) {
	obj, ok := in.(*metav1.PartialObjectMetadata)
	if !ok {
		return in, nil
	}
	m := obj.ObjectMeta
	obj.ObjectMeta = metav1.ObjectMeta{Name: m.Name, Namespace: unique.Make(m.Namespace).Value(), ResourceVersion: m.ResourceVersion}
	return obj, nil
}
