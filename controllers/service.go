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
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// newService returns the Service that exposes app's ports, or nil when app declares none
// (a Service must have a port). It is a NodePort Service when any port asks for a nodePort.
func newService(app *paasv1.DemoApplication) *corev1ac.ServiceApplyConfiguration {
	if len(app.Spec.Ports) == 0 {
		return nil
	}
	serviceType := corev1.ServiceTypeClusterIP
	spec := corev1ac.ServiceSpec().WithSelector(selectorFor(app))
	for _, p := range app.Spec.Ports {
		port := servicePort(p)
		if p.NodePort != nil {
			serviceType = corev1.ServiceTypeNodePort
			port.WithNodePort(*p.NodePort)
		}
		spec.WithPorts(port)
	}
	return corev1ac.Service(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec.WithType(serviceType))
}

// servicePort returns p as a Service port without its nodePort.
func servicePort(p paasv1.DemoApplicationPort) *corev1ac.ServicePortApplyConfiguration {
	port := corev1ac.ServicePort().WithPort(p.Port).WithProtocol(protocolOf(p))
	if p.Name != "" {
		port.WithName(p.Name)
	}
	if p.TargetPort != nil {
		port.WithTargetPort(*p.TargetPort)
	}
	return port
}
