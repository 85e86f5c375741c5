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
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIngressWithoutAddress: an Ingress with no address is given the grace period, then told
// as a Warning Event, never as a condition: some controllers serve and never report one.
func TestIngressWithoutAddress(t *testing.T) {
	classless := func(age time.Duration, addresses ...networkingv1.IngressLoadBalancerIngress) *networkingv1.Ingress {
		in := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", CreationTimestamp: metav1.NewTime(time.Now().Add(-age))}}
		in.Status.LoadBalancer.Ingress = addresses
		return in
	}
	t.Run("within the grace period: looked at again when it ends", func(t *testing.T) {
		g := NewWithT(t)
		r, recorder := recordingReconciler(g, 1)
		s := &scope{app: testApp()}
		r.observeIngress(context.Background(), s, classless(30*time.Second))
		g.Expect(s.recheckAfter).To(BeNumerically("~", 90*time.Second, 5*time.Second))
		g.Expect(s.causes).To(BeEmpty())
		g.Expect(recorder.Events).To(BeEmpty())
	})
	t.Run("past it: a Warning Event", func(t *testing.T) {
		g := NewWithT(t)
		r, recorder := recordingReconciler(g, 1)
		s := &scope{app: testApp()}
		r.observeIngress(context.Background(), s, classless(3*time.Minute))
		g.Expect(s.recheckAfter).To(BeZero())
		g.Expect(s.causes).To(BeEmpty(), "no condition: it may be served all the same")
		g.Expect(<-recorder.Events).To(Equal("Warning IngressNotServed Ingress web has no address 2m0s after its creation: " +
			"no Ingress controller reported serving it (some, such as Skipper, never report one)"))
	})
	t.Run("an address: nothing to say", func(t *testing.T) {
		g := NewWithT(t)
		r, recorder := recordingReconciler(g, 1)
		s := &scope{app: testApp()}
		r.observeIngress(context.Background(), s, classless(time.Hour, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.test"}))
		g.Expect(s.recheckAfter).To(BeZero())
		g.Expect(recorder.Events).To(BeEmpty())
	})
}
