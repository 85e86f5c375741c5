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
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// sdkRunBundle runs the real operator-sdk, as users do: `run bundle <bundle image>` with an
// index image built here for a file-based catalog, a local decompression image and
// --security-context-config restricted, in mode; `run bundle-upgrade` to the next release;
// `cleanup demo-operator`. The images are pulled from the registry's TLS endpoint, which the CLI
// trusts through SSL_CERT_DIR and the node through containerd's configuration. A
// DemoApplication is served after the install and after the upgrade; cleanup removes the
// operator and, unlike make cleanup-bundle (internal/devtools/olm), the CRD with every DemoApplication.
func sdkRunBundle(t *testing.T, mode operatorsv1alpha1.InstallModeType) {
	g := NewWithT(t)
	ctx := context.Background()
	first, second := releases[0], releases[1]
	ns := testenv.NewNamespace(t, k8s, "sdk-run-bundle-", testenv.ControllersRun)

	start := time.Now()
	out, err := operatorSDK(t, "run", "bundle", cluster.SecureImage(first.bundle), "--index-image", cluster.SecureImage(sdkImages.Index),
		"--decompression-image", cluster.SecureImage(sdkImages.Decompression), "--security-context-config", "restricted",
		"--install-mode", string(mode), "--namespace", ns, "--timeout", olmTimeout.String())
	g.Expect(err).NotTo(HaveOccurred(), out)
	t.Logf("operator-sdk run bundle (%s) → CSV Succeeded in %s", mode, time.Since(start).Round(100*time.Millisecond))
	csv, og := expectRunBundleInstalled(t, ns, first.csv, mode)
	expectOperatorPods(t, csv, first.managerImage)
	watched := ns
	if mode == operatorsv1alpha1.InstallModeTypeAllNamespaces {
		watched = testenv.NewNamespace(t, k8s, "sdk-any-", testenv.ControllersRun)
	}
	app := createDemoApp(t, watched, "web")
	steps.ExpectServed(t, app)

	start = time.Now()
	out, err = operatorSDK(t, "run", "bundle-upgrade", cluster.SecureImage(second.bundle), "--security-context-config", "restricted",
		"--namespace", ns, "--timeout", olmTimeout.String())
	g.Expect(err).NotTo(HaveOccurred(), out)
	t.Logf("operator-sdk run bundle-upgrade → CSV Succeeded in %s", time.Since(start).Round(100*time.Millisecond))
	upgraded := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: second.csv}, upgraded)).To(Succeed())
	g.Expect(upgraded.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
	g.Expect(upgraded.Spec.Replaces).To(Equal(first.csv))
	expectOperatorPods(t, upgraded, second.managerImage)
	steps.ExpectServed(t, app)

	out, err = operatorSDK(t, "cleanup", "demo-operator", "--namespace", ns, "--timeout", olmTimeout.String())
	g.Expect(err).NotTo(HaveOccurred(), out)
	g.Eventually(func(g Gomega) {
		for _, obj := range []client.Object{upgraded, og, &apiextensionsv1.CustomResourceDefinition{}, app} {
			if _, crd := obj.(*apiextensionsv1.CustomResourceDefinition); crd {
				obj.SetName("demoapplications." + paasv1.GroupVersion.Group)
			}
			err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			g.Expect(apierrors.IsNotFound(err) || meta.IsNoMatchError(err)).To(BeTrue(), "%T %s after cleanup: %v", obj, obj.GetName(), err)
		}
	}, olmTimeout, time.Second).Should(Succeed())
}

// TestOperatorSDKRunBundleRestricted runs operator-sdk run bundle in a namespace that enforces
// the restricted Pod Security Standard: its registry pod's init container has no security
// context and the pod no runAsNonRoot, so the API server refuses the pod whatever
// --security-context-config says (operator-framework/operator-sdk#7039). make run-bundle
// (internal/devtools/olm) installs there. The day a fixed CLI is pinned, this test fails and says so.
func TestOperatorSDKRunBundleRestricted(t *testing.T) {
	g := NewWithT(t)
	ns := testenv.NewNamespace(t, k8s, "sdk-restricted-", testenv.NamespaceLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}),
		testenv.ControllersRun)
	out, err := operatorSDK(t, "run", "bundle", cluster.SecureImage(releases[0].bundle), "--index-image", cluster.SecureImage(sdkImages.Index),
		"--decompression-image", cluster.SecureImage(sdkImages.Decompression), "--security-context-config", "restricted",
		"--install-mode", string(operatorsv1alpha1.InstallModeTypeOwnNamespace), "--namespace", ns, "--timeout", "2m")
	g.Expect(err).To(HaveOccurred(), "operator-sdk#7039 looks fixed: run bundle installed in a restricted namespace; "+
		"drop this test and say so where docs/install/olm.md and make run-bundle send restricted namespaces to internal/devtools/olm")
	// logrus quotes the message, escaping its quotes.
	g.Expect(out).To(MatchRegexp(`violates PodSecurity \\?"restricted:latest\\?".*container \\?"registry-grpc-init\\?" must set securityContext`))
}

// operatorSDK runs bin/operator-sdk (or $OPERATOR_SDK) on the cluster, trusting the cluster's
// CA for the registry besides the machine's CAs, and returns its output.
func operatorSDK(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(operatorSDKPath(t), append(args, "--kubeconfig", cluster.Kubeconfig())...)
	// run bundle keeps an image cache in its working directory while it runs: outside the
	// checkout, which the image tier's builds read beside this one.
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "SSL_CERT_DIR=/etc/ssl/certs:"+cluster.RegistryCertDir())
	out, err := cmd.CombinedOutput()
	t.Logf("operator-sdk %s:\n%s", strings.Join(args[:2], " "), out)
	return string(out), err
}

func operatorSDKPath(t *testing.T) string {
	t.Helper()
	sdk, err := testenv.Tool("operator-sdk")
	if err != nil {
		t.Fatal(err)
	}
	return sdk
}
