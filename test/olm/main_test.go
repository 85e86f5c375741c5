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

// Package olm installs the operator through the real Operator Lifecycle Manager on the local
// cluster: from bundle/ in every install mode its CSV declares, from catalog/ by Subscription,
// through an upgrade along a channel, and out again. OLM's operators and opm run as processes;
// the catalogs embed the bundles' manifests, so OLM unpacks no bundle image.
package olm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/localcluster"
	"github.com/cmft/demo-operator/internal/test/localolm"
	"github.com/cmft/demo-operator/test/framework"
	"github.com/cmft/demo-operator/test/framework/olmtest"
)

var (
	cluster *localcluster.Cluster
	k8s     client.Client
	cs      kubernetes.Interface
	// steps are the install steps both OLM tiers take, on k8s.
	steps olmtest.Steps
	// olmAssets holds opm; managerBin is main.go built.
	olmAssets, managerBin string
	scheme                = runtime.NewScheme()
)

func TestMain(m *testing.M) {
	clusterAssets, olm := os.Getenv("CLUSTER_ASSETS"), os.Getenv("OLM_ASSETS")
	if clusterAssets == "" || olm == "" {
		fmt.Println("CLUSTER_ASSETS or OLM_ASSETS is not set: skipping the OLM tests (run make test-olm)")
		os.Exit(0)
	}
	olmAssets = olm
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		operatorsv1.AddToScheme, operatorsv1alpha1.AddToScheme, paasv1.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	cluster = &localcluster.Cluster{BinDir: clusterAssets, Nodes: 2, Progress: os.Stdout, DieWithParent: true}
	os.Exit(framework.Run(m, cluster, setUp, printOLMLogs))
}

// printOLMLogs prints the end of OLM's operators' logs, for a failed run.
func printOLMLogs() {
	framework.PrintLogs(os.Stderr, cluster, 20, localolm.OLMOperator, localolm.CatalogOperator)
}

// setUp builds the manager while the cluster starts, then installs and starts OLM.
func setUp(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var err error
	if managerBin, err = framework.UpWithManager(ctx, cluster, dir); err != nil {
		return err
	}
	cfg, err := cluster.RESTConfig()
	if err != nil {
		return err
	}
	if k8s, cs, err = framework.Clients(cfg, scheme); err != nil {
		return err
	}
	steps = olmtest.Steps{Client: k8s, Timeout: olmTimeout}
	start := time.Now()
	if err := localolm.Install(ctx, cfg, olmAssets); err != nil {
		return err
	}
	if err := localolm.Start(cluster, olmAssets); err != nil {
		return err
	}
	if err := localolm.WaitReady(ctx, cfg); err != nil {
		return fmt.Errorf("OLM not ready: %w", err)
	}
	fmt.Printf("OLM installed and running in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// startManagerAs runs the manager binary until the test ends, authenticated as a
// ServiceAccount with a token from the TokenRequest API, as the kubelet would mount it into
// the operator's pod, and with the environment OLM gives that pod. Leader election takes its
// Lease in the operator's namespace, with the permissions the CSV asks there.
func startManagerAs(t *testing.T, name, namespace, serviceAccount string, env []string) {
	t.Helper()
	ctx := context.Background()
	token, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, serviceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(cluster.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["cluster"] = &clientcmdapi.Cluster{Server: cluster.Server(), CertificateAuthorityData: ca}
	kc.AuthInfos[serviceAccount] = &clientcmdapi.AuthInfo{Token: token.Status.Token}
	kc.Contexts["manager"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: serviceAccount, Namespace: namespace}
	kc.CurrentContext = "manager"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	args := []string{"--kubeconfig=" + path, "--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--leader-elect", "--leader-election-namespace=" + namespace}
	if err := cluster.StartProcess(name, managerBin, args, env); err != nil {
		t.Fatal(err)
	}
	framework.LogsOnFailure(t, cluster, 30, name)
	t.Cleanup(func() {
		if err := cluster.Stop(name); err != nil {
			t.Error(err)
		}
	})
}
