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

package manager

import (
	"errors"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// executablePages is the part of the container's memory that the Go runtime does not
// account for: the manager's own code and read-only data, paged in from its file, as much as
// an idle bin/manager holds, rounded up for what later work pages in (bench/README.md).
const executablePages = 48 << 20

// DefaultMemoryLimit is the memory limit config/, the chart and the bundle give the manager's
// container. Without a limit (a manager run outside a container, or a pod given none) the
// manager keeps to this one: the garbage collector would otherwise let the heap double
// before it runs, so that memory grows with no cap a user chose.
const DefaultMemoryLimit = 256 << 20

// MemoryLimitRatio is the share of its memory, less the executable's pages, that the Go
// runtime aims to stay under (AUTOMEMLIMIT replaces it). The rest is room above the target:
// GOMEMLIMIT is soft, and a relist holds the old cache beside the new list until it replaces
// it; the container's limit is hard. It keeps 150,000 pods within the memory an install is
// meant to stay under; a lower one would leave the collector too little room to work in
// (bench/RESULTS-150k-memory.md).
const MemoryLimitRatio = 0.55

// GoMemoryLimit is the memory the Go runtime may use, before the ratio, in a container whose
// limit container reports, or of DefaultMemoryLimit when there is none (or no cgroup): the
// limit less the executable's pages, which the container's limit counts and GOMEMLIMIT does
// not. A limit that cannot be read is an error, which leaves GOMEMLIMIT unset.
func GoMemoryLimit(container memlimit.Provider) memlimit.Provider {
	return func() (uint64, error) {
		limit, err := container()
		if errors.Is(err, memlimit.ErrNoLimit) || errors.Is(err, memlimit.ErrNoCgroup) || errors.Is(err, memlimit.ErrCgroupsNotSupported) {
			limit, err = DefaultMemoryLimit, nil
		}
		if err != nil {
			return 0, err
		}
		if limit < 2*executablePages {
			// Too small to set the executable apart: the process is in trouble anyway.
			return limit / 2, nil
		}
		return limit - executablePages, nil
	}
}
