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

package imagebuild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ImageSpec describes an image Assemble makes from host files, without a Dockerfile.
type ImageSpec struct {
	// Name is the image's name in storage, e.g. "localhost:5000/pause:3.10".
	Name string
	// Base is the image to start from; empty starts from scratch.
	Base string
	// Files are copied into the image in order.
	Files []File
	// Entrypoint and Cmd are the image's ENTRYPOINT and CMD.
	Entrypoint []string
	Cmd        []string
	// User is the image's USER, e.g. "65532:65532"; empty keeps the base's.
	User string
	// WorkingDir is the image's WORKDIR; empty keeps the base's.
	WorkingDir string
	// Env entries are "NAME=value".
	Env []string
	// Labels are the image's labels.
	Labels map[string]string
	// Arch is the image's architecture, in GOARCH's names; empty keeps the base's (from scratch,
	// this machine's). Files are copied as they are: a binary among them must be built for it.
	Arch string
}

// File is one entry of an assembled image: exactly one of Source, Content, Link or Dir.
type File struct {
	// Path is where the entry lands in the image, absolute.
	Path string
	// Source is a host file or directory, copied with its contents (a directory recursively,
	// symbolic links kept as links).
	Source string
	// Content is the file's bytes.
	Content []byte
	// Link makes Path a symbolic link to Link.
	Link string
	// Dir makes Path an empty directory.
	Dir bool
	// Mode is the permission bits of a Content file or a Dir (default 0644 and 0755); setuid,
	// setgid and sticky bits count (os.ModeSticky for /tmp). Sources keep their host mode.
	Mode os.FileMode
	// UID and GID own the entry (default root).
	UID, GID int
}

// Assemble makes an image from spec with `buildah from`, `copy`, `config` and `commit`, and
// returns its ID. An image of the same name is replaced.
func (b *Builder) Assemble(ctx context.Context, spec ImageSpec) (id string, err error) {
	base := spec.Base
	if base == "" {
		base = "scratch"
	}
	out, err := b.buildah(ctx, "from", "--pull=false", "--quiet", base)
	if err != nil {
		return "", err
	}
	container := strings.TrimSpace(string(out))
	defer func() {
		if _, rmErr := b.buildah(context.Background(), "rm", container); rmErr != nil {
			err = errors.Join(err, rmErr)
		}
	}()

	staging, err := os.MkdirTemp("", "imagebuild-assemble-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(staging)
	for i, f := range spec.Files {
		if err := b.copyFile(ctx, container, staging, i, f); err != nil {
			return "", fmt.Errorf("assembling %s: %s: %w", spec.Name, f.Path, err)
		}
	}

	config := []string{"config"}
	if spec.Entrypoint != nil {
		config = append(config, "--entrypoint", jsonArray(spec.Entrypoint))
	}
	if spec.Cmd != nil {
		config = append(config, "--cmd", jsonArray(spec.Cmd))
	}
	if spec.User != "" {
		config = append(config, "--user", spec.User)
	}
	if spec.WorkingDir != "" {
		config = append(config, "--workingdir", spec.WorkingDir)
	}
	for _, e := range spec.Env {
		config = append(config, "--env", e)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Labels)) {
		config = append(config, "--label", k+"="+spec.Labels[k])
	}
	if spec.Arch != "" {
		config = append(config, "--os", "linux", "--arch", spec.Arch)
	}
	if len(config) > 1 {
		if _, err := b.buildah(ctx, append(config, container)...); err != nil {
			return "", err
		}
	}
	out, err = b.buildah(ctx, "commit", "--quiet", "--identity-label=false", container, spec.Name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// copyFile copies one File into container. Content, links and directories are made under
// staging first (entry i in a directory of its own), because buildah copies from the host only;
// that directory's contents are copied into the entry's parent, so that the entry keeps its mode
// (buildah gives a copied directory's destination default permissions).
func (b *Builder) copyFile(ctx context.Context, container, staging string, i int, f File) error {
	if !filepath.IsAbs(f.Path) {
		return errors.New("path must be absolute")
	}
	src, dst := f.Source, f.Path
	if src == "" {
		src = filepath.Join(staging, fmt.Sprint(i))
		if err := os.Mkdir(src, 0o755); err != nil {
			return err
		}
		entry := filepath.Join(src, filepath.Base(f.Path))
		var err error
		switch {
		case f.Link != "":
			err = os.Symlink(f.Link, entry)
		case f.Dir:
			err = chmodAfter(os.Mkdir(entry, 0o700), entry, modeOr(f.Mode, 0o755))
		default:
			err = chmodAfter(os.WriteFile(entry, f.Content, 0o600), entry, modeOr(f.Mode, 0o644))
		}
		if err != nil {
			return err
		}
		dst = strings.TrimSuffix(filepath.Dir(f.Path), "/") + "/"
	}
	_, err := b.buildah(ctx, "copy", "--quiet", "--chown", fmt.Sprintf("%d:%d", f.UID, f.GID), container, src, dst)
	return err
}

// chmodAfter sets the exact mode of what err's operation created, whatever the umask.
func chmodAfter(err error, path string, mode os.FileMode) error {
	if err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

func modeOr(m, def os.FileMode) os.FileMode {
	if m == 0 {
		return def
	}
	return m
}

// jsonArray writes args in the JSON form buildah config takes for exec-form ENTRYPOINT and CMD.
func jsonArray(args []string) string {
	data, _ := json.Marshal(args) // a []string always marshals
	return string(data)
}
