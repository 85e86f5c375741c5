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
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// DefaultPreStopSeconds is the pause before a container with ports is stopped when the app
// declares no preStop: long enough for the endpoints controller, kube-proxy and the Ingress
// controller to stop sending it requests once the pod is terminating.
const DefaultPreStopSeconds = 5

// defaultTerminationGracePeriodSeconds is the kubelet's grace period when a pod sets none.
const defaultTerminationGracePeriodSeconds = 30

// preStop returns the container's preStop handler: the one spec declares, else, for an app
// that serves on ports, a pause of DefaultPreStopSeconds (shortened to leave the app at least
// a second of its grace period). It is the kubelet's sleep action, which needs no shell in
// the image. A pause of 0 seconds is none.
func preStop(spec *paasv1.DemoApplicationSpec) *corev1ac.LifecycleHandlerApplyConfiguration {
	if l := spec.Lifecycle; l != nil && l.PreStop != nil {
		if s := l.PreStop.Sleep; s != nil && s.Seconds == 0 {
			return nil
		}
		return converted[*corev1ac.LifecycleHandlerApplyConfiguration](l.PreStop)
	}
	if len(spec.Ports) == 0 {
		return nil
	}
	seconds := min(DefaultPreStopSeconds, ptr.Deref(spec.TerminationGracePeriodSeconds, defaultTerminationGracePeriodSeconds)-1)
	if seconds <= 0 {
		return nil
	}
	return corev1ac.LifecycleHandler().WithSleep(corev1ac.SleepAction().WithSeconds(seconds))
}
