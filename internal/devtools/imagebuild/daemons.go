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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cmft/demo-operator/internal/devtools/mounts"
)

// Registry is a Distribution registry (Debian's docker-registry) serving plain HTTP on a free
// loopback port, with its storage in a directory of its own. docker, podman and buildah all
// push to it: docker treats a 127.0.0.1 registry as insecure without configuration, podman and
// buildah need --tls-verify=false.
type Registry struct {
	// Host is the registry's host:port, for image references.
	Host string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartRegistry starts a registry storing under dir and waits until it serves.
func StartRegistry(ctx context.Context, dir string) (*Registry, error) {
	if _, err := exec.LookPath("docker-registry"); err != nil {
		return nil, errors.New("docker-registry is not installed (Debian: apt-get install docker-registry)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	host := l.Addr().String()
	_ = l.Close()
	config := fmt.Sprintf("version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n",
		filepath.Join(dir, "data"), host)
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte(config), 0o600); err != nil {
		return nil, err
	}
	r := &Registry{Host: host, done: make(chan struct{})}
	var out bytes.Buffer
	r.cmd = exec.Command("docker-registry", "serve", filepath.Join(dir, "config.yml"))
	r.cmd.Stdout, r.cmd.Stderr = &out, &out
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	err = waitFor(ctx, r.done, func() bool {
		res, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			_ = res.Body.Close()
		}
		return err == nil && res.StatusCode == http.StatusOK
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("docker-registry: %w: %s", err, Tail(out.String(), 20)), r.Stop())
	}
	return r, nil
}

// Stop stops the registry; its storage stays in its directory.
func (r *Registry) Stop() error {
	return stopProcess(r.cmd, r.done)
}

// Dockerd is a Docker daemon of a test's own: its images, containers, state, pid file and
// socket under one directory, no iptables rules, no bridge and no IP forwarding, so that it
// changes nothing on the machine; builds use the host's network (--network host). It starts its
// own containerd, under its exec root.
type Dockerd struct {
	// Host is its socket, as DOCKER_HOST names it.
	Host string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
}

// StartDockerd starts dockerd (Debian: docker.io) in a new directory under dir and waits until
// it answers. It pushes to insecureRegistries (host:port) over plain HTTP, as it does to
// loopback ones without being told. Stop stops it and removes that directory.
func StartDockerd(ctx context.Context, dir string, insecureRegistries ...string) (*Dockerd, error) {
	if _, err := exec.LookPath("dockerd"); err != nil {
		return nil, errors.New("dockerd is not installed (Debian: apt-get install docker.io)")
	}
	// A short path: containerd's sockets live under the exec root, and a socket's path has at
	// most 107 bytes.
	dir, err := os.MkdirTemp(dir, "dockerd-")
	if err != nil {
		return nil, err
	}
	// A configuration of its own, so that the machine's /etc/docker/daemon.json plays no part.
	config, err := json.Marshal(map[string][]string{"insecure-registries": append([]string{}, insecureRegistries...)})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "daemon.json"), config, 0o600); err != nil {
		return nil, err
	}
	d := &Dockerd{Host: "unix://" + filepath.Join(dir, "docker.sock"), dir: dir, done: make(chan struct{}), log: &bytes.Buffer{}}
	d.cmd = exec.Command("dockerd",
		"--config-file", filepath.Join(dir, "daemon.json"),
		"--data-root", filepath.Join(dir, "data"),
		"--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "docker.pid"),
		"--host", d.Host,
		"--iptables=false", "--ip6tables=false", "--ip-forward=false", "--ip-masq=false", "--bridge=none",
		"--log-level=warn")
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	go func() { _ = d.cmd.Wait(); close(d.done) }()
	err = waitFor(ctx, d.done, func() bool {
		return d.Docker(ctx, "version").Run() == nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("dockerd: %w: %s", err, Tail(d.log.String(), 20)), d.Stop())
	}
	return d, nil
}

// Env is the environment of docker commands that talk to d with the classic builder: docker
// 20.10 without the buildx plugin has no BuildKit.
func (d *Dockerd) Env() []string {
	return append(os.Environ(), "DOCKER_HOST="+d.Host, "DOCKER_BUILDKIT=0")
}

// Docker is a docker command talking to d.
func (d *Dockerd) Docker(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = d.Env()
	return cmd
}

// Load copies images from containers-storage into d, under the same names, as the base images
// of docker builds on a machine that pulls none: Docker's image store has one platform per
// name, the build machine's, which is what a manifest list's name resolves to.
func (d *Dockerd) Load(ctx context.Context, b *Builder, images ...string) error {
	for _, image := range images {
		archive := filepath.Join(d.dir, "load.tar")
		if err := b.Push(ctx, image, "docker-archive:"+archive+":"+image, PushOptions{}); err != nil {
			return err
		}
		out, err := d.Docker(ctx, "load", "--input", archive).CombinedOutput()
		if err := errors.Join(err, os.Remove(archive)); err != nil {
			return fmt.Errorf("docker load %s: %w: %s", image, err, out)
		}
	}
	return nil
}

// Stop stops dockerd (and with it its containerd), unmounts what it leaves mounted under its
// directory (the nsfs mount of its default network namespace, overlays) and removes the
// directory.
func (d *Dockerd) Stop() error {
	err := stopProcess(d.cmd, d.done)
	return errors.Join(err, mounts.Unmount(d.dir), os.RemoveAll(d.dir))
}

// stopProcess sends SIGTERM to a process started by cmd, and SIGKILL when it has not exited
// (done closed) within 30 seconds.
func stopProcess(cmd *exec.Cmd, done <-chan struct{}) error {
	select {
	case <-done:
		return nil
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
	}
	if err := cmd.Process.Kill(); err != nil {
		return err
	}
	<-done
	return fmt.Errorf("%s did not stop on SIGTERM within 30s: killed", filepath.Base(cmd.Path))
}

// waitFor polls ready until it is true, the process has exited (done closed) or a minute has
// passed.
func waitFor(ctx context.Context, done <-chan struct{}, ready func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for !ready() {
		select {
		case <-done:
			return errors.New("exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}
