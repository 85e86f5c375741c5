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

package localcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// writePKI creates the cluster's CA, the API server's serving certificate, an admin client
// certificate (group system:masters) shared by the other components, the real node's
// registry's serving certificate, the service-account signing key pair, and the front proxy's
// CA and client certificate.
func writePKI(dir string) error {
	ca, caKey, err := writeCA(dir, "ca", "demo-operator-local-ca")
	if err != nil {
		return err
	}
	if err := writeLeaf(dir, "apiserver", ca, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 0, 0, 1), net.ParseIP(NodeIP)},
	}); err != nil {
		return err
	}
	// The registry's TLS endpoint (SecureRegistryHost), for the clients that only speak TLS,
	// and the private registry (PrivateRegistryHost).
	if err := writeLeaf(dir, "registry", ca, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "registry"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP(NodeIP)},
	}); err != nil {
		return err
	}
	if err := writeLeaf(dir, "admin", ca, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "local-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return err
	}

	// The front proxy, with kubeadm's names: kube-apiserver authenticates to aggregated API
	// servers (OLM's packageserver, metrics-server) with this client certificate and passes
	// the user in request headers, which they trust because its CA signed it. Without it they
	// see kube-apiserver's requests as anonymous and their APIService never becomes available.
	proxyCA, proxyCAKey, err := writeCA(dir, "front-proxy-ca", "front-proxy-ca")
	if err != nil {
		return err
	}
	if err := writeLeaf(dir, "front-proxy-client", proxyCA, proxyCAKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: frontProxyClient},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return err
	}

	// Service-account tokens are signed with RSA, the algorithm every consumer accepts.
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, "sa.key"), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", saPub)
}

// frontProxyClient is the name kube-apiserver's front proxy authenticates as, which
// --requestheader-allowed-names admits.
const frontProxyClient = "front-proxy-client"

// writeCA creates a self-signed CA, valid for a year, and writes its certificate as name.crt.
func writeCA(dir, name, commonName string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	return ca, key, writePEM(filepath.Join(dir, name+".crt"), "CERTIFICATE", der)
}

// writeLeaf completes tmpl into a certificate signed by ca, valid as long, and writes it and
// its key as name.crt and name.key.
func writeLeaf(dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, tmpl *x509.Certificate) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = ca.NotBefore
	tmpl.NotAfter = ca.NotAfter
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, name+".crt"), "CERTIFICATE", der); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, name+".key"), "PRIVATE KEY", keyDER)
}

func writePEM(path, kind string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}
