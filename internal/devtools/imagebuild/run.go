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
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// RunOptions say how Run and Start run an image.
type RunOptions struct {
	// Args replace the image's CMD after its ENTRYPOINT, as `docker run image args…` does; nil
	// keeps the CMD.
	Args []string
	// Env entries ("NAME=value") are added to the image's environment.
	Env []string
	// ReadOnlyRoot mounts the image's filesystem read-only, as a pod's readOnlyRootFilesystem.
	ReadOnlyRoot bool
	// Mounts are bind mounts from the host, e.g. a kubeconfig.
	Mounts []Mount
	// Stdout and Stderr receive the process's output; nil discards it.
	Stdout, Stderr io.Writer
}

// Mount is a bind mount from the host into a container run by Run or Start.
type Mount struct {
	Source, Destination string
	ReadOnly            bool
}

// Container is an image running under runc, started by Start.
type Container struct {
	id      string
	cmd     *exec.Cmd
	done    chan struct{}
	err     error
	release func() error
}

var containerSeq atomic.Int64

// Run runs image's entrypoint to completion under runc, as its USER with its environment and
// working directory, in new PID, mount, IPC and UTS namespaces but the host's network (so it
// reaches and serves on the host's 127.0.0.1), with runc's default capabilities (the few a
// container runtime grants) and no new privileges. A non-zero exit is an *exec.ExitError.
func (b *Builder) Run(ctx context.Context, image string, o RunOptions) error {
	c, err := b.Start(ctx, image, o)
	if err != nil {
		return err
	}
	<-c.done
	return errors.Join(c.err, c.cleanup())
}

// Start starts image's entrypoint under runc like Run, and returns without waiting; Stop ends it,
// and so does the end of ctx.
func (b *Builder) Start(ctx context.Context, image string, o RunOptions) (*Container, error) {
	img, err := b.Inspect(ctx, image)
	if err != nil {
		return nil, err
	}
	root, release, err := b.Mount(ctx, image)
	if err != nil {
		return nil, err
	}
	c := &Container{
		id:      fmt.Sprintf("imagebuild-%d-%d", os.Getpid(), containerSeq.Add(1)),
		done:    make(chan struct{}),
		release: release,
	}
	bundle, err := os.MkdirTemp("", "imagebuild-bundle-")
	if err != nil {
		return nil, errors.Join(err, release())
	}
	c.release = func() error { return errors.Join(os.RemoveAll(bundle), release()) }
	if err := writeRuntimeSpec(ctx, bundle, root, img, o); err != nil {
		return nil, errors.Join(err, c.release())
	}
	c.cmd = exec.Command("runc", "run", "--bundle", bundle, c.id)
	c.cmd.Stdout, c.cmd.Stderr = o.Stdout, o.Stderr
	if err := c.cmd.Start(); err != nil {
		return nil, errors.Join(err, c.release())
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = exec.Command("runc", "kill", c.id, "KILL").Run()
		case <-c.done:
		}
	}()
	return c, nil
}

// Done is closed when the container's process has exited.
func (c *Container) Done() <-chan struct{} { return c.done }

