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
	"encoding/json"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// FuzzDesiredObjects checks that whatever a valid DemoApplication holds, the builders
// never panic and produce objects the API server would accept: valid names and labels, a
// selector that matches the pod template, container ports unique by number and protocol
// and by name, as SSA's list keys require.
func FuzzDesiredObjects(f *testing.F) {
	f.Add("web", "nginx:1.27", int32(2), []byte(`[{"port":80,"targetPort":8080,"nodePort":30002}]`))
	f.Add("a", "x", int32(0), []byte(`[{"name":"a","port":80,"targetPort":"http"},{"name":"b","port":81,"targetPort":"http"}]`))
	f.Add("api-gateway", "registry.example.com/app@sha256:00", int32(5), []byte(`[{"name":"t","port":53},{"name":"u","port":53,"protocol":"UDP"}]`))
	f.Fuzz(func(t *testing.T, name, image string, replica int32, portsJSON []byte) {
		var ports []paasv1.DemoApplicationPort
		if json.Unmarshal(portsJSON, &ports) != nil || len(validation.IsDNS1123Label(name)) > 0 || image == "" || replica < 0 {
			t.Skip("not a DemoApplication the API server admits")
		}
		app := testApp()
		app.Name, app.Spec.Image, app.Spec.Replica, app.Spec.Ports = name, image, &replica, ports

		d := converted[*appsv1.Deployment](newDeployment(app, nil, wellknown.DefaultPodLabelKeys))
		for k, v := range d.Labels {
			if msgs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(msgs) > 0 {
				t.Fatalf("label %s=%s: %v", k, v, msgs)
			}
		}
		if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Fatalf("selector %v does not match template labels %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
		}
		keys, names := map[string]bool{}, map[string]bool{}
		for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
			key := fmt.Sprint(p.ContainerPort, p.Protocol)
			if keys[key] || (p.Name != "" && names[p.Name]) {
				t.Fatalf("duplicate container port %+v in %+v", p, d.Spec.Template.Spec.Containers[0].Ports)
			}
			keys[key], names[p.Name] = true, p.Name != ""
		}

		if len(ports) > 0 {
			app.Spec.PodServices = &paasv1.PodServices{Enabled: true}
			pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name + "-5d4f8-abcde"}}
			ps := converted[*corev1.Service](newPodService(app, pod, wellknown.DefaultPodLabelKeys))
			if len(ps.Spec.Ports) != len(ports) {
				t.Fatalf("per-pod Service has %d ports, app declares %d", len(ps.Spec.Ports), len(ports))
			}
			for _, p := range ps.Spec.Ports {
				if p.NodePort != 0 {
					t.Fatalf("per-pod Service copies nodePort %d", p.NodePort)
				}
			}
		}

		s := newService(app)
		if (s == nil) != (len(ports) == 0) {
			t.Fatalf("Service %v for %d ports", s, len(ports))
		}
		if s != nil && len(converted[*corev1.Service](s).Spec.Ports) != len(ports) {
			t.Fatalf("Service has %d ports, app declares %d", len(s.Spec.Ports), len(ports))
		}
	})
}

func TestNewObjects(t *testing.T) {
	t.Run("a served app of two replicas with a policy: its four objects, the pods carrying the hash", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.NetworkPolicy = &paasv1.NetworkPolicy{Enabled: true, SameApp: true}
		objects := NewObjects(app, "abc")
		g.Expect(objects).To(HaveLen(4))
		d, ok := objects[0].(*appsv1.Deployment)
		g.Expect(ok).To(BeTrue(), "the Deployment first")
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(ConfigHashAnnotation, "abc"))
		g.Expect(d.Annotations).To(HaveKeyWithValue(DefaultsAnnotation, defaultsVersion))
		g.Expect(objects[1:]).To(HaveEach(WithTransform(func(o client.Object) []metav1.OwnerReference { return o.GetOwnerReferences() },
			Equal(d.OwnerReferences))))
		g.Expect([]string{objects[1].GetObjectKind().GroupVersionKind().Kind, objects[2].GetObjectKind().GroupVersionKind().Kind,
			objects[3].GetObjectKind().GroupVersionKind().Kind}).To(Equal([]string{"Service", "NetworkPolicy", "PodDisruptionBudget"}))
	})
	t.Run("a single replica without ports or policy: its Deployment alone, no hash", func(t *testing.T) {
		g := NewWithT(t)
		objects := NewObjects(builder.DemoApplication("shop", "worker", builder.Replicas(1), builder.Ports()), "")
		g.Expect(objects).To(HaveLen(1))
		g.Expect(objects[0].(*appsv1.Deployment).Spec.Template.Annotations).NotTo(HaveKey(ConfigHashAnnotation))
	})
}
