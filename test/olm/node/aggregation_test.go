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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cmft/demo-operator/hack/cluster/localcluster"
)

// frontProxyClient is the name kube-apiserver's aggregator proxies as.
const frontProxyClient = "front-proxy-client"

// What OLM needs of a cluster that the local cluster lacks, added by restarting its
// components with more flags.
//
// TODO(lead): these belong in hack/cluster/localcluster (writePKI and args), which this
// branch may not edit; then this file goes.
func completeCluster(ctx context.Context) error {
	if err := enableAggregation(ctx); err != nil {
		return fmt.Errorf("kube-apiserver's front proxy: %w", err)
	}
	// Bundle unpack Jobs need the Job controller to get a pod.
	return restartWith(localcluster.ControllerManager, func(args []string) []string {
		for i, a := range args {
			if strings.HasPrefix(a, "--controllers=") {
				args[i] = a + ",job-controller"
			}
		}
		return args
	})
}

// restartWith restarts one of the cluster's processes with its arguments changed by edit.
func restartWith(name string, edit func([]string) []string) error {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(cluster.PID(name)) + "/cmdline")
	if err != nil {
		return err
	}
	args := edit(strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")[1:])
	if err := cluster.Stop(name); err != nil {
		return err
	}
	return cluster.StartProcess(name, filepath.Join(cluster.BinDir, name), args, nil)
}

// enableAggregation restarts the cluster's kube-apiserver with the front proxy that
// aggregated API servers such as packageserver authenticate it by (kubeadm's flags and
// names): a CA of its own, a client certificate signed by it, and the headers that carry the
// user. Without them packageserver sees kube-apiserver's requests as anonymous and answers
// 403, and its APIService never becomes available.
func enableAggregation(ctx context.Context) error {
	dir := filepath.Join(cluster.Dir, "front-proxy")
	if err := writeFrontProxyPKI(dir); err != nil {
		return err
	}
	flags := []string{
		"--requestheader-client-ca-file=" + filepath.Join(dir, "ca.crt"),
		"--requestheader-allowed-names=" + frontProxyClient,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + filepath.Join(dir, "client.crt"),
		"--proxy-client-key-file=" + filepath.Join(dir, "client.key"),
	}
	if err := restartWith(localcluster.APIServer, func(args []string) []string { return append(args, flags...) }); err != nil {
		return err
	}
	return cluster.WaitAPIServer(ctx)
}

// writeFrontProxyPKI writes the front proxy's CA and client certificate into dir.
func writeFrontProxyPKI(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "front-proxy-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: frontProxyClient},
		NotBefore: ca.NotBefore, NotAfter: ca.NotAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	for name, block := range map[string]*pem.Block{
		"ca.crt": {Type: "CERTIFICATE", Bytes: caDER}, "client.crt": {Type: "CERTIFICATE", Bytes: der},
		"client.key": {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			return fmt.Errorf("front proxy %s: %w", name, err)
		}
	}
	return nil
}
