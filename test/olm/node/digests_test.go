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
	"net/http"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/test/sdkbundle"
)

// TestBundleNamesImagesByDigest: make bundle USE_IMAGE_DIGESTS=true names the manager's image
// by the digest its registry serves for the tag, in the CSV's deployment and relatedImages, as a
// disconnected cluster's mirror needs, and the CSV declares the disconnected feature.
func TestBundleNamesImagesByDigest(t *testing.T) {
	g := NewWithT(t)
	r := releases[0]
	// operator-sdk resolves the tag over TLS, trusting the cluster's CA as Go programs do.
	t.Setenv("SSL_CERT_DIR", "/etc/ssl/certs:"+cluster.RegistryCertDir())
	image := cluster.SecureImage(r.managerImage)
	dir := t.TempDir()
	g.Expect(sdkbundle.Generate(context.Background(), dir, sdkbundle.Options{Version: r.version, Image: image,
		UseImageDigests: true})).To(Succeed())
	csv, _, err := committedBundle(dir)
	g.Expect(err).NotTo(HaveOccurred())

	repository, tag, _ := strings.Cut(strings.TrimPrefix(image, cluster.SecureRegistryHost()+"/"), ":")
	pinned := cluster.SecureRegistryHost() + "/" + repository + "@" + manifestDigest(g, repository, tag)
	g.Expect(csv.Spec.RelatedImages).To(ContainElement(HaveField("Image", pinned)))
	g.Expect(csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers).
		To(ContainElement(HaveField("Image", pinned)))
	g.Expect(csv.Annotations).To(HaveKeyWithValue("features.operators.openshift.io/disconnected", "true"))
}

// manifestDigest is the digest the cluster's registry serves for repository:tag.
func manifestDigest(g Gomega, repository, tag string) string {
	req, err := http.NewRequest(http.MethodHead, "http://"+cluster.RegistryHost()+"/v2/"+repository+"/manifests/"+tag, nil)
	g.Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json")
	resp, err := http.DefaultClient.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.Body.Close()).To(Succeed())
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	return resp.Header.Get("Docker-Content-Digest")
}
