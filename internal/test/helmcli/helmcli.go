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

// Package helmcli runs the helm CLI as users do, for the tests that install, test, upgrade,
// push and pull the chart with it.
package helmcli

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// Run runs bin/helm (make helm), or $HELM, and returns its standard output, or an error with
// all it printed. Its cache, configuration and registry logins are the call's own, so that
// nothing of the user's helm setup leaks in.
func Run(args ...string) (string, error) {
	bin, err := testenv.Tool("helm")
	if err != nil {
		return "", err
	}
	home, err := os.MkdirTemp("", "demo-operator-helm-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home+"/cache", "HELM_CONFIG_HOME="+home+"/config", "HELM_DATA_HOME="+home+"/data")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("helm %s: %w\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out), nil
}
