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

package kustomize

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestInstaller runs make build-installer on a copy of the repository and applies every object
// of dist/install.yaml, in its order, to a real API server with server-side apply, as
// `kubectl apply --server-side -f dist/install.yaml` does: the CRD, the RBAC, the manager's
// Deployment with IMG and the self-restraint policies, and config/manager keeps its image.
func TestInstaller(t *testing.T) {
	g := NewWithT(t)
	const image = "example.com/x:1"
	dir := t.TempDir()
	g.Expect(sdkbundle.Make(context.Background(), dir, "build-installer", map[string]string{"IMG": image})).To(Succeed())

	read, err := testenv.Objects(filepath.Join(dir, "dist", "install.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	objs := make([]*unstructured.Unstructured, 0, len(read))
	for _, obj := range read {
		objs = append(objs, obj.(*unstructured.Unstructured))
	}
	find(g, objs, "Namespace", "demo-operator-system")
	crd := find(g, objs, "CustomResourceDefinition", "demoapplications.paas.cmft.com")
	find(g, objs, "ClusterRole", "demo-operator-manager-role")
	find(g, objs, "ClusterRoleBinding", "demo-operator-manager-rolebinding")
	find(g, objs, "ValidatingAdmissionPolicy", "")
	find(g, objs, "ValidatingAdmissionPolicyBinding", "")
	deployment := &appsv1.Deployment{}
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(find(g, objs, "Deployment", "").Object, deployment)).To(Succeed())
	g.Expect(deployment.Spec.Template.Spec.Containers).To(ContainElement(HaveField("Image", image)))

	kustomization, err := os.ReadFile(filepath.Join(dir, "config", "manager", "kustomization.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	committed, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "manager", "kustomization.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(kustomization)).To(Equal(string(committed)), "make build-installer changed config/manager")

	env, err := testenv.New()
	g.Expect(err).NotTo(HaveOccurred())
	// The installer, not envtest, installs the CRD.
	env.CRDDirectoryPaths, env.ErrorIfCRDPathMissing = nil, false
	cfg, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	for _, obj := range objs {
		err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("kubectl"), client.ForceOwnership)
		g.Expect(err).NotTo(HaveOccurred(), "applying %s %s", obj.GetKind(), obj.GetName())
	}

	applied := &appsv1.Deployment{}
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(deployment), applied)).To(Succeed())
	g.Expect(applied.Spec.Template.Spec.Containers).To(ContainElement(HaveField("Image", image)))
	served := crd.DeepCopy()
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(crd), served)).To(Succeed())
}
