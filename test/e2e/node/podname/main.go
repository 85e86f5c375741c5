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
// which pod a Service routed it to. With CRASH set, it exits at once with code 1, as an
// application that cannot start does.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	if reason := os.Getenv("CRASH"); reason != "" {
		log.Fatalf("exiting: %s", reason)
	}
	name, err := os.Hostname()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe(":8080", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, name)
	})))
}
