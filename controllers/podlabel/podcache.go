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

package podlabel

import (
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// PodCacheTransform returns the transform of the operator's pod cache. The controllers
// cache every pod they may act on, so this cache is the operator's size at scale: it keeps
// of a pod only what they read (identity, deletion, the opt-in annotation, the pod-name
// label and the label naming its DemoApplication) and drops the other labels and
// annotations, owner references and managed fields, most of a pod's metadata. A patch
// computed from such a copy could drop what it lacks: the labeler's names its one label.
//
// What many pods hold alike is held once: the strings of their namespace and kind, the
// annotations of every pod that opts in, and the labels of every pod whose only kept label is
// the pod-name label naming it, kept as {label: wellknown.OwnName}: a map of its own would
// cost a pod more than the rest of its cached metadata (README's Performance). Read the
// pod-name label of a cached pod with wellknown.PodLabel. Sharing is safe because nobody
// writes to a cached object: the cache hands out copies.
func PodCacheTransform(keys wellknown.PodLabelKeys) toolscache.TransformFunc {
	optedIn := map[string]string{keys.Annotation: wellknown.OptIn}
	labelled := map[string]string{keys.Label: wellknown.OwnName}
	return func(in any) (any, error) {
		pod, ok := in.(*metav1.PartialObjectMetadata)
		if !ok {
			return in, nil
		}
		// The shared maps are chosen before any map is made: what the transform allocates and
		// drops is garbage at the rate of the watch, and holes in the heap once collected.
		var annotations map[string]string
		if value, ok := pod.Annotations[keys.Annotation]; ok {
			annotations = optedIn
			if value != wellknown.OptIn {
				annotations = map[string]string{keys.Annotation: value}
			}
		}
		labels := labelled
		// A watch-list's objects come here twice (the reflector's store, then the queue's):
		// a pod already holding wellknown.OwnName keeps it.
		value, ok := wellknown.PodLabel(pod, keys.Label)
		if _, app := pod.Labels[wellknown.LabelApplication]; !ok || value != pod.Name || app {
			labels = only(pod.Labels, keys.Label, wellknown.LabelApplication)
		}
		pod.TypeMeta = metav1.TypeMeta{APIVersion: intern(pod.APIVersion), Kind: intern(pod.Kind)}
		m := pod.ObjectMeta
		pod.ObjectMeta = metav1.ObjectMeta{
			Name:              m.Name,
			Namespace:         intern(m.Namespace),
			UID:               m.UID,
			ResourceVersion:   m.ResourceVersion,
			DeletionTimestamp: m.DeletionTimestamp,
			Labels:            labels,
			Annotations:       annotations,
		}
		return pod, nil
	}
}

// intern returns the one copy of s that all cached pods share.
func intern(s string) string { return unique.Make(s).Value() }

// only returns the entries of m under keys, or nil when there are none.
func only(m map[string]string, keys ...string) map[string]string {
	var kept map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if kept == nil {
				kept = make(map[string]string, len(keys))
			}
			kept[k] = v
		}
	}
	return kept
}
