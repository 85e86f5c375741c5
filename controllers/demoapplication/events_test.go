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

package demoapplication

import (
	"fmt"
	"strings"
	"testing"
)

func TestCreatedNote(t *testing.T) {
	if got, want := createdNote([]string{"Deployment shop", "Service shop"}), "Created Deployment shop, Service shop"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A burst of per-pod Services with the longest names: the note must still be accepted.
	created := make([]string, 0, 100)
	for i := range 100 {
		created = append(created, fmt.Sprintf("Service %s-%04d", strings.Repeat("p", 58), i))
	}
	note := createdNote(created)
	if len(note) > noteLimit {
		t.Fatalf("note of %d bytes, more than the API server's %d", len(note), noteLimit)
	}
	var named, more int
	named = strings.Count(note, "Service ")
	if _, err := fmt.Sscanf(note[strings.LastIndex(note, " and ")+5:], "%d more", &more); err != nil || named+more != len(created) {
		t.Errorf("note names %d and counts %d more (%v), of %d: %q", named, more, err, len(created), note)
	}
}
