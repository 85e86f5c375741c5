//go:build node

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
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestRestrictedSample: the documented restricted spec, config/samples'
// paas_v1_demoapplication_restricted.yaml, runs in a namespace that enforces the restricted
// Pod Security Standard: its pods are admitted, started by the kubelet as a non-root user with
// the runtime's seccomp profile and no capabilities, Ready by the sample's probe, and served
// through its Service. Only its image differs: nothing is pulled from outside the machine, so
// podname's image (a non-root user, answering on 8080 as nginx-unprivileged does) stands in.
func TestRestrictedSample(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-restricted-", testenv.NamespaceLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}),
		testenv.ControllersRun)
	// The namespace enforces the standard: a pod without the sample's security contexts is refused.
	bare := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bare"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: appImage}}}}
	g.Expect(k8s.Create(ctx, bare, client.DryRunAll)).To(MatchError(ContainSubstring(`violates PodSecurity "restricted`)))

	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config/samples/paas_v1_demoapplication_restricted.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	app := &paasv1.DemoApplication{}
	g.Expect(yaml.UnmarshalStrict(data, app)).To(Succeed())
	t.Logf("the sample's image %s replaced by %s", app.Spec.Image, appImage)
	app.Namespace, app.Spec.Image = ns, appImage
	g.Expect(k8s.Create(ctx, app)).To(Succeed())

	pods := expectServing(t, app, int(*app.Spec.Replica))
	names := map[string]bool{}
	for _, p := range pods {
		names[p.Name] = true
		g.Expect(p.Spec.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
		g.Expect(p.Spec.SecurityContext.SeccompProfile).To(Equal(&corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}))
		c := p.Spec.Containers[0]
		g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(Equal(ptr.To(false)))
		g.Expect(c.SecurityContext.Capabilities.Drop).To(Equal([]corev1.Capability{"ALL"}))
		g.Expect(c.ReadinessProbe).NotTo(BeNil())
		g.Expect(p.Status.ContainerStatuses[0].RestartCount).To(BeZero())
	}
	// Both pods take traffic through the Service.
	seen := map[string]bool{}
	url := serviceURL(g, app, "/")
	g.Eventually(func(g Gomega) {
		answer, err := get(url)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(names).To(HaveKey(answer))
		seen[answer] = true
		g.Expect(seen).To(HaveLen(len(pods)))
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
}

// TestRestrictedDefaults: in a namespace that enforces the restricted Pod Security Standard, an
// app that sets no security context runs, the operator filling in the standard's values, as
// the image's own non-root user; an app whose image runs as root gets pods too, which the
// kubelet refuses to start, and the app says so in the kubelet's words rather than having no
// pod at all.
func TestRestrictedDefaults(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-restricted-", testenv.NamespaceLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}),
		testenv.ControllersRun)

	plain := builder.DemoApplication(ns, "plain", builder.Image(appImage), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)))
	g.Expect(k8s.Create(ctx, plain)).To(Succeed())
	for _, p := range expectServing(t, plain, 1) {
		g.Expect(p.Spec.SecurityContext.SeccompProfile).To(Equal(&corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}))
		c := p.Spec.Containers[0].SecurityContext
		g.Expect(c.RunAsNonRoot).To(Equal(ptr.To(true)))
		g.Expect(c.AllowPrivilegeEscalation).To(Equal(ptr.To(false)))
		g.Expect(c.Capabilities.Drop).To(Equal([]corev1.Capability{"ALL"}))
	}

	// podname as root: its image's user is 0.
	b := &imagebuild.Builder{}
	const local = "localhost/demo-operator-node/podname:root"
	_, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local, Base: appLocalImage, User: "0:0"})
	g.Expect(err).NotTo(HaveOccurred())
	image := cluster.RegistryHost() + "/podname:root"
	g.Expect(cluster.PushImage(ctx, b, local, image)).To(Succeed())
	root := builder.DemoApplication(ns, "root", builder.Image(image), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)))
	g.Expect(k8s.Create(ctx, root)).To(Succeed())
	degraded := expectDegraded(t, root, paasv1.ReasonCreateContainerError, "runAsNonRoot and image will run as root", 2*time.Minute)
	t.Logf("an image that runs as root: %s", degraded.Message)
}
