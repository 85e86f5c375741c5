//go:build olmnode

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

package node

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/imagebuild"
	"github.com/cmft/demo-operator/internal/testenv"
)

// Cluster DNS, as kubeadm deploys it: CoreDNS behind the kube-dns Service at the tenth
// address of the Service range. OLM's catalog operator and packageserver reach a
// CatalogSource's registry pod by its Service's name (<name>.<namespace>.svc:50051), which
// only a cluster DNS resolves.
//
// TODO(lead): the local cluster runs no DNS and its kubelet sets no clusterDNS, which
// hack/cluster/localcluster may give every pod; until then OLM's pods get this DNS through
// their dnsConfig (withClusterDNS).
const (
	dnsIP      = "10.0.0.10"
	dnsDomain  = "cluster.local"
	dnsVersion = "v1.15.0"
)

// deployDNS builds CoreDNS (hack/tools/coredns) into an image, pushes it and runs it in
// kube-system with the kubernetes plugin.
func deployDNS(ctx context.Context, b *imagebuild.Builder, dir string) (map[string]string, error) {
	bin := filepath.Join(dir, "coredns")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./cmd/coredns")
	build.Dir = filepath.Join(testenv.Root(), "hack", "tools", "coredns")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building CoreDNS: %w: %s", err, out)
	}
	image := cluster.RegistryHost() + "/coredns:" + dnsVersion
	spec := imagebuild.ImageSpec{Name: "localhost/demo-operator-olm-node/coredns:" + dnsVersion, Base: imagebuild.DistrolessStaticImage,
		Files: []imagebuild.File{{Path: "/coredns", Source: bin}}, Entrypoint: []string{"/coredns"}}
	if _, err := b.Assemble(ctx, spec); err != nil {
		return nil, err
	}
	if err := b.Push(ctx, spec.Name, "docker://"+image, imagebuild.PushOptions{Insecure: true}); err != nil {
		return nil, err
	}

	const ns, name = "kube-system", "coredns"
	labels := map[string]string{"k8s-app": "kube-dns"}
	corefile := ".:1053 {\n    errors\n    health :8080\n    ready :8181\n    kubernetes " + dnsDomain + " in-addr.arpa ip6.arpa\n}\n"
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:coredns"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"Corefile": corefile}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				ServiceAccountName: name,
				DNSPolicy:          corev1.DNSDefault,
				Containers: []corev1.Container{{Name: name, Image: image, Args: []string{"-conf", "/etc/coredns/Corefile"},
					Ports:          []corev1.ContainerPort{{ContainerPort: 1053, Protocol: corev1.ProtocolUDP}, {ContainerPort: 1053, Protocol: corev1.ProtocolTCP}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}}},
					SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						ReadOnlyRootFilesystem: ptr.To(true), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/coredns"}}}},
				Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
					ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}},
			}},
		}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kube-dns", Labels: labels}, Spec: corev1.ServiceSpec{
			ClusterIP: dnsIP, Selector: labels, Ports: []corev1.ServicePort{
				{Name: "dns", Port: 53, TargetPort: intstr.FromInt32(1053), Protocol: corev1.ProtocolUDP},
				{Name: "dns-tcp", Port: 53, TargetPort: intstr.FromInt32(1053), Protocol: corev1.ProtocolTCP},
			}}},
	}
	for _, obj := range objs {
		if err := k8s.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return map[string]string{image: spec.Name}, nil
}

// dnsConfig points a pod at the cluster DNS with the search path a kubelet with clusterDNS
// writes for a pod of namespace.
func dnsConfig(namespace string) map[string]any {
	return map[string]any{
		"dnsPolicy": string(corev1.DNSNone),
		"dnsConfig": map[string]any{
			"nameservers": []any{dnsIP},
			"searches":    []any{namespace + ".svc." + dnsDomain, "svc." + dnsDomain, dnsDomain},
			"options":     []any{map[string]any{"name": "ndots", "value": "5"}},
		},
	}
}

// withClusterDNS gives the pods of OLM's Deployments, and of packageserver's CSV, the
// cluster DNS.
func withClusterDNS(objs []*unstructured.Unstructured) error {
	for _, obj := range objs {
		var path []string
		switch obj.GetKind() {
		case "Deployment":
			path = []string{"spec", "template", "spec"}
		case "ClusterServiceVersion":
			specs, _, err := unstructured.NestedSlice(obj.Object, "spec", "install", "spec", "deployments")
			if err != nil {
				return err
			}
			for _, s := range specs {
				pod, _, _ := unstructured.NestedMap(s.(map[string]any), "spec", "template", "spec")
				for k, v := range dnsConfig(obj.GetNamespace()) {
					pod[k] = runtime.DeepCopyJSONValue(v)
				}
				if err := unstructured.SetNestedMap(s.(map[string]any), pod, "spec", "template", "spec"); err != nil {
					return err
				}
			}
			if err := unstructured.SetNestedSlice(obj.Object, specs, "spec", "install", "spec", "deployments"); err != nil {
				return err
			}
			continue
		default:
			continue
		}
		pod, _, err := unstructured.NestedMap(obj.Object, path...)
		if err != nil {
			return err
		}
		for k, v := range dnsConfig(obj.GetNamespace()) {
			pod[k] = runtime.DeepCopyJSONValue(v)
		}
		if err := unstructured.SetNestedMap(obj.Object, pod, path...); err != nil {
			return err
		}
	}
	return nil
}
