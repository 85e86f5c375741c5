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

package restraint

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// BenchmarkRestrainedWrite measures what the restraint costs each of the operator's writes: the
// everything app's Deployment written again (dry run: admission is the same), by the operator,
// whom every policy evaluates, beside the same write by the cluster's admin, whom their
// matchConditions let through unevaluated.
func BenchmarkRestrainedWrite(b *testing.B) {
	w := newWeb(b, testenv.NewNamespace(b, admin, "bench-"))
	for name, writer := range map[string]client.Client{"operator, restrained": operator, "admin, baseline": admin} {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				d := w.deployment.DeepCopy()
				current := &appsv1.Deployment{}
				if err := admin.Get(ctx, client.ObjectKeyFromObject(d), current); err != nil {
					b.Fatal(err)
				}
				d.ResourceVersion, d.ManagedFields = current.ResourceVersion, current.ManagedFields
				if err := writer.Patch(ctx, d, client.MergeFrom(current), client.DryRunAll, asOperator); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
