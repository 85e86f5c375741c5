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

package framework

import (
	"context"
	"strings"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/cli"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// HelmConfig is the Helm SDK's configuration for a release's namespace on the cluster of
// kubeconfig, as the helm CLI builds it.
func HelmConfig(kubeconfig, namespace string) (*action.Configuration, error) {
	settings := cli.New()
	settings.KubeConfig = kubeconfig
	cfg := &action.Configuration{}
	return cfg, cfg.Init(settings.RESTClientGetter(), namespace, "secret", func(string, ...any) {})
}

// LeaseHolder returns the pod whose manager holds the leader-election Lease, the one Lease
// of the operator's namespace (whatever --leader-election-id names it).
func LeaseHolder(g Gomega, cs kubernetes.Interface, namespace string) string {
	leases, err := cs.CoordinationV1().Leases(namespace).List(context.Background(), metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(leases.Items).To(HaveLen(1), "Leases in %s", namespace)
	lease := leases.Items[0]
	g.Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
	// controller-runtime's identity is the hostname (the pod's name), "_" and a UUID.
	holder, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return holder
}
