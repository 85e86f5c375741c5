//go:build olm

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

package olm

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// createDemoApp creates a DemoApplication of two nginx replicas on port 80.
func createDemoApp(t *testing.T, namespace, name string) *paasv1.DemoApplication {
	return steps.CreateDemoApp(t, namespace, name, builder.Ports(builder.Port("", 80, 80)))
}

// expectIgnored checks for a few seconds that no manager acts on the DemoApplication.
func expectIgnored(t *testing.T, app *paasv1.DemoApplication) {
	t.Helper()
	NewWithT(t).Consistently(func(g Gomega) {
		current := &paasv1.DemoApplication{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), current)).To(Succeed())
		g.Expect(current.Status.ObservedGeneration).To(BeZero())
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(app), &appsv1.Deployment{})
		g.Expect(client.IgnoreNotFound(err)).To(Succeed())
		g.Expect(err).To(HaveOccurred())
	}, 3*time.Second, 250*time.Millisecond).Should(Succeed())
}

// expectPodLabeled creates a pod that asks for the pod-name label and waits until it has it.
func expectPodLabeled(t *testing.T, namespace string) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "labeled",
			Annotations: map[string]string{wellknown.DefaultPodLabelAnnotation: "true"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
	}
	if err := k8s.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		g.Expect(pod.Labels).To(HaveKeyWithValue(wellknown.DefaultPodNameLabel, pod.Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())
}

// can asks the API server whether the ServiceAccount may do verb on resource in namespace
// ("" for cluster-wide).
func can(t *testing.T, namespace, serviceAccount, verb, group, resource, inNamespace string) bool {
	t.Helper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + namespace + ":" + serviceAccount,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: inNamespace, Verb: verb, Group: group, Resource: resource},
	}}
	if err := k8s.Create(context.Background(), review); err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}
