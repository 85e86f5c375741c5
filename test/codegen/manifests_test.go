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

package codegen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// controllerGen runs controller-gen, as make manifests and make generate do, from the
// project's root with the generators and outputs in args.
func controllerGen(t *testing.T, args ...string) {
	t.Helper()
	bin, err := testenv.Tool("controller-gen")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = testenv.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen %v: %v\n%s", args, err, out)
	}
}

// expectSame fails when the committed file differs from the fresh one.
func expectSame(t *testing.T, fresh, committed, fix string) {
	t.Helper()
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(testenv.Root(), committed))
	if err != nil {
		t.Fatalf("%v: run %s and commit it", err, fix)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s is stale: run %s and commit it", committed, fix)
	}
}

func TestCRDAndRBACAreCurrent(t *testing.T) {
	out := t.TempDir()
	controllerGen(t, "rbac:roleName=manager-role", "crd", "paths={./api/...,./controllers/...}",
		"output:crd:artifacts:config="+filepath.Join(out, "crd"), "output:rbac:artifacts:config="+filepath.Join(out, "rbac"))
	// make manifests trims the CRD after controller-gen (hack/crd-trim).
	trim := exec.Command("go", "run", "./hack/crd-trim", filepath.Join(out, "crd", "paas.cmft.com_demoapplications.yaml"))
	trim.Dir = testenv.Root()
	if output, err := trim.CombinedOutput(); err != nil {
		t.Fatalf("hack/crd-trim: %v\n%s", err, output)
	}
	expectSame(t, filepath.Join(out, "crd", "paas.cmft.com_demoapplications.yaml"),
		"config/crd/bases/paas.cmft.com_demoapplications.yaml", "make manifests")
	expectSame(t, filepath.Join(out, "rbac", "role.yaml"), "config/rbac/role.yaml", "make manifests")
}

func TestDeepCopyIsCurrent(t *testing.T) {
	for _, version := range []string{"v1", "v1beta1"} {
		out := filepath.Join(t.TempDir(), version)
		controllerGen(t, "object:headerFile=hack/boilerplate.go.txt", "paths=./api/"+version, "output:object:dir="+out)
		expectSame(t, filepath.Join(out, "zz_generated.deepcopy.go"), "api/"+version+"/zz_generated.deepcopy.go", "make generate")
	}
}
