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

// Package builder builds the DemoApplications that every test tier creates, as Cluster API's
// internal/test/builder does for its objects: one default, changed by options.
package builder

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// Option changes a DemoApplication that DemoApplication builds.
type Option func(*paasv1.DemoApplication)

// DemoApplication returns a valid DemoApplication named name in namespace: two replicas of
// nginx:1.27 behind a Service whose port 80 targets the pods' 8080, changed by opts.
func DemoApplication(namespace, name string, opts ...Option) *paasv1.DemoApplication {
	app := &paasv1.DemoApplication{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: paasv1.DemoApplicationSpec{
			Image:   "nginx:1.27",
			Replica: ptr.To[int32](2),
			Ports:   []paasv1.DemoApplicationPort{Port("", 80, 8080)},
		},
	}
	for _, opt := range opts {
		opt(app)
	}
	return app
}

// Image runs image.
func Image(image string) Option {
	return func(app *paasv1.DemoApplication) { app.Spec.Image = image }
}

// Replicas asks for n replicas.
func Replicas(n int32) Option {
	return func(app *paasv1.DemoApplication) { app.Spec.Replica = ptr.To(n) }
}

// Ports declares ports in place of the default; none leaves the app without a Service.
func Ports(ports ...paasv1.DemoApplicationPort) Option {
	return func(app *paasv1.DemoApplication) { app.Spec.Ports = slices.Clone(ports) }
}

// Env sets the container's environment.
func Env(env ...paasv1.EnvVar) Option {
	return func(app *paasv1.DemoApplication) { app.Spec.Env = slices.Clone(env) }
}

// UID sets the UID the API server would give, for tests that build objects without one.
func UID(uid types.UID) Option {
	return func(app *paasv1.DemoApplication) { app.UID = uid }
}

// Port returns a Service port named name (none when empty) on port, targeting the pods'
// target (the same port when 0).
func Port(name string, port, target int32) paasv1.DemoApplicationPort {
	p := paasv1.DemoApplicationPort{Name: name, Port: port}
	if target != 0 {
		p.TargetPort = ptr.To(intstr.FromInt32(target))
	}
	return p
}
