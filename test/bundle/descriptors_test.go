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

package bundle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
)

const csvMarker = "+operator-sdk:csv:customresourcedefinitions:"

var (
	markerDisplayName  = regexp.MustCompile(`displayName="([^"]*)"`)
	markerXDescriptors = regexp.MustCompile(`xDescriptors=\{([^}]*)\}`)
	markerResource     = regexp.MustCompile(`\{(\w+),(\w+)\}`)
	wordBoundary       = regexp.MustCompile(`([a-z])([A-Z])`)
)

// TestCSVBaseDescribesTheKinds checks each owned version's display name, description and
// resources in the CSV base against what `operator-sdk generate kustomize manifests` derives
// from the DemoApplication type of that version: its doc comment, and the display name and
// resources of its marker (the kind split into words without one). A CSV base that says
// something else is overwritten by the real generator, so hack/bundle would not make the
// bundle operator-sdk makes.
func TestCSVBaseDescribesTheKinds(t *testing.T) {
	var base operatorsv1alpha1.ClusterServiceVersion
	readYAML(t, root+"/config/manifests/bases/demo-operator.clusterserviceversion.yaml", &base)
	for _, version := range []string{"v1", "v1beta1"} {
		t.Run(version, func(t *testing.T) {
			g := NewWithT(t)
			want := kindDescription(t, root+"/api/"+version+"/demoapplication_types.go", "DemoApplication")
			var got *operatorsv1alpha1.CRDDescription
			for i, d := range base.Spec.CustomResourceDefinitions.Owned {
				if d.Kind == "DemoApplication" && d.Version == version {
					got = &base.Spec.CustomResourceDefinitions.Owned[i]
				}
			}
			g.Expect(got).NotTo(BeNil())
			g.Expect(got.DisplayName).To(Equal(want.DisplayName), "displayName")
			g.Expect(got.Description).To(Equal(want.Description), "description")
			g.Expect(got.Resources).To(Equal(want.Resources), "resources")
		})
	}
}

// kindDescription reads the kind's type in file as operator-sdk's CSV generator does.
func kindDescription(t *testing.T, file, kind string) operatorsv1alpha1.CRDDescription {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	d := operatorsv1alpha1.CRDDescription{Kind: kind, DisplayName: wordBoundary.ReplaceAllString(kind, "$1 $2")}
	var decl *ast.GenDecl
	var previousEnd token.Pos
	for _, node := range f.Decls {
		if gd, ok := node.(*ast.GenDecl); ok && len(gd.Specs) == 1 {
			if ts, ok := gd.Specs[0].(*ast.TypeSpec); ok && ts.Name.Name == kind {
				decl = gd
				break
			}
		}
		previousEnd = node.End()
	}
	NewWithT(t).Expect(decl).NotTo(BeNil(), "type %s in %s", kind, file)
	d.Description = strings.TrimSpace(strings.ReplaceAll(decl.Doc.Text(), "\n", " "))
	// Markers sit in the comment groups between the previous declaration and the doc comment.
	for _, group := range f.Comments {
		if group.Pos() < previousEnd || group.End() >= decl.Doc.Pos() {
			continue
		}
		for _, c := range group.List {
			marker, ok := strings.CutPrefix(c.Text, "// "+csvMarker)
			if !ok || strings.Contains(marker, "type=") {
				continue
			}
			if m := markerDisplayName.FindStringSubmatch(marker); m != nil {
				d.DisplayName = m[1]
			}
			for _, m := range markerResource.FindAllStringSubmatch(marker, -1) {
				d.Resources = append(d.Resources, operatorsv1alpha1.APIResourceReference{Kind: m[1], Version: m[2]})
			}
		}
	}
	return d
}

// TestCSVBaseDescribesTheMarkers checks the owned-CRD descriptors of the CSV base against the
// +operator-sdk:csv:customresourcedefinitions markers in api/v1, which `operator-sdk generate
// kustomize manifests` writes into the base.
func TestCSVBaseDescribesTheMarkers(t *testing.T) {
	g := NewWithT(t)
	var base operatorsv1alpha1.ClusterServiceVersion
	readYAML(t, root+"/config/manifests/bases/demo-operator.clusterserviceversion.yaml", &base)
	var owned *operatorsv1alpha1.CRDDescription
	for i, d := range base.Spec.CustomResourceDefinitions.Owned {
		if d.Kind == "DemoApplication" && d.Version == "v1" {
			owned = &base.Spec.CustomResourceDefinitions.Owned[i]
		}
	}
	g.Expect(owned).NotTo(BeNil())

	f, err := parser.ParseFile(token.NewFileSet(), root+"/api/v1/demoapplication_types.go", nil, parser.ParseComments)
	g.Expect(err).NotTo(HaveOccurred())
	descriptors := map[string][]operatorsv1alpha1.SpecDescriptor{}
	ast.Inspect(f, func(n ast.Node) bool {
		field, ok := n.(*ast.Field)
		if !ok || field.Doc == nil || field.Tag == nil {
			return true
		}
		var description []string
		var marker string
		for _, line := range strings.Split(field.Doc.Text(), "\n") {
			if m, ok := strings.CutPrefix(line, csvMarker); ok {
				marker = m
			} else if line != "" && !strings.HasPrefix(line, "+") {
				description = append(description, line)
			}
		}
		if marker == "" {
			return true
		}
		d := operatorsv1alpha1.SpecDescriptor{
			Path:        strings.Split(reflect.StructTag(strings.Trim(field.Tag.Value, "`")).Get("json"), ",")[0],
			Description: strings.Join(description, " "),
		}
		if m := markerDisplayName.FindStringSubmatch(marker); m != nil {
			d.DisplayName = m[1]
		}
		if m := markerXDescriptors.FindStringSubmatch(marker); m != nil {
			for _, x := range strings.Split(m[1], ",") {
				d.XDescriptors = append(d.XDescriptors, strings.Trim(x, `"`))
			}
		}
		kind := strings.TrimPrefix(strings.Split(marker, ",")[0], "type=")
		descriptors[kind] = append(descriptors[kind], d)
		return true
	})

	t.Run("spec", func(t *testing.T) {
		NewWithT(t).Expect(owned.SpecDescriptors).To(ConsistOf(descriptors["spec"]))
	})
	t.Run("status", func(t *testing.T) {
		var status []operatorsv1alpha1.SpecDescriptor
		for _, d := range owned.StatusDescriptors {
			status = append(status, operatorsv1alpha1.SpecDescriptor{
				Path: d.Path, DisplayName: d.DisplayName, Description: d.Description, XDescriptors: d.XDescriptors,
			})
		}
		NewWithT(t).Expect(status).To(ConsistOf(descriptors["status"]))
	})
}
