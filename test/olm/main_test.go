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

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/devtools/localolm"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

var (
	cluster *localcluster.Cluster
	k8s     client.Client
	cs      kubernetes.Interface
	// steps are the install steps both OLM tiers take, on k8s.
	steps framework.OLMSteps
	// olmAssets holds opm; managerBin is main.go built.
	olmAssets, managerBin string
)

func TestMain(m *testing.M) {
	assets := framework.Assets("make test-olm", "CLUSTER_ASSETS", "OLM_ASSETS")
	olmAssets = assets[1]
	scheme, err := framework.OLMScheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cluster = &localcluster.Cluster{BinDir: assets[0], Nodes: 2, Progress: os.Stdout, DieWithParent: true}
	os.Exit(framework.Run(m, cluster, framework.Options{Scheme: scheme, BuildManager: true, Timeout: 5 * time.Minute,
		SetUp: setUp, Report: printOLMLogs}))
}

// printOLMLogs prints the end of OLM's operators' logs, for a failed run.
func printOLMLogs() {
	framework.PrintLogs(os.Stderr, cluster, 20, localolm.OLMOperator, localolm.CatalogOperator)
}

// setUp installs and starts OLM.
func setUp(ctx context.Context, s *framework.Suite) error {
	k8s, cs, managerBin = s.Client, s.Clientset, s.ManagerBin
	cfg := s.Config
	steps = framework.OLMSteps{Client: k8s, Timeout: olmTimeout}
	start := time.Now()
	if err := localolm.Install(ctx, cfg, olmAssets); err != nil {
		return err
	}
	if err := localolm.Start(cluster, olmAssets); err != nil {
		return err
	}
	if err := localolm.WaitProcessesReady(ctx, cfg); err != nil {
		return fmt.Errorf("OLM not ready: %w", err)
	}
	fmt.Printf("OLM installed and running in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as a ServiceAccount with a
// token from the TokenRequest API, as the kubelet would mount it into the operator's pod, and
// returns its path.
func serviceAccountKubeconfig(t *testing.T, namespace, serviceAccount string) string {
	t.Helper()
	ca, err := os.ReadFile(cluster.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["cluster"] = &clientcmdapi.Cluster{Server: cluster.Server(), CertificateAuthorityData: ca}
	kc.AuthInfos[serviceAccount] = &clientcmdapi.AuthInfo{Token: testenv.ServiceAccountToken(t, cs, namespace, serviceAccount)}
	kc.Contexts["manager"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: serviceAccount, Namespace: namespace}
	kc.CurrentContext = "manager"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startManagerAs runs the manager binary until the test ends as a ServiceAccount
// (serviceAccountKubeconfig), with the environment OLM gives the operator's pod. Leader
// election takes its Lease in the operator's namespace, with the permissions the CSV asks there.
func startManagerAs(t *testing.T, name, namespace, serviceAccount string, env []string) {
	t.Helper()
	framework.StartManager(t, cluster, name, managerBin, serviceAccountKubeconfig(t, namespace, serviceAccount), env,
		"--leader-elect", "--leader-election-namespace="+namespace)
}
