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
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// initContainers returns the pod's init containers: the sidecars first, as init containers
// that restart always (native sidecars), so that they already run when the initContainers
// start (a migration that needs the database proxy), then the initContainers. extraEnv (OLM's
// proxy settings) follows each one's own env, as in the app's container.
func initContainers(spec *paasv1.DemoApplicationSpec, extraEnv []corev1.EnvVar) []*corev1ac.ContainerApplyConfiguration {
	out := make([]*corev1ac.ContainerApplyConfiguration, 0, len(spec.Sidecars)+len(spec.InitContainers))
	for i := range spec.Sidecars {
		out = append(out, helperContainer(&spec.Sidecars[i], spec.Sidecars[i].Env, extraEnv).
			WithRestartPolicy(corev1.ContainerRestartPolicyAlways))
	}
	for i := range spec.InitContainers {
		out = append(out, helperContainer(&spec.InitContainers[i], spec.InitContainers[i].Env, extraEnv))
	}
	return out
}

// helperContainer returns c, a Container or a Sidecar of the spec (which share the container's
// JSON form), of env, as a container of the pod.
func helperContainer(c any, env []paasv1.EnvVar, extraEnv []corev1.EnvVar) *corev1ac.ContainerApplyConfiguration {
	container := converted[*corev1ac.ContainerApplyConfiguration](c)
	container.Env = nil
	container.WithEnv(converted[[]*corev1ac.EnvVarApplyConfiguration](mergeEnv(converted[[]corev1.EnvVar](env), extraEnv))...)
	// Empty resources are nothing the API server keeps: applied, they would never settle.
	if r := container.Resources; r != nil {
		if r.Limits != nil && len(*r.Limits) == 0 {
			r.Limits = nil
		}
		if r.Requests != nil && len(*r.Requests) == 0 {
			r.Requests = nil
		}
		if r.Limits == nil && r.Requests == nil && r.Claims == nil {
			container.Resources = nil
		}
	}
	return container
}
