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
	"strings"

	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// urlOf returns where app answers, for its status: the first host of its Ingress that is
// not a wildcard, https when the Ingress has a certificate; "" when it names none. A route
// that exposes app instead of an Ingress gives its own hostnames here.
func urlOf(app *paasv1.DemoApplication) string {
	if app.Spec.HTTPRoute != nil {
		return httpRouteURL(app)
	}
	in := app.Spec.Ingress
	if in == nil {
		return ""
	}
	scheme := "http"
	if in.TLSSecretName != "" {
		scheme = "https"
	}
	for _, host := range in.Hosts {
		if !strings.HasPrefix(host, "*.") {
			return scheme + "://" + host
		}
	}
	return ""
}

// observedURL returns where the app answers, as the pass observed it: "" when its Ingress
// waits for a Service of the app's own; nil when the pass could not tell whether it has one.
func observedURL(s *scope) *string {
	if s.app.Spec.Ingress != nil {
		if !s.serviceKnown {
			return nil
		}
		if s.service == nil {
			return ptr.To("")
		}
	}
	return ptr.To(urlOf(s.app))
}
