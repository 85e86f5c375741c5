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

// Package requestcount counts the requests a client sends to the API server, through a
// round tripper wrapped around its transport: by method and path, and whether the server
// refused them, so that a test or a benchmark can tell what a process wrote and read, and no
// more than that.
package requestcount

import (
	"net/http"
	"strings"
	"sync"
)

// Request is what Counter counts a request by.
type Request struct {
	Method string
	// Path is the URL's path: /api/v1/namespaces/<ns>/pods/<name>, say.
	Path string
	// Refused is true when the request failed or the API server answered it with a status of
	// 300 or more (a conflict, say): nothing was written.
	Refused bool
}

// Counter counts requests; its zero value is ready. Wrap a rest.Config's transport with it
// (cfg.WrapTransport = counter.Wrap) to count what every client of that config sends.
type Counter struct {
	// Key, when set, is what a request is counted by in place of itself, and whether it is
	// counted at all: a process that sends a request per object keeps a count per kind of
	// request rather than per path.
	Key func(Request) (Request, bool)

	mu     sync.Mutex
	counts map[Request]int
}

// Wrap returns rt, counting each request once the API server has answered it.
func (c *Counter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		r := Request{Method: req.Method, Path: req.URL.Path, Refused: err != nil || resp.StatusCode >= 300}
		if c.Key != nil {
			var counted bool
			if r, counted = c.Key(r); !counted {
				return resp, err
			}
		}
		c.mu.Lock()
		if c.counts == nil {
			c.counts = map[Request]int{}
		}
		c.counts[r]++
		c.mu.Unlock()
		return resp, err
	})
}

// Counts returns a copy of the counts so far.
func (c *Counter) Counts() map[Request]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[Request]int, len(c.counts))
	for r, n := range c.counts {
		out[r] = n
	}
	return out
}

// ReadsUnder returns how many reads (GET, refused or not) went to paths under prefix: for a
// manager, those its cache does not answer (its lists and watches are cluster-wide, under no
// namespace).
func (c *Counter) ReadsUnder(prefix string) int {
	return c.count(func(r Request) bool { return r.Method == http.MethodGet && strings.HasPrefix(r.Path, prefix) })
}

// WritesUnder returns how many writes (any method but GET, refused or not) went to paths under
// prefix, events excluded: they are reports, not changes.
func (c *Counter) WritesUnder(prefix string) int {
	return c.count(func(r Request) bool {
		return r.Method != http.MethodGet && strings.HasPrefix(r.Path, prefix) && !strings.Contains(r.Path, "/events")
	})
}

func (c *Counter) count(match func(Request) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for r, count := range c.counts {
		if match(r) {
			n += count
		}
	}
	return n
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
