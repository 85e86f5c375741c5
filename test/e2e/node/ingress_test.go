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
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// skipperPort is where Skipper listens for the requests it routes.
const skipperPort = 9090

// TestIngressThroughSkipper: a DemoApplication's Ingress, served by a real Ingress controller
// (Zalando's Skipper, which reads networking.k8s.io/v1 Ingresses, running as a pod on the
// node), routes requests for the app's host to its pods and no other host's; a changed host
// moves the route.
func TestIngressThroughSkipper(t *testing.T) {
	g := NewWithT(t)
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-ingress-", testenv.ControllersRun)
	skipper := startSkipper(t, ns)

	app := builder.DemoApplication(ns, "shop", builder.Image(appImage), builder.Replicas(2), builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.Ingress = &paasv1.Ingress{ClassName: "skipper", Hosts: []string{"shop.example.test"}}
	start := time.Now()
	g.Expect(k8s.Create(context.Background(), app)).To(Succeed())

	// Both pods answer through the Ingress: Skipper balances over the Service's endpoints.
	answered := map[string]bool{}
	g.Eventually(func(g Gomega) {
		status, body := viaIngress(g, skipper, "shop.example.test")
		g.Expect(status).To(Equal(http.StatusOK), body)
		answered[body] = true
		g.Expect(answered).To(HaveLen(2))
	}, 3*time.Minute, 200*time.Millisecond).Should(Succeed())
	t.Logf("created to both pods answering through Skipper by host: %s", time.Since(start).Round(100*time.Millisecond))
	pods := framework.ReadyPods(g, k8s, ns, podsOf(app))
	g.Expect(answered).To(HaveLen(len(pods)))
	for _, p := range pods {
		g.Expect(answered).To(HaveKey(p.Name))
	}
	status, _ := viaIngress(g, skipper, "other.example.test")
	g.Expect(status).To(Equal(http.StatusNotFound), "a host the Ingress does not list was routed")

	g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), app)).To(Succeed())
	app.Spec.Ingress.Hosts = []string{"store.example.test"}
	g.Expect(k8s.Update(context.Background(), app)).To(Succeed())
	g.Eventually(func(g Gomega) {
		status, _ := viaIngress(g, skipper, "store.example.test")
		g.Expect(status).To(Equal(http.StatusOK))
		status, _ = viaIngress(g, skipper, "shop.example.test")
		g.Expect(status).To(Equal(http.StatusNotFound))
	}, time.Minute, 200*time.Millisecond).Should(Succeed())
}

// viaIngress sends a request for host to Skipper at address, on a new connection, and returns
// the answer's status and body.
func viaIngress(g Gomega, address, host string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, "http://"+address+"/", nil)
	g.Expect(err).NotTo(HaveOccurred())
	req.Host = host
	c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(body)
}

// createSkipperClass creates the IngressClass skipper, unless it exists, and deletes it when
// t ends: tests that run Skippers side by side create it first, so that none deletes it under
// the others. Skipper serves an Ingress by its class's name alone, but spec.ingressClassName
// names an IngressClass: without one, the app says IngressClassNotFound.
func createSkipperClass(t *testing.T) {
	t.Helper()
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "skipper"}, Spec: networkingv1.IngressClassSpec{Controller: "zalando.org/skipper"}}
	if err := k8s.Create(context.Background(), class); !apierrors.IsAlreadyExists(err) {
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), class) })
	}
}

// startSkipper runs Skipper, built by make skipper (SKIPPER), as a pod of namespace that
// serves the namespace's Ingresses of class skipper, and returns its address.
func startSkipper(t *testing.T, namespace string) string {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	binary := os.Getenv("SKIPPER")
	if binary == "" {
		t.Fatal("SKIPPER names no binary: run make test-node, which builds it")
	}
	b := &imagebuild.Builder{}
	local, image := "localhost/demo-operator-node/skipper:e2e", cluster.RegistryHost()+"/skipper:e2e"
	_, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local, Entrypoint: []string{"/skipper"}, User: "65532:65532",
		Files: []imagebuild.File{{Path: "/skipper", Source: binary}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cluster.PushImage(ctx, b, local, image)).To(Succeed())

	createSkipperClass(t)

	// What Skipper's -kubernetes mode reads, in this namespace only.
	meta := metav1.ObjectMeta{Namespace: namespace, Name: "skipper"}
	for _, obj := range []client.Object{
		&corev1.ServiceAccount{ObjectMeta: meta},
		&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "skipper"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "skipper", Namespace: namespace}}},
		&corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{
			ServiceAccountName: "skipper",
			Containers: []corev1.Container{{
				Name:  "skipper",
				Image: image,
				Args: []string{"-kubernetes", "-kubernetes-in-cluster", "-kubernetes-namespace=" + namespace,
					"-kubernetes-ingress-class=^skipper$", "-enable-kubernetes-endpointslices", "-kubernetes-https-redirect=false",
					fmt.Sprintf("-address=:%d", skipperPort), "-support-listener="},
				Ports: []corev1.ContainerPort{{ContainerPort: skipperPort}},
				// CPU reserved, as an Ingress controller is deployed (Skipper's reference Deployment
				// requests its CPU): without a request the pod is BestEffort, whose cgroup weighs 2
				// against the node's other pods, and a busy node starves the proxy for seconds.
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(skipperPort)}}, PeriodSeconds: 1},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
					Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			}},
		}},
	} {
		g.Expect(k8s.Create(ctx, obj)).To(Succeed())
	}
	pod := &corev1.Pod{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "skipper"}, pod)).To(Succeed())
		g.Expect(pod.Status.PodIP).NotTo(BeEmpty())
		g.Expect(pod.Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.PodReady), HaveField("Status", corev1.ConditionTrue))))
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed(), func() string { return fmt.Sprintf("Skipper's pod: %+v", pod.Status) })
	return fmt.Sprintf("%s:%d", pod.Status.PodIP, skipperPort)
}
