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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestConfigCacheTransform: the cache keeps a ConfigMap's or Secret's identity alone, not
// the annotation kubectl apply copies its data into.
func TestConfigCacheTransform(t *testing.T) {
	g := NewWithT(t)
	in := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop", UID: "u", ResourceVersion: "7",
		Labels:        map[string]string{"a": "b"},
		Annotations:   map[string]string{corev1.LastAppliedConfigAnnotation: `{"data":{"password":"czNjcmV0"}}`},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}
	out, err := ConfigCacheTransform(in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.(*metav1.PartialObjectMetadata).ObjectMeta).To(Equal(metav1.ObjectMeta{Name: "db", Namespace: "shop", ResourceVersion: "7"}))
}
