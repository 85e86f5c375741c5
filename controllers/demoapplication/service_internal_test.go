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
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestNewService(t *testing.T) {
	t.Run("a nodePort makes a NodePort Service selecting the app's pods", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		s := converted[*corev1.Service](newService(app))
		g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
		g.Expect(s.Spec.Selector).To(Equal(selectorFor(app)))
		g.Expect(s.Spec.Ports).To(Equal([]corev1.ServicePort{
			{Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080), NodePort: 30002},
		}))
		g.Expect(s.OwnerReferences).To(HaveLen(1))
	})

	t.Run("without nodePorts it is a ClusterIP Service", func(t *testing.T) {
		app := testApp()
		app.Spec.Ports[0].NodePort = nil
		NewWithT(t).Expect(converted[*corev1.Service](newService(app)).Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
	})

	t.Run("without ports there is no Service", func(t *testing.T) {
		app := testApp()
		app.Spec.Ports = nil
		NewWithT(t).Expect(newService(app)).To(BeNil())
	})
}
