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

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/storage/driver"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/manager"
)

const (
	releaseName      = "demo-operator"
	releaseNamespace = "demo-operator-system"
	sampleNamespace  = "default"
	// managerName names the demo's manager process in the state directory, so Down stops it.
	managerName = "manager"
)

// samples are what the demo applies, from config/samples.
var samples = []string{"config/samples/paas_v1_demoapplication.yaml", "config/samples/pod_with_name_label.yaml"}

// demo shows the operator working from nothing: a cluster (the local one unless KUBECONFIG
// names another), the operator installed by its Helm chart, the manager running with the
// chart's ServiceAccount's permissions, the samples applied and what they became.
func demo(ctx context.Context, c *localcluster.Cluster, managerBin, chartPath string) error {
	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		step("Starting a local cluster: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, %d kwok nodes", c.Nodes)
		if err := c.Up(ctx); err != nil {
			return err
		}
		kubeconfig = c.Kubeconfig()
	} else {
		step("Using the cluster in KUBECONFIG=%s", kubeconfig)
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}, nil).ClientConfig()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}

	step("Installing the operator with the Helm chart %s (release %s in %s)", chartPath, releaseName, releaseNamespace)
	if err := installChart(kubeconfig, chartPath); err != nil {
		return fmt.Errorf("installing the chart: %w", err)
	}
	sa, err := chartServiceAccount(ctx, cs)
	if err != nil {
		return err
	}

	step("Running %s as ServiceAccount %s/%s, with exactly the permissions the chart grants", managerBin, releaseNamespace, sa)
	managerConfig, err := writeManagerKubeconfig(ctx, cs, cfg, c.Dir, sa)
	if err != nil {
		return err
	}
	if err := c.Stop(managerName); err != nil {
		return err
	}
	// One manager, so no leader election; the probe port follows the cluster's five.
	if err := c.StartProcess(managerName, managerBin, []string{"--kubeconfig=" + managerConfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(c.PortBase+6)}, nil); err != nil {
		return err
	}

	k8s, err := client.New(cfg, client.Options{Scheme: manager.Scheme})
	if err != nil {
		return err
	}
	step("Handing namespace %s to applications, as a platform team does: label %s=%s", sampleNamespace,
		wellknown.LabelApplicationsNamespace, wellknown.ApplicationsEnabled)
	if err := k8s.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sampleNamespace}}, client.RawPatch(types.MergePatchType,
		fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, wellknown.LabelApplicationsNamespace, wellknown.ApplicationsEnabled))); err != nil {
		return err
	}
	step("Applying the samples: %s", strings.Join(samples, ", "))
	if err := applySamples(ctx, k8s); err != nil {
		return err
	}
	if err := waitForSamples(ctx, k8s, c); err != nil {
		return err
	}
	show(kubeconfig, c)
	return nil
}

func step(format string, args ...any) { fmt.Printf("\n==> "+format+"\n", args...) }

// installChart installs the chart, or upgrades it when the demo runs again. The chart's own
// Deployment gets no replicas: its image is not built here and kwok would only pretend to
// run it; the manager binary runs instead, under the chart's ServiceAccount.
func installChart(kubeconfig, chartPath string) error {
	chart, err := loader.Load(chartPath)
	if err != nil {
		return err
	}
	values := map[string]any{"replicaCount": 0}
	settings := cli.New()
	settings.KubeConfig = kubeconfig
	cfg := &action.Configuration{}
	if err := cfg.Init(settings.RESTClientGetter(), releaseNamespace, "secret", func(string, ...any) {}); err != nil {
		return err
	}
	history := action.NewHistory(cfg)
	history.Max = 1
	if _, err := history.Run(releaseName); errors.Is(err, driver.ErrReleaseNotFound) {
		install := action.NewInstall(cfg)
		install.ReleaseName, install.Namespace, install.CreateNamespace = releaseName, releaseNamespace, true
		_, err = install.Run(chart, values)
		return err
	} else if err != nil {
		return err
	}
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = releaseNamespace
	_, err = upgrade.Run(releaseName, chart, values)
	return err
}

