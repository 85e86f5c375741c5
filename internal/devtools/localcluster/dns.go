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

package localcluster

import (
	"context"
	"fmt"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
)

// The real node's cluster DNS, as kubeadm deploys it: CoreDNS behind the kube-dns Service at
// the tenth address of the Service range, which the kubelet writes into every pod's
// resolv.conf. It answers for cluster names only and forwards nothing, so that no pod's query
// leaves the machine.
const (
	// DNSServiceIP is the kube-dns Service's cluster IP.
	DNSServiceIP = "10.0.0.10"
	// ClusterDomain is the suffix of Service names, <service>.<namespace>.svc.<domain>.
	ClusterDomain = "cluster.local"
	// CoreDNS is CoreDNS's binary, which hack/control-plane.sh --node builds.
	CoreDNS = "coredns"

	dnsNamespace = "kube-system"
	dnsName      = "coredns"
	// dnsPort is where CoreDNS listens in its pod: above 1024, so that it runs without
	// capabilities; the Service maps port 53 to it.
	dnsPort = 1053
)

// dnsImage is CoreDNS's image in the registry.
func (c *Cluster) dnsImage() string { return c.RegistryHost() + "/coredns:local" }

// deployDNS pushes CoreDNS's image, its binary alone, and runs it in kube-system.
func (c *Cluster) deployDNS(ctx context.Context) error {
	b := &imagebuild.Builder{}
	const local = "localhost/demo-operator-local/coredns:local"
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local, Entrypoint: []string{"/coredns"},
		Files: []imagebuild.File{{Path: "/coredns", Source: filepath.Join(c.BinDir, CoreDNS)}}}); err != nil {
		return err
	}
	if err := c.PushImage(ctx, b, local, c.dnsImage()); err != nil {
		return err
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	k8s, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	// Created only when missing, so that Up on a running cluster changes nothing: a second
	// create of the kube-dns Service is refused as Invalid (its cluster IP is allocated), not
	// AlreadyExists.
	for _, obj := range dnsObjects(c.dnsImage()) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
		if apierrors.IsNotFound(err) {
			err = k8s.Create(ctx, obj)
		}
		if err != nil {
			return fmt.Errorf("deploying CoreDNS: %w", err)
		}
	}
	return nil
}

// dnsObjects are CoreDNS's objects: its ServiceAccount and the read access its kubernetes
// plugin needs, its Corefile, its Deployment and the kube-dns Service.
func dnsObjects(image string) []client.Object {
	labels := map[string]string{"k8s-app": "kube-dns"}
	corefile := fmt.Sprintf(".:%d {\n    errors\n    health :8080\n    ready :8181\n    kubernetes %s in-addr.arpa ip6.arpa\n}\n",
		dnsPort, ClusterDomain)
	role := "system:" + dnsName
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: dnsNamespace, Name: dnsName}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: dnsNamespace, Name: dnsName}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: dnsNamespace, Name: dnsName},
			Data: map[string]string{"Corefile": corefile}},
		dnsDeployment(image, labels),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: dnsNamespace, Name: "kube-dns", Labels: labels},
			Spec: corev1.ServiceSpec{ClusterIP: DNSServiceIP, Selector: labels, Ports: []corev1.ServicePort{
				{Name: "dns", Port: 53, TargetPort: intstr.FromInt32(dnsPort), Protocol: corev1.ProtocolUDP},
				{Name: "dns-tcp", Port: 53, TargetPort: intstr.FromInt32(dnsPort), Protocol: corev1.ProtocolTCP},
			}}},
	}
}

func dnsDeployment(image string, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: dnsNamespace, Name: dnsName}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			ServiceAccountName: dnsName,
			// Not itself: the kubelet writes no resolv.conf for Default, since the machine's
			// resolver is none of the pods' business (KubeletConfiguration resolvConf: "").
			DNSPolicy:         corev1.DNSDefault,
			PriorityClassName: "system-cluster-critical",
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: dnsName, Image: image, Args: []string{"-conf", "/etc/coredns/Corefile"},
				Ports: []corev1.ContainerPort{{Name: "dns", ContainerPort: dnsPort, Protocol: corev1.ProtocolUDP},
					{Name: "dns-tcp", ContainerPort: dnsPort, Protocol: corev1.ProtocolTCP}},
				LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080)}}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}}},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/coredns"}}}},
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: dnsName}}}}},
		}},
	}}
}

// dnsReady reports whether a CoreDNS pod is ready to answer.
func dnsReady(ctx context.Context, cs kubernetes.Interface) bool {
	d, err := cs.AppsV1().Deployments(dnsNamespace).Get(ctx, dnsName, metav1.GetOptions{})
	return err == nil && d.Status.ReadyReplicas > 0
}
