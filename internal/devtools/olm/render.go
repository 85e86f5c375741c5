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

package olm

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"os"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/pkg/image"
	"github.com/operator-framework/operator-registry/pkg/image/containerdregistry"
	"github.com/operator-framework/operator-registry/pkg/lib/bundle"
	"github.com/sirupsen/logrus"
)

// RegistryOptions say how to reach the registry bundle images are pulled from.
type RegistryOptions struct {
	// PlainHTTP pulls over HTTP (operator-sdk's --use-http).
	PlainHTTP bool
	// SkipTLSVerify accepts any certificate (operator-sdk's --skip-tls-verify).
	SkipTLSVerify bool
	// RootCAs verify the registry's certificate; nil means the machine's (which SSL_CERT_DIR
	// extends, as for operator-sdk).
	RootCAs *x509.CertPool
}

// RenderBundleImage is `opm render <image>` of a bundle image: the image pulled with operator-registry's
// containerd-based registry client, as operator-sdk pulls it, into a cache that is removed
// afterwards, and its manifests turned into an olm.bundle that names the image.
//
// opm's own Render (alpha/action) is not used: that package links containers/image's gpgme
// binding, which a cgo build (go build's default) cannot link without libgpgme's headers; opm
// and operator-sdk are built with the containers_image_openpgp tag, which `go build ./...`
// cannot set. The steps are the ones Render takes for a bundle image; the unpacked bundle is
// rendered as make catalog renders bundle/.
func RenderBundleImage(ctx context.Context, ref string, opts RegistryOptions) (*declcfg.Bundle, error) {
	dir, err := os.MkdirTemp("", "olmrun-render-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	options := []containerdregistry.RegistryOption{containerdregistry.WithCacheDir(dir + "/cache"),
		containerdregistry.WithPlainHTTP(opts.PlainHTTP), containerdregistry.SkipTLSVerify(opts.SkipTLSVerify),
		containerdregistry.WithLog(logrus.NewEntry(quiet))}
	if opts.RootCAs != nil {
		options = append(options, containerdregistry.WithRootCAs(opts.RootCAs))
	}
	reg, err := containerdregistry.NewRegistry(options...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = reg.Destroy() }()
	img := image.SimpleReference(ref)
	if err := reg.Pull(ctx, img); err != nil {
		return nil, fmt.Errorf("pulling %s: %w", ref, err)
	}
	labels, err := reg.Labels(ctx, img)
	if err != nil {
		return nil, err
	}
	if _, ok := labels[bundle.PackageLabel]; !ok {
		return nil, fmt.Errorf("%s is not a bundle image: it has no %s label", ref, bundle.PackageLabel)
	}
	unpacked := dir + "/bundle"
	if err := reg.Unpack(ctx, img, unpacked); err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", ref, err)
	}
	b, _, err := RenderBundleDir(unpacked, ref)
	return b, err
}
