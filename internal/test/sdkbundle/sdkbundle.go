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

// Package sdkbundle runs `make bundle`, which generates the OLM bundle with operator-sdk's CLI,
// on a copy of the repository, so that tests get the bundle of any release exactly as a user
// would, without touching the checkout (make bundle rewrites config/manager and bundle/); Make
// runs any other target so, e.g. make build-installer.
package sdkbundle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// Options are the Makefile variables of a release; an empty one keeps the Makefile's default.
type Options struct {
	Version        string
	Image          string
	Package        string
	Channels       string
	DefaultChannel string
	// UseImageDigests names the images by digest (make bundle USE_IMAGE_DIGESTS=true).
	UseImageDigests bool
}

// Generate copies the repository's files (those git tracks or would track) into dir and runs
// make bundle there with the options. The bundle is then dir/bundle, with dir/bundle.Dockerfile.
func Generate(ctx context.Context, dir string, o Options) error {
	return Make(ctx, dir, "bundle", map[string]string{"VERSION": o.Version, "IMG": o.Image, "PACKAGE": o.Package,
		"CHANNELS": o.Channels, "DEFAULT_CHANNEL": o.DefaultChannel, "USE_IMAGE_DIGESTS": strconv.FormatBool(o.UseImageDigests)})
}

// Make copies the repository's files (those git tracks or would track) into dir and runs make
// target there with the Makefile variables vars (an empty one keeps the Makefile's default) and
// the tools of testenv.Tool: operator-sdk, kustomize, controller-gen and the more tools names.
func Make(ctx context.Context, dir, target string, vars map[string]string, more ...string) error {
	root := testenv.Root()
	files, err := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("listing the repository's files: %w", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		if err := copyFile(filepath.Join(root, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	args := []string{"-C", dir, target}
	for _, tool := range tools(more) {
		path, err := testenv.Tool(tool)
		if err != nil {
			return err
		}
		// -o: the copy's tool modules are newer than the tools, which make must not rebuild.
		args = append(args, strings.ToUpper(strings.ReplaceAll(tool, "-", "_"))+"="+path, "-o", path)
	}
	for variable, value := range vars {
		if value != "" {
			args = append(args, variable+"="+value)
		}
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("make %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// RequireTools stops test t, as testenv.Require does, unless every tool Make would run with more
// is built: make test builds them; the fast loop, make test-unit, does not.
func RequireTools(t testing.TB, more ...string) {
	t.Helper()
	for _, tool := range tools(more) {
		_, err := testenv.Tool(tool)
		testenv.Require(t, err)
	}
}

// tools are the tools Make runs with: the bundle's generators and the more tools named.
func tools(more []string) []string {
	return append([]string{"operator-sdk", "kustomize", "controller-gen"}, more...)
}

func copyFile(from, to string) error {
	info, err := os.Lstat(from)
	if os.IsNotExist(err) {
		return nil // deleted but not yet staged
	} else if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, info.Mode().Perm())
}
