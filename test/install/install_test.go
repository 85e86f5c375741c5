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

// Package install runs the install commands users run, with the real kubectl, against a real
// API server: config/default and every `kubectl apply` the install docs and the README give.
package install

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/docblock"
	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const (
	// annotationLimit is what the API server allows a resource's annotations in all: client-side
	// kubectl apply keeps the whole object in its last-applied-configuration annotation.
	annotationLimit = 256 * 1024
	// crdBudget leaves room below the limit for the API to grow before anyone must trim it.
	crdBudget = 240_000
)

// TestCRDFitsClientSideApply measures the CRD as client-side kubectl apply stores it: the
// object's JSON, as kubectl encodes it (HTML characters of the rules escaped), in one annotation.
func TestCRDFitsClientSideApply(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config/crd/bases/paas.cmft.com_demoapplications.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	crd := &unstructured.Unstructured{}
	g.Expect(yaml.Unmarshal(data, &crd.Object)).To(Succeed())
	encoded, err := runtime.Encode(unstructured.UnstructuredJSONScheme, crd)
	g.Expect(err).NotTo(HaveOccurred())
	size := len(bytes.TrimSpace(encoded))
	t.Logf("the CRD is %d bytes as kubectl apply stores it: %d below the annotation limit of %d", size, annotationLimit-size, annotationLimit)
	g.Expect(size).To(BeNumerically("<=", crdBudget),
		"the CRD is %d bytes in kubectl's last-applied-configuration annotation, over the budget of %d that keeps a margin below the API server's limit of %d: "+
			"shorten the field docs or fold rules in api/v1 (v1beta1's descriptions are already dropped by hack/crd-trim)", size, crdBudget, annotationLimit)
}

// TestInstallCommandsApply applies config/default with client-side kubectl apply, then runs
// every `kubectl apply` of docs/install/*.md and README.md as written, in a copy of the
// repository where make build-installer wrote dist/install.yaml (with the image config/default
// names), against an API server with the namespace and the CRDs OLM would have (the OLM
// subscription's objects are stored, and no OLM runs them) and nothing else: the manager's
// Deployment is stored, and never runs. The client-side commands share one API server, which
// they patch in turn; each server-side one gets an API server of its own, where no other
// field manager holds the fields it sets.
func TestInstallCommandsApply(t *testing.T) {
	g := NewWithT(t)
	sdkbundle.RequireTools(t)
	dir := t.TempDir()
	g.Expect(sdkbundle.Make(context.Background(), dir, "build-installer", nil)).To(Succeed())

	commands := []string{"kubectl apply -k config/default"}
	docs, err := filepath.Glob(filepath.Join(testenv.Root(), "docs", "install", "*.md"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, doc := range append(docs, filepath.Join(testenv.Root(), "README.md")) {
		found, err := docblock.CommandsOf(doc, "kubectl apply ")
		g.Expect(err).NotTo(HaveOccurred())
		for _, command := range found {
			if !slices.Contains(commands, command) {
				commands = append(commands, command)
			}
		}
	}
	g.Expect(commands).To(ContainElement("kubectl apply -k config/pod-labeler-only"), "the kustomize page's command, found")

	clientSide := newServer(t, dir)
	for _, command := range commands {
		server := clientSide
		if slices.Contains(strings.Fields(command), "--server-side") {
			server = newServer(t, dir)
		}
		server.shell.Step(context.Background(), t, "the install docs", command)
	}

	// The CRD went through client-side apply, whole, into its annotation.
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(clientSide.k8s.Get(context.Background(), client.ObjectKey{Name: "demoapplications.paas.cmft.com"}, crd)).To(Succeed())
	g.Expect(crd.Annotations).To(HaveKey(corev1.LastAppliedConfigAnnotation))

	// kubectl explain reads the preferred version, v1, which keeps its field docs (only
	// v1beta1's are dropped); the API server publishes the CRD's OpenAPI a moment after it is
	// established.
	g.Eventually(func() (string, error) {
		out, err := clientSide.shell.Run(context.Background(), "kubectl explain demoapplications.spec.sidecars")
		return string(out), err
	}).WithTimeout(30 * time.Second).Should(And(ContainSubstring("VERSION:    v1\n"), ContainSubstring("sidecars run beside the app's container")))
}

// server is an API server that kubectl installs into.
type server struct {
	k8s client.Client
	// shell runs commands in the copy of the repository with kubectl on PATH, configured for
	// the server.
	shell *docblock.Shell
}

// newServer starts an API server with OLM's CRDs and its namespace, as OLM would have put them,
// and no other CRD (kubectl installs the operator's), and a shell in dir that reaches it.
func newServer(t *testing.T, dir string) *server {
	t.Helper()
	g := NewWithT(t)
	env, err := testenv.New()
	g.Expect(err).NotTo(HaveOccurred())
	olm, err := moduleDir("github.com/operator-framework/api")
	g.Expect(err).NotTo(HaveOccurred())
	env.CRDDirectoryPaths = []string{filepath.Join(olm, "crds")}
	_, err = env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "olm"}})).To(Succeed())

	admin, err := env.ControlPlane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := admin.KubeConfig()
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfigPath := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(os.WriteFile(kubeconfigPath, kubeconfig, 0o600)).To(Succeed())
	// hack/control-plane.sh builds kubectl beside kube-apiserver, at the same version.
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	_, err = os.Stat(filepath.Join(assets, "kubectl"))
	g.Expect(err).NotTo(HaveOccurred(), "run hack/control-plane.sh, which builds kubectl into KUBEBUILDER_ASSETS")
	return &server{k8s: k8s, shell: &docblock.Shell{Dir: dir,
		Env: []string{"PATH=" + assets + string(os.PathListSeparator) + os.Getenv("PATH"), "KUBECONFIG=" + kubeconfigPath}}}
}

// moduleDir is the directory of a module the project builds with.
func moduleDir(module string) (string, error) {
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	list.Dir = testenv.Root()
	out, err := list.Output()
	return strings.TrimSpace(string(out)), err
}
