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

package docs_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/test/sdkbundle"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// apiReference is the page make docs generates from api/v1's Go types.
const apiReference = "docs/reference/api.md"

// TestAPIReferenceIsCurrent runs make docs in a copy of the repository and fails when the
// committed API reference is not what it writes, or does not document every field of the spec.
func TestAPIReferenceIsCurrent(t *testing.T) {
	sdkbundle.RequireTools(t, "crd-ref-docs")
	g := NewWithT(t)
	dir := t.TempDir()
	g.Expect(sdkbundle.Make(t.Context(), dir, "docs", nil, "crd-ref-docs")).To(Succeed())
	fresh, err := os.ReadFile(filepath.Join(dir, apiReference))
	g.Expect(err).NotTo(HaveOccurred())
	committed, err := os.ReadFile(filepath.Join(testenv.Root(), apiReference))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(committed)).To(Equal(string(fresh)), "%s is stale: run make docs and commit it", apiReference)

	g.Expect(string(fresh)).To(ContainSubstring("### DemoApplicationSpec\n"))
	g.Expect(string(fresh)).To(ContainSubstring("| `image` | string |"), "the spec's fields are in the reference")
}
