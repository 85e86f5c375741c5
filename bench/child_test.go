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

package bench

import (
	"net/http"
	"testing"

	"github.com/cmft/demo-operator/internal/test/requestcount"
)

type answer int

func (a answer) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: int(a)}, nil
}

// TestWriteFigures counts a child's writes by resource, refusals apart, reads not at all,
// and each pod's patches by how many its app's pods got.
func TestWriteFigures(t *testing.T) {
	writes := &requestcount.Counter{Key: writeKey}
	send := func(method, path string, status int) {
		req, err := http.NewRequest(method, "https://api.test"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writes.Wrap(answer(status)).RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	pods := "/api/v1/namespaces/ns-1/pods/"
	send(http.MethodGet, pods+"web-1", 200)
	send(http.MethodPatch, pods+"web-1", 200)
	send(http.MethodPatch, pods+"web-1", 200)
	send(http.MethodPatch, pods+"web-2", 200)
	send(http.MethodPatch, pods+"web-2", 409)
	send(http.MethodPatch, pods+"web-3/status", 200)
	send(http.MethodPost, "/apis/apps/v1/namespaces/ns-1/deployments", 201)

	s := stats(writes)
	want := map[string]int{"PATCH pods": 3, "refused PATCH pods": 1, "PATCH pods/status": 1, "POST deployments": 1}
	if len(s.Writes) != len(want) {
		t.Errorf("writes %v, want %v", s.Writes, want)
	}
	for k, n := range want {
		if s.Writes[k] != n {
			t.Errorf("writes[%q] = %d, want %d (all: %v)", k, s.Writes[k], n, s.Writes)
		}
	}
	// web-1 patched twice, web-2 once (its refused patch wrote nothing).
	if got := s.PodPatches["web"]; len(got) != 2 || got[2] != 1 || got[1] != 1 {
		t.Errorf("pod patches %v, want one pod patched twice and one once", s.PodPatches)
	}
}
