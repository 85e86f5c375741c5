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

package docblock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestCommands(t *testing.T) {
	g := NewWithT(t)
	page := filepath.Join(t.TempDir(), "page.md")
	g.Expect(os.WriteFile(page, []byte(strings.Join([]string{
		"```sh", "not this block", "```",
		"<!-- run: this one -->",
		"```sh",
		"make demo",
		"helm install demo ./chart \\",
		"  -n demo --create-namespace",
		"```",
		"```sh", "nor this one", "```",
	}, "\n")), 0o600)).To(Succeed())

	commands, err := Commands(page, "<!-- run:")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(commands).To(Equal([]string{"make demo", "helm install demo ./chart \\\n  -n demo --create-namespace"}))

	_, err = Commands(page, "<!-- missing")
	g.Expect(err).To(MatchError(ContainSubstring(`no fenced block after "<!-- missing"`)))
}

func TestCommandsOf(t *testing.T) {
	g := NewWithT(t)
	page := filepath.Join(t.TempDir(), "page.md")
	g.Expect(os.WriteFile(page, []byte(strings.Join([]string{
		"Apply it (`kubectl apply -k config/a`), or `kubectl get pods`.",
		"```sh",
		"kubectl apply -f one.yaml   # a comment",
		"kubectl apply \\",
		"  -f two.yaml",
		"kubectl delete -f one.yaml",
		"```",
		"kubectl apply -f prose.yaml is no command",
	}, "\n")), 0o600)).To(Succeed())

	commands, err := CommandsOf(page, "kubectl apply ")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(commands).To(Equal([]string{"kubectl apply -k config/a", "kubectl apply -f one.yaml", "kubectl apply \\\n  -f two.yaml"}))
}

func TestShellKeepsExports(t *testing.T) {
	g := NewWithT(t)
	s := &Shell{Dir: t.TempDir(), Env: []string{"FROM_TEST=test"}}
	_, err := s.Run(t.Context(), "export GREETING=hello")
	g.Expect(err).NotTo(HaveOccurred())
	out, err := s.Run(t.Context(), `echo "$GREETING $FROM_TEST from $(basename "$PWD")"`)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(out)).To(Equal("hello test from " + filepath.Base(s.Dir) + "\n"))

	_, err = s.Run(t.Context(), "false")
	g.Expect(err).To(HaveOccurred(), "a failing command fails")
}
