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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// ContainerName is the name of the application's container in its pods.
const ContainerName = "app"

// newDeployment returns the Deployment that runs app: the fields the operator owns, to
// be server-side applied. extraEnv (OLM's proxy settings) follows the app's own env. With
// per-pod Services on, the pods carry the labeler's annotation (of keys), which opts them
// in to the pod-name label that those Services select.
func newDeployment(app *paasv1.DemoApplication, extraEnv []corev1.EnvVar, keys PodLabelKeys) *appsv1ac.DeploymentApplyConfiguration {
	container := corev1ac.Container().
		WithName(ContainerName).
		WithImage(app.Spec.Image).
		WithPorts(containerPorts(app.Spec.Ports)...)
	for _, env := range mergeEnv(app.Spec.Env, extraEnv) {
		ac := &corev1ac.EnvVarApplyConfiguration{}
		convert(env, ac)
		container.WithEnv(ac)
	}
	if r := app.Spec.Resources; r != nil && (len(r.Limits) > 0 || len(r.Requests) > 0 || len(r.Claims) > 0) {
		ac := &corev1ac.ResourceRequirementsApplyConfiguration{}
		convert(r, ac)
		container.WithResources(ac)
	}

	template := corev1ac.PodTemplateSpec().
		WithLabels(labelsFor(app)).
		WithSpec(corev1ac.PodSpec().WithContainers(container))
	if podServicesEnabled(app) {
		template.WithAnnotations(map[string]string{keys.Annotation: "true"})
	}
	return appsv1ac.Deployment(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(ptr.Deref(app.Spec.Replica, 1)).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))).
			WithTemplate(template))
}

// containerPorts returns one container port per distinct target of the Service's ports.
// A named targetPort becomes the container port of that name, numbered like the port.
func containerPorts(ports []paasv1.DemoApplicationPort) []*corev1ac.ContainerPortApplyConfiguration {
	type key struct {
		number   int32
		protocol corev1.Protocol
	}
	seenKeys := map[key]bool{}
	seenNames := map[string]bool{}
	var out []*corev1ac.ContainerPortApplyConfiguration
	for _, p := range ports {
		protocol := protocolOf(p)
		number, name := p.Port, p.Name
		if t := p.TargetPort; t != nil {
			if t.Type == intstr.String {
				name = t.StrVal
			} else {
				number = t.IntVal
			}
		}
		k := key{number, protocol}
		if seenKeys[k] || (name != "" && seenNames[name]) {
			continue
		}
		seenKeys[k], seenNames[name] = true, name != ""
		cp := corev1ac.ContainerPort().WithContainerPort(number).WithProtocol(protocol)
		if name != "" {
			cp.WithName(name)
		}
		out = append(out, cp)
	}
	return out
}

// mergeEnv appends to env the variables of extra whose names env does not set, so that
// the user's own value always wins.
func mergeEnv(env, extra []corev1.EnvVar) []corev1.EnvVar {
	names := make(map[string]bool, len(env))
	for _, e := range env {
		names[e.Name] = true
	}
	out := append([]corev1.EnvVar(nil), env...)
	for _, e := range extra {
		if !names[e.Name] {
			out = append(out, e)
		}
	}
	return out
}
