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

// Command crd-trim drops the field descriptions of a CRD's non-storage versions, in place
// (`make manifests` runs it after controller-gen). Client-side `kubectl apply` keeps the whole
// CRD in an annotation of at most 256 KiB; v1beta1 serves v1's schema, and `kubectl explain`
// reads the preferred version, v1, so v1beta1's copy of every description only cost room.
//
//	go run ./hack/crd-trim CRD.yaml...
package main

import (
	"bytes"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: crd-trim CRD.yaml...")
		os.Exit(2)
	}
	for _, path := range os.Args[1:] {
		if err := trim(path); err != nil {
			cli.Fail(err)
		}
	}
}

// trim rewrites the CRD at path without the descriptions of its non-storage versions' schemas.
func trim(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// controller-gen starts each document with "---".
	header, body, _ := bytes.Cut(data, []byte("\n"))
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(body, &crd); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, version := range crd.Spec.Versions {
		if !version.Storage && version.Schema != nil && version.Schema.OpenAPIV3Schema != nil {
			dropDescriptions(version.Schema.OpenAPIV3Schema)
		}
	}
	// Written as controller-gen writes it: without the status the API server fills in.
	object, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&crd)
	if err != nil {
		return err
	}
	delete(object, "status")
	out, err := yaml.Marshal(object)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(append(header, '\n'), out...), 0o644)
}

// dropDescriptions clears the description of schema and of every schema below it.
func dropDescriptions(schema *apiextensionsv1.JSONSchemaProps) {
	schema.Description = ""
	for name, property := range schema.Properties {
		dropDescriptions(&property)
		schema.Properties[name] = property
	}
	if schema.Items != nil && schema.Items.Schema != nil {
		dropDescriptions(schema.Items.Schema)
	}
	if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
		dropDescriptions(schema.AdditionalProperties.Schema)
	}
	for _, list := range [][]apiextensionsv1.JSONSchemaProps{schema.AllOf, schema.AnyOf, schema.OneOf} {
		for i := range list {
			dropDescriptions(&list[i])
		}
	}
}
