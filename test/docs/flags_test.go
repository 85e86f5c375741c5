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
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

var flagName = regexp.MustCompile("`--([a-z0-9-]+)`")

// TestConfigureListsEveryFlag: docs/configure.md's table of flags names every flag the manager
// binds, with its default as the flag set gives it, and no flag the manager does not have.
func TestConfigureListsEveryFlag(t *testing.T) {
	g := NewWithT(t)
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	(&manager.Options{}).BindFlags(fs)
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "configure.md"))
	g.Expect(err).NotTo(HaveOccurred())

	// Each row: the flags it names, and its default column.
	defaults := map[string]string{}
	for _, line := range strings.Split(section(string(data), "## Flags"), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !strings.HasPrefix(line, "| `--") || len(cells) < 2 {
			continue
		}
		for _, m := range flagName.FindAllStringSubmatch(cells[0], -1) {
			defaults[m[1]] = cells[1]
		}
	}
	g.Expect(defaults).To(HaveKey("leader-elect"), "the table is read")

	fs.VisitAll(func(f *flag.Flag) {
		column, ok := defaults[f.Name]
		g.Expect(ok).To(BeTrue(), "--%s is not in docs/configure.md", f.Name)
		if f.DefValue != "" {
			g.Expect(column).To(ContainSubstring("`"+f.DefValue+"`"), "--%s defaults to %s", f.Name, f.DefValue)
		}
	})
	for name := range defaults {
		if !strings.HasPrefix(name, "zap-") {
			g.Expect(fs.Lookup(name)).NotTo(BeNil(), "docs/configure.md names --%s, which the manager does not have", name)
		}
	}
}
