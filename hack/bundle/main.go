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

// Command bundle adds the OLM bundle to the file-based catalog: `make catalog` runs it. The
// bundle itself comes from operator-sdk (make bundle).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sirupsen/logrus"

	"github.com/cmft/demo-operator/internal/devtools/olm"
)

func main() {
	// operator-registry logs at info level that a bundle has no optional metadata files.
	logrus.SetLevel(logrus.WarnLevel)
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bundle catalog [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
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

func catalog(args []string) error {
	var o olm.CatalogOptions
	fs := flag.NewFlagSet("catalog", flag.ExitOnError)
	fs.StringVar(&o.BundleDir, "bundle", "bundle", "The bundle to add.")
	fs.StringVar(&o.BundleImage, "bundle-image", "", "Image the bundle is pushed as, which OLM pulls and unpacks (required).")
	fs.StringVar(&o.CatalogDir, "catalog", "catalog/demo-operator", "The package's directory in the catalog.")
	_ = fs.Parse(args)
	return olm.GenerateCatalog(o)
}
