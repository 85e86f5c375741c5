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

import (
	"time"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// What the serving causes, beside the pods', share: the autoscaler's (autoscaler.go) and the
// Ingress's (ingress.go), as their controllers report them on them.

// DefaultGracePeriod is how long the autoscaler's failing condition, or an Ingress without an
// address, may pass by itself: a new autoscaler has no metrics for about a minute, and a load
// balancer takes a while to come up.
const DefaultGracePeriod = 2 * time.Minute

// servingCauses are the reasons of the autoscaler's and the Ingress's causes that stall: a
// Warning Event tells when Degraded starts saying one, as for the pods'.
var servingCauses = []string{paasv1.ReasonAutoscalerUnableToScale, paasv1.ReasonAutoscalingInactive, paasv1.ReasonIngressClassNotFound}

func (r *Reconciler) gracePeriod() time.Duration {
	if r.GracePeriod > 0 {
		return r.GracePeriod
	}
	return DefaultGracePeriod
}
