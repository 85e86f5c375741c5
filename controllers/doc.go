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

// Package controllers holds the DemoApplication reconciler; the pod labeler is in podlabel,
// and the names both rely on in wellknown.
//
// DemoApplicationReconciler (demoapplication_controller.go) turns a DemoApplication into a
// Deployment, a Service and per-pod Services. A pass runs its steps
// (demoapplication_phases.go) on one scope (scope.go) that carries what each step observed
// and how it failed; status (demoapplication_status.go), Events (events.go) and the requeue
// decision read that scope. The desired objects come from pure builders (desired.go) and
// reach the cluster through apply.go, which never touches an object the operator does not
// own.
package controllers
