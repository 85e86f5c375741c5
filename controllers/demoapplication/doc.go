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

// Package demoapplication holds the DemoApplication controller, which turns a
// DemoApplication into a Deployment, a Service, per-pod Services, an Ingress, an autoscaler
// and a PodDisruptionBudget.
//
// Reconcile (controller.go) runs the steps (steps.go) on one scope (scope.go) that carries
// what each step observed and how it failed. A step builds the desired object with a pure
// builder (desired.go) and applies it through apply.go, server-side apply that never touches
// an object the operator does not own. At the end of the pass, status (status.go), Events
// (events.go) and the requeue decision read that scope.
package demoapplication
