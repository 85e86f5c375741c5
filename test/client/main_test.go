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

// Package client_test exercises the generated typed client of pkg/generated against a real
// kube-apiserver, as another Go program built on the DemoApplication API would use it.
package client_test

import (
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
	"github.com/cmft/demo-operator/pkg/generated/clientset/versioned"
)

var (
	clientset versioned.Interface
	// k8s creates the tests' namespaces.
	k8s client.Client
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// run starts the API server, with no manager: these tests cover the client, not the operator.
func run(m *testing.M) int {
	env, cfg, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the test API server:", err)
		}
	}()
	clientset = versioned.NewForConfigOrDie(cfg)
	if k8s, err = client.New(cfg, client.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
