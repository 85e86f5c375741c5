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

// Package mounts finds and removes what daemons a tool started (a kubelet, dockerd) left
// mounted under their directories.
package mounts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Under lists the mount points below dir, deepest first. The kernel lists them by their real
// paths: dir is resolved first, so that a dir reached through a symbolic link (a bin/ linked
// to another checkout's) finds its mounts too.
func Under(dir string) ([]string, error) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var mounts []string
	for _, line := range strings.Split(string(data), "\n") {
		// Octal escapes for spaces and such; the tools' paths have none.
		if fields := strings.Fields(line); len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			mounts = append(mounts, fields[4])
		}
	}
	slices.SortStableFunc(mounts, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return mounts, nil
}

// Unmount detaches every mount below dir, deepest first.
func Unmount(dir string) error {
	mounts, err := Under(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range mounts {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", m, err))
		}
	}
	return errors.Join(errs...)
}
