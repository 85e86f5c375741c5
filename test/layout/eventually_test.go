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

package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// waits are gomega's polling assertions, with the index of their first interval argument,
// the timeout (Eventually's) or the duration (Consistently's).
var waits = map[string]int{"Eventually": 1, "Consistently": 1, "EventuallyWithOffset": 2, "ConsistentlyWithOffset": 2}

// TestEveryWaitSpellsItsTimeout fails on an Eventually or Consistently that leaves its timeout
// to gomega's default (1 s, 100 ms): too short on a loaded machine, or silently long once
// someone sets a global one, and the reader cannot tell which wait the test counted on.
// The timeout is spelled as the argument after the actual value, or by .WithTimeout or
// .Within on the assertion.
func TestEveryWaitSpellsItsTimeout(t *testing.T) {
	mod := modulePath(t)
	fset := token.NewFileSet()
	files := 0
	for _, p := range goList(t, "./...") {
		folder := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		var unspelled []string
		for _, name := range slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, call := range unspelledWaits(f) {
				pos := fset.Position(call.Pos())
				unspelled = append(unspelled, fmt.Sprintf("%s/%s:%d: %s without a timeout: pass it after the actual value (or .WithTimeout)",
					folder, name, pos.Line, funcName(call)))
			}
		}
		for _, u := range unspelled {
			t.Error(u)
		}
	}
	if files < 100 {
		t.Fatalf("read %d Go files: the check looks at too little", files)
	}
}

// unspelledWaits returns the calls of f to Eventually or Consistently that give no timeout.
func unspelledWaits(f *ast.File) []*ast.CallExpr {
	timed := map[*ast.CallExpr]bool{}
	var waitCalls []*ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// Eventually(f).WithPolling(p).WithTimeout(d): mark the wait at the chain's root.
			if n.Sel.Name == "WithTimeout" || n.Sel.Name == "Within" {
				if root := chainRoot(n.X); root != nil {
					timed[root] = true
				}
			}
		case *ast.CallExpr:
			if first, ok := waits[funcName(n)]; ok && len(n.Args) <= first && !n.Ellipsis.IsValid() {
				waitCalls = append(waitCalls, n)
			}
		}
		return true
	})
	return slices.DeleteFunc(waitCalls, func(c *ast.CallExpr) bool { return timed[c] })
}

// chainRoot returns the wait call a chain of method calls starts from, or nil.
func chainRoot(e ast.Expr) *ast.CallExpr {
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return nil
		}
		if _, ok := waits[funcName(call)]; ok {
			return call
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		e = sel.X
	}
}

// funcName is the called function's or method's name: Eventually for Eventually(…),
// g.Eventually(…) and gomega.Eventually(…).
func funcName(call *ast.CallExpr) string {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fun.Name
	case *ast.SelectorExpr:
		return fun.Sel.Name
	}
	return ""
}
