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

// Command podname is the real-node tests' application: an HTTP server on :8080 that answers
// every request with the name of the pod it runs in (its hostname), so that a caller knows
// which pod a Service routed it to. Its environment changes it:
//
//   - CRASH: it exits at once with code 1, as an application that cannot start does.
//   - ALLOCATE_MIB (a number): it allocates and touches that many MiB at start, as an
//     application that outgrows its memory limit does, and is OOM-killed above the limit.
//   - FAIL_ONCE (a path): CRASH and ALLOCATE_MIB apply only while no file is at the path;
//     it creates the file first, so that, on an emptyDir, the container fails once and its
//     restart serves: a recovery.
//   - READY_AFTER (a duration): /ready answers 503 until that long after it started, then
//     200, for a readiness probe; unset, /ready answers 200 at once.
//   - SERVE_FILE (a path): /file answers with the file's content, read anew on each request,
//     so that a mounted ConfigMap's update is seen.
//   - RECORD_START (a path): it appends a line, its name, to the file at each start, so that
//     a volume that outlives the pod keeps one line per run of it.
//
// /env/NAME answers the value of its environment variable NAME, as the container started
// with it: what a pod's env holds, seen from outside.
//
// On SIGTERM it does nothing of its own: Go's default ends the process at once, its open
// connections cut and any request in flight lost, less than an application that shuts down
// gracefully does; a pod that loses no request in a rollout owes it to the pod's preStop.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	if failing() {
		if reason := os.Getenv("CRASH"); reason != "" {
			log.Fatalf("exiting: %s", reason)
		}
		if v := os.Getenv("ALLOCATE_MIB"); v != "" {
			allocate(v)
		}
	}
	name, err := os.Hostname()
	if err != nil {
		log.Fatal(err)
	}
	var readyAfter time.Duration
	if v := os.Getenv("READY_AFTER"); v != "" {
		if readyAfter, err = time.ParseDuration(v); err != nil {
			log.Fatalf("READY_AFTER: %v", err)
		}
	}
	ready := time.Now().Add(readyAfter)
	if file := os.Getenv("RECORD_START"); file != "" {
		record(file, name)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, name) })
	mux.HandleFunc("/env/{name}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, os.Getenv(r.PathValue("name"))) })
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		if time.Now().Before(ready) {
			http.Error(w, "starting", http.StatusServiceUnavailable)
		}
	})
	if file := os.Getenv("SERVE_FILE"); file != "" {
		mux.HandleFunc("/file", func(w http.ResponseWriter, _ *http.Request) {
			data, err := os.ReadFile(file)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			_, _ = w.Write(data)
		})
	}
	log.Fatal(http.ListenAndServe(":8080", mux))
}

// failing reports whether the failure modes apply: always without FAIL_ONCE, else the first
// time only, marked by the file it names.
func failing() bool {
	marker := os.Getenv("FAIL_ONCE")
	if marker == "" {
		return true
	}
	if _, err := os.Stat(marker); err == nil {
		return false
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		log.Fatalf("FAIL_ONCE: %v", err)
	}
	return true
}

// record appends name, on a line, to file.
func record(file, name string) {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatalf("RECORD_START: %v", err)
	}
	if _, err := fmt.Fprintln(f, name); err != nil {
		log.Fatalf("RECORD_START: %v", err)
	}
	if err := f.Close(); err != nil {
		log.Fatalf("RECORD_START: %v", err)
	}
}

// allocated holds the memory allocate touched, so that it stays charged to the container.
var allocated [][]byte

// allocate allocates mib MiB, writing every page so that the kernel charges it.
func allocate(mib string) {
	n, err := strconv.Atoi(mib)
	if err != nil {
		log.Fatalf("ALLOCATE_MIB: %v", err)
	}
	for range n {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		allocated = append(allocated, b)
	}
	log.Printf("allocated %d MiB", n)
}
