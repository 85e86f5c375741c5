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
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestThreatModelNamesTests checks that every row of docs/operate/security.md's threat model
// names a test, and that each test it names, and each quoted subtest, exists in the package
// the row says: a claim of the security page is a test that acts as the attacker.
func TestThreatModelNamesTests(t *testing.T) {
	g := NewWithT(t)
	doc, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "operate", "security.md"))
	g.Expect(err).NotTo(HaveOccurred())
	_, model, found := strings.Cut(string(doc), "\n## Threat model\n")
	g.Expect(found).To(BeTrue(), "docs/operate/security.md has a Threat model section")

	// A cell names tests as `package: TestA, TestB` followed by optional "subtest" names;
	// several such groups are separated by ';'.
	group := regexp.MustCompile("`([a-z0-9/]+): ([A-Za-z0-9_, ]+)`((?:,? ?\"[^\"]+\")*)")
	quoted := regexp.MustCompile(`"([^"]+)"`)
	rows := 0
	for _, line := range strings.Split(model, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 4 || strings.HasPrefix(line, "| actor") || strings.HasPrefix(line, "|---") {
			continue
		}
		rows++
		groups := group.FindAllStringSubmatch(cells[3], -1)
		g.Expect(groups).NotTo(BeEmpty(), "the row %q names no test", line)
		for _, m := range groups {
			source := packageSource(g, m[1])
			for _, name := range strings.Split(m[2], ",") {
				name = strings.TrimSpace(name)
				g.Expect(source).To(ContainSubstring("func "+name+"("), "%s has no %s (row %q)", m[1], name, cells[0]+" "+cells[1])
			}
			for _, sub := range quoted.FindAllStringSubmatch(m[3], -1) {
				g.Expect(source).To(ContainSubstring(`"`+sub[1]), "%s has no subtest %q", m[1], sub[1])
			}
		}
	}
	g.Expect(rows).To(BeNumerically(">=", 10), "the threat model's table")
}

// packageSource returns the Go test files of the repository's package dir, joined.
func packageSource(g Gomega, dir string) string {
	files, err := filepath.Glob(filepath.Join(testenv.Root(), dir, "*_test.go"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).NotTo(BeEmpty(), "no tests in %s", dir)
	var out strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		g.Expect(err).NotTo(HaveOccurred())
		out.Write(data)
	}
	return out.String()
}
