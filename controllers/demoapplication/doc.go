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
// DemoApplication into a Deployment, a Service, per-pod Services, an Ingress or a Gateway API
// HTTPRoute, a HorizontalPodAutoscaler, a NetworkPolicy and a PodDisruptionBudget.
//
// Reconcile (controller.go) runs one step per entry of the table of owned kinds (kinds.go), in
// order, on one scope (scope.go) that carries what each step observed and how it failed. An
// entry says how its object is built (a pure builder), which parent it waits for, how it is
// compared, watched and cached, and how what is observed of it becomes a cause; most steps are
// the one generic child step, reconcileChild. Objects are applied through apply.go, server-side
// apply that never touches an object the operator does not own. One file per owned kind holds
// its entry, builder, step specifics and cause: deployment.go, service.go, podservices.go,
// ingress.go, httproute.go, autoscaler.go, networkpolicy.go and disruptionbudget.go;
// objectmeta.go what they share. The pod template is built in podtemplate.go, as an ordered
// list of transformations of the spec, then completed from the cluster: podsecurity.go (the
// namespace's Pod Security level, which the pod's security context meets), configrollout.go
// (the hash of the ConfigMaps and Secrets the pods use, which rolls them out when those
// change), defaults.go (which defaults a Deployment was built with, so that new ones come with
// the app's next rollout). convert.go copies between typed API values and apply
// configurations.
//
// At the end of the pass, status (status.go, with url.go for the app's address), Events
// (events.go), the metrics (metrics.go) and the requeue decision read that scope. Why an app
// is not available is read from its pods (pods.go and podcauses.go: a pod's waiting, crashing
// or unscheduled cause) and from its autoscaler, Ingress and HTTPRoute (their files, with
// servingcauses.go). cache.go holds the transforms the manager's cache applies to ReplicaSets,
// ConfigMaps and Secrets.
package demoapplication
