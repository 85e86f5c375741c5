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

	corev1 "k8s.io/api/core/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// The benchmarks run with make bench (go test -run '^$' -bench . -benchmem ./controllers/...):
// the CPU and allocations of the pure code each reconcile runs, apart from the API server.

func benchApp() *paasv1.DemoApplication {
	return builder.DemoApplication("shop", "web", builder.UID("uid-1"), builder.Replicas(3),
		builder.Ports(builder.Port("http", 80, 8080), builder.Port("metrics", 9090, 0)),
		builder.Env(paasv1.EnvVar{Name: "LOG_LEVEL", Value: "info"}))
}

func BenchmarkNewDeployment(b *testing.B) {
	app := benchApp()
	extraEnv := []corev1.EnvVar{{Name: "HTTPS_PROXY", Value: "http://proxy:3128"}}
	b.ReportAllocs()
	for b.Loop() {
		newDeployment(app, extraEnv, wellknown.DefaultPodLabelKeys)
	}
}

func BenchmarkNewService(b *testing.B) {
	app := benchApp()
	b.ReportAllocs()
	for b.Loop() {
		newService(app)
	}
}
