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
	"sync"
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// PodCacheTransform returns the transform of the operator's pod cache. The controllers
// cache every pod they may act on, so this cache is the operator's size at scale: it keeps
// of a pod only what they read (identity, deletion, whether it opts in, the pod-name label,
// and of a DemoApplication's pod the label naming the app and its controller reference)
// and drops the other labels and annotations, owner references and managed fields, most of
// a pod's metadata. The opt-in annotation is kept only when it opts in: any other value
// means what no annotation does, and whoever may annotate a pod could make it as large as
// the API server admits, for every pod of the cluster. A patch computed from such a copy could drop what it
// lacks: the labeler's names its one label.
//
// What many pods hold alike is held once: the strings of their namespace and kind, the
// annotations of every pod that opts in, the labels of every pod whose kept labels are the
// pod-name label naming it and the label of its app, kept as {label: wellknown.OwnName}, and
// the controller reference of an app's pods: a map or slice of its own would cost a pod more
// than the rest of its cached metadata (bench/README.md). Read the pod-name label of a
// cached pod with wellknown.PodLabel. Sharing is safe because nobody writes to a cached
// object: the cache hands out copies.
func PodCacheTransform(keys wellknown.PodLabelKeys) toolscache.TransformFunc {
	optedIn := map[string]string{keys.Annotation: wellknown.OptIn}
	shared := newSharedMeta(keys.Label)
	return func(in any) (any, error) {
		pod, ok := in.(*metav1.PartialObjectMetadata)
		if !ok {
			return in, nil
		}
		// The shared maps are chosen before any map is made: what the transform allocates and
		// drops is garbage at the rate of the watch, and holes in the heap once collected.
		var annotations map[string]string
		if pod.Annotations[keys.Annotation] == wellknown.OptIn {
			annotations = optedIn
		}
		labels, owners := shared.of(pod)
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
			OwnerReferences:   owners,
		}
		return pod, nil
	}
}

// maxShared bounds what sharedMeta holds: the names of apps and ReplicaSets long deleted
// would otherwise stay for the life of the process.
const maxShared = 1 << 14

// sharedMeta holds the labels and controller references that cached pods share. Full, it
// forgets them all: cached pods keep theirs, and the next pods share new ones.
type sharedMeta struct {
	label    string
	labelled map[string]string // of a pod labelled with its own name, in no app

	mu          sync.Mutex
	appLabels   map[appLabels]map[string]string
	controllers map[types.UID][]metav1.OwnerReference
}

// appLabels are the labels kept of an app's pod: the app's name, and whether the pod is
// labelled with its own name.
type appLabels struct {
	app      string
	labelled bool
}

func newSharedMeta(label string) *sharedMeta {
	s := &sharedMeta{label: label, labelled: map[string]string{label: wellknown.OwnName}}
	s.reset()
	return s
}

func (s *sharedMeta) reset() {
	s.appLabels = map[appLabels]map[string]string{}
	s.controllers = map[types.UID][]metav1.OwnerReference{}
}

// of returns the labels and owner references the cache keeps of pod, shared where pods hold
// them alike.
func (s *sharedMeta) of(pod *metav1.PartialObjectMetadata) (map[string]string, []metav1.OwnerReference) {
	// A watch-list's objects come here twice (the reflector's store, then the queue's): a pod
	// already holding wellknown.OwnName keeps it.
	value, labelled := wellknown.PodLabel(pod, s.label)
	app, inApp := pod.Labels[wellknown.LabelApplication]
	switch {
	case labelled && value != pod.Name:
		var owners []metav1.OwnerReference
		if inApp {
			owners = s.controllerOf(pod)
		}
		return only(pod.Labels, s.label, wellknown.LabelApplication), owners
	case inApp:
		return s.labelsOf(appLabels{app: app, labelled: labelled}), s.controllerOf(pod)
	case labelled:
		return s.labelled, nil
	}
	return nil, nil
}

func (s *sharedMeta) labelsOf(key appLabels) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if labels, ok := s.appLabels[key]; ok {
		return labels
	}
	s.makeRoom()
	labels := map[string]string{wellknown.LabelApplication: intern(key.app)}
	if key.labelled {
		labels[s.label] = wellknown.OwnName
	}
	s.appLabels[key] = labels
	return labels
}

// controllerOf returns pod's controller reference alone, or none; an owner's UID names it
// for good.
func (s *sharedMeta) controllerOf(pod *metav1.PartialObjectMetadata) []metav1.OwnerReference {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if owners, ok := s.controllers[ref.UID]; ok {
		return owners
	}
	s.makeRoom()
	owners := []metav1.OwnerReference{{APIVersion: intern(ref.APIVersion), Kind: intern(ref.Kind), Name: ref.Name, UID: ref.UID,
		Controller: ptr.To(true)}}
	s.controllers[ref.UID] = owners
	return owners
}

// makeRoom forgets everything shared when full; the caller holds s.mu.
func (s *sharedMeta) makeRoom() {
	if len(s.appLabels)+len(s.controllers) >= maxShared {
		s.reset()
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
