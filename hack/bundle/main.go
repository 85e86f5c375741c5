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

// Command bundle writes the OLM bundle from config/manifests and adds it to the file-based
// catalog; `make bundle` and `make catalog` run it when operator-sdk and opm are not installed.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/cmft/demo-operator/internal/olmbundle"
)

func main() {
	// operator-registry logs at info level that a bundle has no optional metadata files.
	logrus.SetLevel(logrus.WarnLevel)
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bundle generate|catalog [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "generate":
		err = generate(os.Args[2:])
	case "catalog":
		err = catalog(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func generate(args []string) error {
	var o olmbundle.Options
	var channels string
	fs := flag.NewFlagSet("generate", flag.ExitOnError)
	fs.StringVar(&o.ManifestsDir, "manifests", "config/manifests", "Kustomization to build the bundle from.")
	fs.StringVar(&o.OutputDir, "output-dir", "bundle", "Directory to write the bundle to.")
	fs.StringVar(&o.DockerfilePath, "dockerfile", "bundle.Dockerfile", "Where to write the bundle's Dockerfile.")
	fs.StringVar(&o.Package, "package", "demo-operator", "OLM package name.")
	fs.StringVar(&o.Version, "version", "", "Semantic version of the release.")
	fs.StringVar(&o.Image, "image", "", "The manager's image.")
	fs.StringVar(&channels, "channels", "stable", "Comma-separated channels of the release.")
	fs.StringVar(&o.DefaultChannel, "default-channel", "stable", "The package's default channel.")
	_ = fs.Parse(args)
	o.Channels = strings.Split(channels, ",")
	if o.Version == "" || o.Image == "" {
		return fmt.Errorf("--version and --image are required")
	}
	return olmbundle.GenerateBundle(o)
}

func catalog(args []string) error {
	var o olmbundle.CatalogOptions
	fs := flag.NewFlagSet("catalog", flag.ExitOnError)
	fs.StringVar(&o.BundleDir, "bundle", "bundle", "The bundle to add.")
	fs.StringVar(&o.BundleImage, "bundle-image", "", "Image the bundle is pushed as, which OLM pulls and unpacks (required).")
	fs.StringVar(&o.CatalogDir, "catalog", "catalog/demo-operator", "The package's directory in the catalog.")
	_ = fs.Parse(args)
	return olmbundle.GenerateCatalog(o)
}
