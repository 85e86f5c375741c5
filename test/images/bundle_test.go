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

package images

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/operator-registry/pkg/lib/bundle"
	"github.com/sirupsen/logrus"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

func TestBundleImage(t *testing.T) {
	name := image(t, bundleImage)
	ctx := context.Background()
	bundleDir := filepath.Join(testenv.Root(), "bundle")

	t.Run("its labels are bundle/metadata/annotations.yaml", func(t *testing.T) {
		// OLM reads the package and channels of a bundle image from its labels.
		g := NewWithT(t)
		var annotations struct {
			Annotations map[string]string `json:"annotations"`
		}
		data, err := os.ReadFile(filepath.Join(bundleDir, "metadata", "annotations.yaml"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(yaml.Unmarshal(data, &annotations)).To(Succeed())
		img, err := builder.Inspect(ctx, name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(img.OCI.Config.Labels).To(Equal(annotations.Annotations))
	})

	root, release, err := builder.Mount(ctx, name)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	defer func() { NewWithT(t).Expect(release()).To(Succeed()) }()

	t.Run("its content is bundle/", func(t *testing.T) {
		g := NewWithT(t)
		for _, dir := range []string{"manifests", "metadata", "tests/scorecard"} {
			g.Expect(tree(t, filepath.Join(root, dir))).To(Equal(tree(t, filepath.Join(bundleDir, dir))), "the image's /%s is bundle/%s", dir, dir)
		}
	})

	// What `opm alpha bundle validate` runs on a bundle image once it has unpacked it.
	validator := bundle.NewImageValidator(nil, logrus.NewEntry(logrus.StandardLogger()))
	t.Run("operator-registry validates its format", func(t *testing.T) {
		NewWithT(t).Expect(validator.ValidateBundleFormat(root)).To(Succeed())
	})
	t.Run("operator-registry validates its manifests", func(t *testing.T) {
		NewWithT(t).Expect(validator.ValidateBundleContent(filepath.Join(root, "manifests"))).To(Succeed())
	})
}

// tree maps the path of each file under dir to its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(data)
		return err
	})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return files
}