// Stop kills the container's processes, waits for them, and removes the container.
func (c *Container) Stop() error {
	select {
	case <-c.done:
	default:
		_ = exec.Command("runc", "kill", c.id, "KILL").Run()
		select {
		case <-c.done:
		case <-time.After(30 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
	return c.cleanup()
}

func (c *Container) cleanup() error {
	// runc leaves a container's state behind when it is killed.
	_ = exec.Command("runc", "delete", "--force", c.id).Run()
	return c.release()
}

// writeRuntimeSpec writes bundle/config.json: runc's default spec, with the image's process and
// o's options.
func writeRuntimeSpec(ctx context.Context, bundle, root string, img *Image, o RunOptions) error {
	if out, err := exec.CommandContext(ctx, "runc", "spec", "--bundle", bundle).CombinedOutput(); err != nil {
		return fmt.Errorf("runc spec: %w: %s", err, out)
	}
	path := filepath.Join(bundle, "config.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var spec specs.Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		return err
	}
	cfg := img.OCI.Config
	user, err := resolveUser(root, cfg.User)
	if err != nil {
		return err
	}
	args := o.Args
	if args == nil {
		args = cfg.Cmd
	}
	spec.Root = &specs.Root{Path: root, Readonly: o.ReadOnlyRoot}
	spec.Process.Terminal = false
	spec.Process.Args = append(append([]string{}, cfg.Entrypoint...), args...)
	spec.Process.Env = append(append([]string{}, cfg.Env...), o.Env...)
	spec.Process.Cwd = cmp.Or(cfg.WorkingDir, "/")
	spec.Process.User = user
	spec.Hostname = "imagebuild"
	// The host's network: no network namespace of the container's own.
	var namespaces []specs.LinuxNamespace
	for _, ns := range spec.Linux.Namespaces {
		if ns.Type != specs.NetworkNamespace {
			namespaces = append(namespaces, ns)
		}
	}
	spec.Linux.Namespaces = namespaces
	// A name server and hosts file, as container runtimes provide.
	for _, f := range []string{"/etc/resolv.conf", "/etc/hosts"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			spec.Mounts = append(spec.Mounts, specs.Mount{Destination: f, Type: "bind", Source: f, Options: []string{"rbind", "ro"}})
		}
	}
	for _, m := range o.Mounts {
		opts := []string{"rbind"}
		if m.ReadOnly {
			opts = append(opts, "ro")
		}
		spec.Mounts = append(spec.Mounts, specs.Mount{Destination: m.Destination, Type: "bind", Source: m.Source, Options: opts})
	}
	data, err = json.MarshalIndent(&spec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// resolveUser turns an image's USER ("uid", "uid:gid", "name" or "name:group") into the IDs
// runtimes run its process as, reading names from the image's /etc/passwd and /etc/group.
func resolveUser(root, user string) (specs.User, error) {
	if user == "" {
		return specs.User{}, nil
	}
	name, group, hasGroup := strings.Cut(user, ":")
	uid, gid, err := lookupID(filepath.Join(root, "etc", "passwd"), name)
	if err != nil {
		return specs.User{}, fmt.Errorf("image user %q: %w", user, err)
	}
	if hasGroup {
		if gid, _, err = lookupID(filepath.Join(root, "etc", "group"), group); err != nil {
			return specs.User{}, fmt.Errorf("image group %q: %w", user, err)
		}
	}
	return specs.User{UID: uint32(uid), GID: uint32(gid)}, nil
}

// lookupID returns the ID (third field) and, for passwd, the primary group (fourth field) of
// name in a passwd or group file. A numeric name is its own ID, with primary group the passwd
// entry's if there is one and the same number otherwise.
func lookupID(file, name string) (id, gid int, err error) {
	numeric, numErr := strconv.Atoi(name)
	if numErr == nil {
		id, gid = numeric, numeric
	}
	f, err := os.Open(file)
	if err != nil {
		if numErr == nil {
			return id, gid, nil
		}
		return 0, 0, err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Split(scanner.Text(), ":")
		if len(fields) < 3 {
			continue
		}
		entryID, err := strconv.Atoi(fields[2])
		if err != nil || (fields[0] != name && (numErr != nil || entryID != numeric)) {
			continue
		}
		gid = entryID
		if len(fields) > 3 {
			if g, err := strconv.Atoi(fields[3]); err == nil {
				gid = g
			}
		}
		return entryID, gid, nil
	}
	if numErr == nil {
		return id, gid, scanner.Err()
	}
	return 0, 0, fmt.Errorf("%s not in %s", name, file)
}

// Pid returns the host PID of the container's first process, to observe it from the host
// (/proc/<pid>/status, /proc/<pid>/mountinfo).
func (c *Container) Pid() (int, error) {
	out, err := exec.Command("runc", "state", c.id).Output()
	if err != nil {
		return 0, fmt.Errorf("runc state %s: %w", c.id, err)
	}
	var state specs.State
	if err := json.Unmarshal(out, &state); err != nil {
		return 0, err
	}
	return state.Pid, nil
}
