//go:build e2e

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

// Package e2e runs the operator's binary against the local cluster, where Deployments make
// pods that kwok turns Running, the garbage collector deletes owned objects and Services get
// endpoints: what envtest cannot show.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

var (
	cluster *localcluster.Cluster
	k8s     client.Client
	// managerBin is main.go built.
	managerBin string
	// operatorKubeconfig acts as the operator's ServiceAccount with the shipped RBAC
	// (testenv.AsOperator), which the managers run with.
	operatorKubeconfig string
)

func TestMain(m *testing.M) {
	assets := framework.Assets("make test-e2e", "E2E_ASSETS")
	if err := apiextensionsv1.AddToScheme(manager.Scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cluster = &localcluster.Cluster{BinDir: assets[0], Nodes: 3, Progress: os.Stdout, DieWithParent: true,
		Controllers: []string{"horizontal-pod-autoscaler-controller"}}
	os.Exit(framework.Run(m, cluster, framework.Options{Scheme: manager.Scheme, BuildManager: true,
		Timeout: 5 * time.Minute, SetUp: setUp}))
}

// setUp installs the CRD and writes the operator's kubeconfig.
func setUp(ctx context.Context, s *framework.Suite) error {
	k8s, managerBin = s.Client, s.ManagerBin
	data, err := os.ReadFile("../../config/crd/bases/paas.cmft.com_demoapplications.yaml")
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		return err
	}
	if err := k8s.Create(ctx, crd); err != nil {
		return err
	}
	if err := writeOperatorKubeconfig(ctx, s.Config, filepath.Join(cluster.Dir, "operator.kubeconfig")); err != nil {
		return err
	}
	return localcluster.WaitEstablished(ctx, s.Config, crd.Name)
}

// writeOperatorKubeconfig writes, to path, the admin kubeconfig impersonating the operator's
// ServiceAccount bound to the shipped ClusterRole, so that the managers have exactly the
// rights users give them. path is in the cluster's directory, which a process's command line
// must name for the cluster to stop it.
func writeOperatorKubeconfig(ctx context.Context, cfg *rest.Config, path string) error {
	operator, err := testenv.AsOperator(ctx, cfg)
	if err != nil {
		return err
	}
	kubeconfig, err := clientcmd.LoadFromFile(cluster.Kubeconfig())
	if err != nil {
		return err
	}
	for _, user := range kubeconfig.AuthInfos {
		user.Impersonate, user.ImpersonateGroups = operator.Impersonate.UserName, operator.Impersonate.Groups
	}
	operatorKubeconfig = path
	return clientcmd.WriteToFile(*kubeconfig, path)
}

// grantLeaderElection gives the operator's ServiceAccount the shipped leader election Role
// in namespace, as config/default does in its own.
func grantLeaderElection(t *testing.T, namespace string) {
	t.Helper()
	role := &rbacv1.Role{}
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "rbac", "leader_election_role.yaml"))
	if err == nil {
		err = yaml.Unmarshal(data, role)
	}
	if err != nil {
		t.Fatal(err)
	}
	role.Namespace = namespace
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: testenv.OperatorNamespace,
			Name: testenv.OperatorServiceAccount}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := k8s.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T) string {
	return testenv.NewNamespace(t, k8s, "e2e-", testenv.ControllersRun)
}

// port80 is the port of this tier's apps: kwok's pods serve nothing, so the Service's 80
// targets the pods' 80.
var port80 = builder.Ports(builder.Port("", 80, 80))

// runningPods returns the pods of a DemoApplication that are Running, Ready and not being deleted.
func runningPods(g Gomega, app *paasv1.DemoApplication) []corev1.Pod {
	return framework.ReadyPods(g, k8s, app.Namespace, map[string]string{"app.kubernetes.io/name": app.Name})
}

// expectConverged waits until the DemoApplication's Deployment, pods and status match its spec.
func expectConverged(t *testing.T, app *paasv1.DemoApplication, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("%s converged in %s", app.Name, time.Since(start).Round(10*time.Millisecond)) }()
	NewWithT(t).Eventually(func(g Gomega) {
		current := &paasv1.DemoApplication{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), current)).To(Succeed())
		want := *current.Spec.Replica
		deploy := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), deploy)).To(Succeed())
		g.Expect(metav1.IsControlledBy(deploy, current)).To(BeTrue())
		g.Expect(deploy.Spec.Replicas).To(HaveValue(Equal(want)))
		pods := runningPods(g, current)
		g.Expect(pods).To(HaveLen(int(want)))
		for _, p := range pods {
			g.Expect(p.Spec.Containers[0].Image).To(Equal(current.Spec.Image))
		}
		g.Expect(current.Status.ReadyReplicas).To(Equal(want))
		g.Expect(current.Status.ObservedGeneration).To(Equal(current.Generation))
		available := apimeta.FindStatusCondition(current.Status.Conditions, paasv1.ConditionAvailable)
		g.Expect(available).NotTo(BeNil())
		g.Expect(available.Status).To(Equal(metav1.ConditionTrue))
	}, timeout, 200*time.Millisecond).Should(Succeed())
}
