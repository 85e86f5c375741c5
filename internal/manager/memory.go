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

import "github.com/KimMachineGun/automemlimit/memlimit"

// executablePages is the part of the container's memory that the Go runtime does not
// account for: the manager's own code and read-only data, paged in from its file: 36 MiB of
// bin/manager's 45 MiB resident set when idle, rounded up for what later work pages in.
const executablePages = 48 << 20

// GoMemoryLimit is the memory the Go runtime may use in a container whose limit container
// reports: the limit less the executable's pages, which the container's limit counts and
// GOMEMLIMIT does not. A plain fraction of a 256Mi limit leaves the executable less than it
// takes, so that, under pressure, the kernel would evict the manager's own code.
func GoMemoryLimit(container memlimit.Provider) memlimit.Provider {
	return func() (uint64, error) {
		limit, err := container()
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
