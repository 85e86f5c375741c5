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

package toolscripts

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// helpWidth is the widest line make help may print: a target's line says what it does, and
// DEVELOPMENT.md the details.
const helpWidth = 100

func TestMakeHelpFitsItsWidth(t *testing.T) {
	cmd := exec.Command("make", "--no-print-directory", "help")
	cmd.Dir = "../.."
	out := output(t, cmd, "make help")
	colours := regexp.MustCompile("\x1b\\[[0-9;]*m")
	targets := 0
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(colours.ReplaceAllString(line, ""), "\n")
		if strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != "" {
			targets++
		}
		if n := utf8.RuneCountInString(line); n > helpWidth {
			t.Errorf("make help prints %d columns, more than %d: %q", n, helpWidth, line)
		}
	}
	if targets < 10 {
		t.Errorf("make help lists %d targets:\n%s", targets, out)
	}
}
