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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestConfigMapServed: a ConfigMap mounted by the app's volumes is the file its pod serves,
// through the Service. (The kubelet's refresh of a changed ConfigMap, a minute and more, is
// the kubelet's, not the operator's, and is left out of the tier's time.)
func TestConfigMapServed(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installOperator(t)
	ns := testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"},
		Data: map[string]string{"index.html": "first edition"}}
	g.Expect(k8s.Create(ctx, config)).To(Succeed())
	app := builder.DemoApplication(ns, "site", builder.Image(appImage), builder.Replicas(1), builder.Ports(builder.Port("http", 80, 8080)),
		builder.Env(paasv1.EnvVar{Name: "SERVE_FILE", Value: "/srv/site/index.html"}))
	app.Spec.Volumes = []paasv1.Volume{{Name: "site", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "site"}}}
	app.Spec.VolumeMounts = []paasv1.VolumeMount{{Name: "site", MountPath: "/srv/site", ReadOnly: true}}
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	expectServing(t, app, 1)

	g.Eventually(func(g Gomega) {
		answer, err := get(serviceURL(g, app, "/file"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(answer).To(Equal("first edition"))
	}, 30*time.Second, 200*time.Millisecond).Should(Succeed())
}
