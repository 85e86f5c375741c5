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
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// The NetworkPolicy of an app that enables one: the app's pods take connections to their
// ports from the peers the spec names, and from none else.

// networkPolicyKind is the app's NetworkPolicy, in ownedKinds. It names no parent: it selects
// the app's pods alone, whoever runs them, and only ever takes connections away from them.
var networkPolicyKind = owned{
	name:    "NetworkPolicy",
	object:  func() client.Object { return &networkingv1.NetworkPolicy{} },
	failed:  paasv1.ReasonNetworkPolicyFailed,
	build:   fromApp(newNetworkPolicy),
	extract: extractWith(networkingv1ac.ExtractNetworkPolicy),
	watch:   changed,
}

// namespaceNameLabel is the label the API server gives every namespace, its name.
const namespaceNameLabel = "kubernetes.io/metadata.name"

// newNetworkPolicy returns the NetworkPolicy that isolates app's pods for ingress and lets
// in, to their container ports, the peers app names; nil when app does not enable one. With
// no peer or no port it has no rule: nothing may connect to the pods. It selects the app's
// pods by the labels their Deployment selects them with, and says nothing of egress.
func newNetworkPolicy(app *paasv1.DemoApplication) *networkingv1ac.NetworkPolicyApplyConfiguration {
	np := app.Spec.NetworkPolicy
	if np == nil || !np.Enabled {
		return nil
	}
	var peers []*networkingv1ac.NetworkPolicyPeerApplyConfiguration
	if np.SameApp {
		peers = append(peers, networkingv1ac.NetworkPolicyPeer().
			WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))))
	}
	if len(np.Namespaces) > 0 {
		peers = append(peers, networkingv1ac.NetworkPolicyPeer().WithNamespaceSelector(metav1ac.LabelSelector().
			WithMatchExpressions(metav1ac.LabelSelectorRequirement().
				WithKey(namespaceNameLabel).WithOperator(metav1.LabelSelectorOpIn).WithValues(np.Namespaces...))))
	}
	for _, from := range np.From {
		peer := networkingv1ac.NetworkPolicyPeer()
		if from.NamespaceSelector != nil {
			peer.WithNamespaceSelector(labelSelector(from.NamespaceSelector))
		}
		if from.PodSelector != nil {
			peer.WithPodSelector(labelSelector(from.PodSelector))
		}
		peers = append(peers, peer)
	}
	spec := networkingv1ac.NetworkPolicySpec().
		WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(selectorFor(app))).
		WithPolicyTypes(networkingv1.PolicyTypeIngress)
	ports := containerPorts(app.Spec.Ports)
	// A rule without peers, or without ports, would let in everyone, or to every port.
	if len(peers) > 0 && len(ports) > 0 {
		rule := networkingv1ac.NetworkPolicyIngressRule().WithFrom(peers...)
		for _, p := range ports {
			rule.WithPorts(networkingv1ac.NetworkPolicyPort().
				WithProtocol(*p.Protocol).WithPort(intstr.FromInt32(*p.ContainerPort)))
		}
		spec.WithIngress(rule)
	}
	return networkingv1ac.NetworkPolicy(app.Name, app.Namespace).
		WithLabels(labelsFor(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
}

// labelSelector returns the selector of s, in the form the API takes.
func labelSelector(s *paasv1.LabelSelector) *metav1ac.LabelSelectorApplyConfiguration {
	out := metav1ac.LabelSelector()
	if len(s.MatchLabels) > 0 {
		out.WithMatchLabels(labelValues(s.MatchLabels))
	}
	for _, e := range s.MatchExpressions {
		values := make([]string, len(e.Values))
		for i, v := range e.Values {
			values[i] = string(v)
		}
		out.WithMatchExpressions(metav1ac.LabelSelectorRequirement().WithKey(e.Key).WithOperator(e.Operator).WithValues(values...))
	}
	return out
}
