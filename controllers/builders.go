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
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// Helpers shared by the builders of the objects a DemoApplication declares.

// convert copies in into out through their shared JSON form: a typed API value and its
// apply configuration are generated from the same definition. Only values without
// non-pointer struct fields go into an apply configuration this way: those would serialise
// as empty objects and claim fields the user never set.
func convert(in, out any) {
	data, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		panic(fmt.Sprintf("converting %T to %T: %v", in, out, err))
	}
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
