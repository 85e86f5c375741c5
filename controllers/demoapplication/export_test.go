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

package demoapplication

// The builders, for the tests of package demoapplication_test that dry-run what they build
// against the suite's API server.
var (
	NewDeployment       = newDeployment
	NewService          = newService
	NewPodService       = newPodService
	NewIngress          = newIngress
	NewAutoscaler       = newAutoscaler
	NewHTTPRoute        = newHTTPRoute
	NewNetworkPolicy    = newNetworkPolicy
	HTTPRouteURL        = httpRouteURL
	PodServicesEnabled  = podServicesEnabled
	Settled             = settled
	OwnedFields         = ownedFields
	Convert             = convert
	ProtocolOf          = protocolOf
	NewDisruptionBudget = newDisruptionBudget
	NewStatefulSet      = newStatefulSet
	NewGoverningService = newGoverningService
	NewOrdinalService   = newOrdinalService
)
