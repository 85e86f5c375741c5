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
	"os"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

func TestGoMemoryLimit(t *testing.T) {
	const mi = 1 << 20
	for _, tc := range []struct{ container, want uint64 }{
		{256 * mi, 208 * mi}, // the chart's default limit
		{1024 * mi, 976 * mi},
		{64 * mi, 32 * mi},
	} {
		got, err := GoMemoryLimit(memlimit.Limit(tc.container))()
		if err != nil || got != tc.want {
			t.Errorf("container limit %d MiB: got %d MiB, %v; want %d MiB", tc.container/mi, got/mi, err, tc.want/mi)
		}
	}
	for _, none := range []error{memlimit.ErrNoLimit, memlimit.ErrNoCgroup, memlimit.ErrCgroupsNotSupported} {
		if got, err := GoMemoryLimit(func() (uint64, error) { return 0, none })(); err != nil || got != 208*mi {
			t.Errorf("no container limit (%v): got %d MiB, %v; want the default limit's 208 MiB", none, got/mi, err)
		}
	}
	if _, err := GoMemoryLimit(func() (uint64, error) { return 0, os.ErrPermission })(); err != os.ErrPermission {
		t.Errorf("limit unreadable: got %v, want os.ErrPermission, which leaves GOMEMLIMIT unset", err)
	}
}
