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

package framework

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// upWithManager starts c while it builds the manager (main.go) into dir, and returns the
// manager binary's path.
func upWithManager(ctx context.Context, c *localcluster.Cluster, dir string) (string, error) {
	bin := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", bin, "github.com/cmft/demo-operator")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Start(); err != nil {
		return "", err
	}
	upErr := c.Up(ctx)
	if err := build.Wait(); err != nil {
		return "", fmt.Errorf("building the manager: %w", err)
	}
	return bin, upErr
}

// PrintLogs writes to w the last lines of the logs of c's processes named names.
func PrintLogs(w io.Writer, c *localcluster.Cluster, lines int, names ...string) {
	for _, name := range names {
		fmt.Fprintf(w, "%s log:\n%s\n", name, c.LogTail(name, lines))
	}
}

// LogsOnFailure logs, when t fails, the last lines of the logs of c's processes named names.
func LogsOnFailure(t *testing.T, c *localcluster.Cluster, lines int, names ...string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, name := range names {
			t.Logf("%s log:\n%s", name, c.LogTail(name, lines))
		}
	})
}
