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

// Package health computes an object's health as the GitOps tools do: kstatus' verdict (Flux's
// health checks, kubectl-style waiters) and Argo CD's, from the health check the repository
// ships, run as Argo CD runs it.
package health

import (
	"fmt"
	"os"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// The health statuses Argo CD knows.
const (
	Healthy     = "Healthy"
	Progressing = "Progressing"
	Degraded    = "Degraded"
	Suspended   = "Suspended"
	Missing     = "Missing"
	Unknown     = "Unknown"
)

// ArgoCD is what an Argo CD health check returned.
type ArgoCD struct {
	Status, Message string
}

// ArgoCDOf returns Argo CD's health of obj, from the health check the repository ships for
// its kind (config/argocd/<group>/<kind>/health.lua).
func ArgoCDOf(obj client.Object) (ArgoCD, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return ArgoCD{}, err
	}
	gvk := u.GroupVersionKind()
	script, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "argocd", gvk.Group, gvk.Kind, "health.lua"))
	if err != nil {
		return ArgoCD{}, err
	}
	return RunArgoCDCheck(string(script), u.Object)
}

// RunArgoCDCheck runs script on obj (an object as unstructured holds it) and returns the health
// it says.
func RunArgoCDCheck(script string, obj map[string]any) (ArgoCD, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		l.Push(l.NewFunction(lib.open))
		l.Push(lua.LString(lib.name))
		l.Call(1, 0)
	}
	l.SetGlobal("obj", decode(l, obj))
	if err := l.DoString(script); err != nil {
		return ArgoCD{}, err
	}
	table, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return ArgoCD{}, fmt.Errorf("the health check returned %s, not a table", l.Get(-1).Type())
	}
	h := ArgoCD{Status: lua.LVAsString(table.RawGetString("status")), Message: lua.LVAsString(table.RawGetString("message"))}
	switch h.Status {
	case Healthy, Progressing, Degraded, Suspended, Missing, Unknown:
		return h, nil
	}
	return h, fmt.Errorf("the health check returned status %q, which Argo CD does not know", h.Status)
}

// decode turns a value of an unstructured object into Lua's, as Argo CD's decodeValue does:
// maps and slices become tables (slices indexed from 1).
func decode(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case map[string]any:
		t := l.NewTable()
		for k, e := range v {
			t.RawSetString(k, decode(l, e))
		}
		return t
	case []any:
		t := l.NewTable()
		for _, e := range v {
			t.Append(decode(l, e))
		}
		return t
	}
	return lua.LString(fmt.Sprint(value))
}
