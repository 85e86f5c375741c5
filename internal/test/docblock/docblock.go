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

// Package docblock runs the commands a page of the docs gives a reader: the fenced block after
// a marker comment, each command in order, in one shell session as the reader would type them.
package docblock

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
)

// Commands reads the commands of the fenced block after the first line of the Markdown file
// path that starts with marker, a command continued on the next line by a final backslash
// being one.
func Commands(path, marker string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var commands []string
	var command strings.Builder
	marked, inBlock := false, false
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case !marked && strings.HasPrefix(line, marker):
			marked = true
		case marked && !inBlock && strings.HasPrefix(line, "```"):
			inBlock = true
		case inBlock && strings.HasPrefix(line, "```"):
			return commands, nil
		case inBlock:
			command.WriteString(line + "\n")
			if !strings.HasSuffix(line, `\`) {
				commands = append(commands, strings.TrimSpace(command.String()))
				command.Reset()
			}
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s has no fenced block after %q", path, marker)
}

// codeSpan is a code span of prose: `...`.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// CommandsOf returns every command of the Markdown file at path that starts with prefix: those
// of its fenced blocks, a command continued on the next line by a final backslash being one and
// a comment after it dropped, and the code spans of its prose, so that a page's new command is
// found without a marker.
func CommandsOf(path, prefix string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var commands []string
	var command strings.Builder
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
		case inBlock:
			command.WriteString(line + "\n")
			if !strings.HasSuffix(line, `\`) {
				c, _, _ := strings.Cut(command.String(), " #")
				commands = append(commands, strings.TrimSpace(c))
				command.Reset()
			}
		default:
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				commands = append(commands, m[1])
			}
		}
	}
	var found []string
	for _, c := range commands {
		if strings.HasPrefix(c, prefix) {
			found = append(found, c)
		}
	}
	return found, nil
}

// Shell runs commands with bash as one session would: the variables an export command sets
// hold for the commands after it.
type Shell struct {
	// Dir is where the commands run, the repository's root for the docs' blocks.
	Dir string
	// Env is added to the test's environment, as the reader's own (PATH, KUBECONFIG).
	Env     []string
	exports []string
}

// Run runs command after the exports run so far and returns its output, stdout and stderr
// interleaved as a terminal shows them.
func (s *Shell) Run(ctx context.Context, command string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "bash", "-ec", strings.Join(append(s.exports, command), "\n"))
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	out, err := cmd.CombinedOutput()
	if err == nil && strings.HasPrefix(command, "export ") {
		s.exports = append(s.exports, command)
	}
	return out, err
}

// Step runs command as Run does, logs it with its time and the last lines of its output, and
// fails t, naming page, when it fails. It returns the output.
func (s *Shell) Step(ctx context.Context, t testing.TB, page, command string) []byte {
	t.Helper()
	start := time.Now()
	out, err := s.Run(ctx, command)
	t.Logf("$ %s\n(%s)\n%s", command, time.Since(start).Round(100*time.Millisecond), imagebuild.Tail(string(out), 12))
	if err != nil {
		t.Fatalf("%s: %s: %v\n%s", page, command, err, out)
	}
	return out
}