// chartServiceAccount finds the ServiceAccount the release created, whatever the chart names it.
func chartServiceAccount(ctx context.Context, cs kubernetes.Interface) (string, error) {
	list, err := cs.CoreV1().ServiceAccounts(releaseNamespace).List(ctx,
		metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=" + releaseName})
	if err != nil {
		return "", err
	}
	if len(list.Items) != 1 {
		return "", fmt.Errorf("expected one ServiceAccount of release %s in %s, found %d", releaseName, releaseNamespace, len(list.Items))
	}
	return list.Items[0].Name, nil
}

// writeManagerKubeconfig writes a kubeconfig that authenticates as the ServiceAccount, with a
// token from the TokenRequest API, as the kubelet would mount it into the manager's pod.
func writeManagerKubeconfig(ctx context.Context, cs kubernetes.Interface, cfg *rest.Config, dir, sa string) (string, error) {
	token, err := cs.CoreV1().ServiceAccounts(releaseNamespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token for %s: %w", sa, err)
	}
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			return "", err
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["cluster"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca,
		TLSServerName: cfg.ServerName, InsecureSkipTLSVerify: cfg.Insecure}
	kc.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: token.Status.Token}
	kc.Contexts["manager"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: sa, Namespace: releaseNamespace}
	kc.CurrentContext = "manager"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "manager.kubeconfig")
	return path, clientcmd.WriteToFile(*kc, path)
}

// applySamples applies each sample with server-side apply, retrying while the freshly
// installed CRD is not served yet.
func applySamples(ctx context.Context, k8s client.Client) error {
	for _, path := range samples {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		obj.SetNamespace(sampleNamespace)
		err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("demo"), client.ForceOwnership)
			return err == nil, nil
		})
		if err != nil {
			return fmt.Errorf("applying %s: %w", path, err)
		}
	}
	return nil
}

// waitForSamples prints each change of the samples' state until the DemoApplication is
// Available with all its replicas ready and the annotated pod carries its name label.
func waitForSamples(ctx context.Context, k8s client.Client, c *localcluster.Cluster) error {
	step("Waiting for the operator")
	var last string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		if c.PID(managerName) == 0 {
			return false, fmt.Errorf("the manager exited; see %s", c.LogFile(managerName))
		}
		app := &paasv1.DemoApplication{}
		pod := &corev1.Pod{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: sampleNamespace, Name: "nginx-demo"}, app); err != nil {
			return false, nil
		}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: sampleNamespace, Name: "labeled-pod"}, pod); err != nil {
			return false, nil
		}
		available := apimeta.IsStatusConditionTrue(app.Status.Conditions, paasv1.ConditionAvailable)
		label := pod.Labels["padok.fr/pod-name"]
		state := fmt.Sprintf("    nginx-demo: %d/%d replicas ready, Available=%t; labeled-pod: padok.fr/pod-name=%q",
			app.Status.ReadyReplicas, ptr.Deref(app.Spec.Replica, 1), available, label)
		if state != last {
			fmt.Println(state)
			last = state
		}
		return available && app.Status.ReadyReplicas == ptr.Deref(app.Spec.Replica, 1) && label == pod.Name, nil
	})
	if err != nil {
		return fmt.Errorf("the samples did not converge (manager log: %s): %w", c.LogFile(managerName), err)
	}
	return nil
}

// show prints what a user checks with kubectl, and how to go further and stop.
func show(kubeconfig string, c *localcluster.Cluster) {
	env := ""
	if os.Getenv("KUBECONFIG") == "" {
		env = "export KUBECONFIG=" + kubeconfig + "\n"
	}
	// The arguments of each kubectl get.
	gets := [][]string{
		{"demoapplications", "-n", sampleNamespace},
		{"deployment,service", "nginx-demo", "-n", sampleNamespace},
		{"pods", "-n", sampleNamespace, "-o", "wide", "--show-labels"},
	}
	_, err := exec.LookPath("kubectl")
	for _, get := range gets {
		args := append([]string{"get"}, get...)
		step("kubectl %s", strings.Join(args, " "))
		if err != nil {
			fmt.Println("    (kubectl is not installed)")
			continue
		}
		cmd := exec.Command("kubectl", args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		_ = cmd.Run()
	}
	stop := "make cluster-down                      # stop the cluster and the manager, delete bin/cluster"
	if os.Getenv("KUBECONFIG") != "" {
		stop = "make cluster-down                      # stop the manager (your cluster keeps running)"
	}
	fmt.Printf(`
==> Look further
%skubectl describe demoapplication nginx-demo      # conditions and events
kubectl patch demoapplication nginx-demo --type merge -p '{"spec":{"replica":3}}'   # scale it
kubectl get pods -L padok.fr/pod-name -w       # the pod labeler at work
tail -f %s          # the manager's log

==> Stop
%s
`, env, c.LogFile(managerName), stop)
}
