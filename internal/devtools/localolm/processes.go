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

// Package localolm runs Operator Lifecycle Manager on a local cluster, in one of two ways. On
// kwok nodes (this file): OLM's CRDs and namespaces, its olm and catalog operators as processes
// of the cluster (as their Deployments would run them, but from binaries built by hack/olm.sh),
// and opm serving file-based catalogs that CatalogSources reach by address; no image is pulled
// or run. On the real node (pods.go): OLM's images built here and its upstream manifests applied.
package localolm

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

const (
	// Namespace is OLM's namespace in its upstream release: its operators, packageserver and
	// the global CatalogSources live there.
	Namespace = "olm"
	// OperatorsNamespace holds the global OperatorGroup, as in OLM's upstream install.
	OperatorsNamespace = "operators"
	// GlobalOperatorGroup targets all namespaces; operators subscribed in OperatorsNamespace join it.
	GlobalOperatorGroup = "global-operators"

	// OLMOperator and CatalogOperator are the process names of OLM's two operators.
	OLMOperator     = "olm-operator"
	CatalogOperator = "catalog-operator"

	// olmBinary and catalogBinary are the binaries of OLM's two operators (hack/olm.sh), as
	// its image holds them.
	olmBinary, catalogBinary = "olm", "catalog"
)

// fieldOwner is the server-side apply manager of what Install and Deploy apply.
const fieldOwner = "demo-operator-localolm"

// scheme knows OLM's API types next to the built-in ones.
var scheme = runtime.NewScheme()

func init() {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		operatorsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
}

// Install applies the CRDs in assets/crds (the OLM version's own, copied there by
// hack/olm.sh), waits until they are established, and creates OLM's namespaces and the global
// OperatorGroup. It is idempotent.
func Install(ctx context.Context, cfg *rest.Config, assets string) error {
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(assets, "crds", "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no CRDs in %s/crds (hack/olm.sh copies them there)", assets)
	}
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &crd.Object); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(crd),
			client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s: %w", crd.GetName(), err)
		}
		names = append(names, crd.GetName())
	}
	if err := localcluster.WaitEstablished(ctx, cfg, names...); err != nil {
		return err
	}
	for _, ns := range []string{Namespace, OperatorsNamespace} {
		err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	og := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Namespace: OperatorsNamespace, Name: GlobalOperatorGroup}}
	if err := k8s.Create(ctx, og); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// Start runs OLM's olm and catalog operators as processes of c with its admin kubeconfig, with
// the arguments of OLM's upstream Deployments, unless they run already. Neither writes OpenShift
// ClusterOperator status. Both serve health and metrics on :8080, which OLM does not let one
// change; the second to start only logs that the port is taken, as does either when another
// program holds it.
func Start(c *localcluster.Cluster, assets string) error {
	processes := []struct {
		name, bin string
		args, env []string
	}{
		// olm takes its kubeconfig from KUBECONFIG only, and ignores arguments that are not
		// flags: the path there lets Stop recognise the process as the cluster's.
		{OLMOperator, olmBinary, []string{"--namespace=" + Namespace, "--writeStatusName=", c.Kubeconfig()},
			[]string{"KUBECONFIG=" + c.Kubeconfig(), "OPERATOR_NAMESPACE=" + Namespace, "OPERATOR_NAME=" + OLMOperator}},
		{CatalogOperator, catalogBinary, []string{"--kubeconfig=" + c.Kubeconfig(), "--namespace=" + Namespace, "--writeStatusName="}, nil},
	}
	for _, p := range processes {
		if c.PID(p.name) > 0 {
			continue
		}
		if err := c.StartProcess(p.name, filepath.Join(assets, p.bin), p.args, p.env); err != nil {
			return err
		}
	}
	return nil
}

// Stop ends both OLM operators.
func Stop(c *localcluster.Cluster) error {
	if err := c.Stop(CatalogOperator); err != nil {
		return err
	}
	return c.Stop(OLMOperator)
}

// WaitProcessesReady waits until the olm operator has synced the global OperatorGroup, which it does
// once its informers run.
func WaitProcessesReady(ctx context.Context, cfg *rest.Config) error {
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		og := &operatorsv1.OperatorGroup{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: OperatorsNamespace, Name: GlobalOperatorGroup}, og); err != nil {
			return false, err
		}
		return og.Status.LastUpdated != nil, nil
	})
}

// ServeCatalog runs `opm serve` on a file-based catalog directory as process name of c, and
// returns the address a CatalogSource's spec.address takes once it listens. opm's pprof
// endpoint, on a fixed port by default, is off so that several can run; its termination log,
// a container's, goes nowhere; and its cache is built in c's state directory, where Down
// removes it, rather than in a temporary directory that a stopped opm leaves behind.
func ServeCatalog(ctx context.Context, c *localcluster.Cluster, assets, name, catalogDir string) (string, error) {
	addr, err := localcluster.FreeAddr()
	if err != nil {
		return "", err
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if err := c.StartProcess(name, filepath.Join(assets, "opm"),
		[]string{"serve", catalogDir, "--port=" + port, "--pprof-addr=", "--termination-log=" + os.DevNull,
			"--cache-dir=" + filepath.Join(c.Dir, "opm-cache", name), "--cache-enforce-integrity=false"}, nil); err != nil {
		return "", err
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false, nil
		}
		return true, conn.Close()
	})
	if err != nil {
		return "", fmt.Errorf("opm serve %s is not listening on %s (see %s): %w", catalogDir, addr, c.LogFile(name), err)
	}
	return addr, nil
}
