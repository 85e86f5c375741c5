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
	"testing"

	. "github.com/onsi/gomega"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
)

func TestURLOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ingress *paasv1.Ingress
		want    string
	}{
		{"no Ingress", nil, ""},
		{"an Ingress for every host", &paasv1.Ingress{}, ""},
		{"the first host but wildcards", &paasv1.Ingress{Hosts: []string{"*.shop.example.com", "shop.example.com", "b.example.com"}}, "http://shop.example.com"},
		{"https with a certificate", &paasv1.Ingress{Hosts: []string{"shop.example.com"}, TLSSecretName: "shop-tls"}, "https://shop.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := builder.DemoApplication("shop", "web")
			app.Spec.Ingress = tc.ingress
			NewWithT(t).Expect(urlOf(app)).To(Equal(tc.want))
		})
	}
}
