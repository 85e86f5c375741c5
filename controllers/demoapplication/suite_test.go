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

package demoapplication_test

import (
	"os"
	"testing"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/requestcount"
)

// The suite runs one manager, built exactly as the binary builds it and with the operator's
// RBAC, against a real kube-apiserver and etcd; tests assert through k8sClient, which reads the API server
// directly rather than the manager's cache.
var (
	cfg       *rest.Config
	k8sClient client.Client
	mgr       ctrl.Manager
	writes    *requestcount.Counter
	suite     *controllersuite.Suite
)

func TestMain(m *testing.M) {
	os.Exit(controllersuite.Run(m, func(s *controllersuite.Suite) {
		suite, cfg, k8sClient, mgr, writes = s, s.Config, s.Client, s.Manager, s.Requests
	}))
}
