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
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// dockerConfigSecret is a kubernetes.io/dockerconfigjson Secret holding a user and password
// for registry, as `kubectl create secret docker-registry` makes it.
func dockerConfigSecret(g Gomega, namespace, name, registry, user, password string) *corev1.Secret {
	config, err := json.Marshal(map[string]any{"auths": map[string]any{registry: map[string]string{
		"username": user, "password": password, "auth": base64.StdEncoding.EncodeToString([]byte(user + ":" + password)),
	}}})
	g.Expect(err).NotTo(HaveOccurred())
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: config},
	}
}

// TestPrivateRegistry: an image of a registry that requires authentication (htpasswd) is
// pulled with the Secret the app names in imagePullSecrets, and only with it: without it the
// registry refuses the kubelet, and the app says so in its status.
func TestPrivateRegistry(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	// podname with a label of its own: an image the node can only have from the private registry.
	b := &imagebuild.Builder{}
	const local = "localhost/demo-operator-node/podname:private"
	_, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local, Base: appLocalImage, Labels: map[string]string{"registry": "private"}})
	g.Expect(err).NotTo(HaveOccurred())
	image := cluster.PrivateRegistryHost() + "/team/podname:e2e"
	g.Expect(cluster.PushPrivateImage(ctx, b, local, image)).To(Succeed())
	ns := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	app := builder.DemoApplication(ns, "private", builder.Image(image), builder.Ports(builder.Port("http", 80, 8080)))
	g.Expect(k8s.Create(ctx, app)).To(Succeed())

	// Without credentials: the registry refuses the pull, the pods never run.
	degraded := expectDegraded(t, app, paasv1.ReasonImagePullBackOff, "401 Unauthorized", 2*time.Minute)
	t.Logf("without imagePullSecrets: %s", degraded.Message)
	g.Expect(apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionReady)).To(BeFalse())
	g.Expect(framework.ReadyPods(g, k8s, ns, podsOf(app))).To(BeEmpty())

	// The registry's credentials, as a team stores them, named by the app.
	user, password, err := cluster.PrivateRegistryCredentials()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Create(ctx, dockerConfigSecret(g, ns, "registry", cluster.PrivateRegistryHost(), user, password))).To(Succeed())
	updateApp(g, app, func(app *paasv1.DemoApplication) {
		app.Spec.ImagePullSecrets = []paasv1.LocalObjectReference{{Name: "registry"}}
	})
	pods := expectServing(t, app, 2)
	for _, p := range pods {
		g.Expect(p.Spec.ImagePullSecrets).To(Equal([]corev1.LocalObjectReference{{Name: "registry"}}))
		g.Expect(p.Status.ContainerStatuses[0].Image).To(Equal(image))
	}
	g.Expect(apimeta.FindStatusCondition(app.Status.Conditions, paasv1.ConditionDegraded)).To(HaveField("Reason", paasv1.ReasonAsExpected))
}
