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
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestKustomizeDeploy: make deploy with the built image runs the operator as the chart
// does, and make undeploy removes it. It runs last: it replaces the Helm release, whose
// CRD config/default shares.
func TestKustomizeDeploy(t *testing.T) {
	g := NewWithT(t)
	ns := installOperator(t)
	cfg, err := framework.HelmConfig(cluster.Kubeconfig(), ns)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = action.NewUninstall(cfg).Run(releaseName)
	g.Expect(err).NotTo(HaveOccurred())

	root := testenv.Root()
	// make deploy sets the image in config/manager, as a user's would; the test puts it back.
	kustomization := filepath.Join(root, "config", "manager", "kustomization.yaml")
	original, err := os.ReadFile(kustomization)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = os.WriteFile(kustomization, original, 0o644) })
	makeTarget := func(target string, vars ...string) {
		cmd := exec.Command("make", append([]string{"-C", root, target, "KUBECTL=" + filepath.Join(cluster.BinDir, "kubectl")}, vars...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig())
		out, err := cmd.CombinedOutput()
		g.Expect(err).NotTo(HaveOccurred(), "make %s:\n%s", target, out)
	}
	makeTarget("deploy", "IMG="+managerImage)
	const deployNS, deployment = "demo-operator-system", "demo-operator-controller-manager"
	pods := expectManagerPods(t, deployNS, deployment, 1, 3*time.Minute)
	g.Eventually(func(g Gomega) {
		g.Expect(framework.LeaseHolder(g, cs, deployNS)).To(Equal(pods[0].Name))
	}, time.Minute, 250*time.Millisecond).Should(Succeed())

	makeTarget("undeploy")
	g.Eventually(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Name: deployNS}, &corev1.Namespace{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace %s still there: %v", deployNS, err)
	}, 3*time.Minute, time.Second).Should(Succeed())
}
