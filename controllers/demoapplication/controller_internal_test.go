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
	"time"

	. "github.com/onsi/gomega"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// TestResultRechecks: a pass that met a cause which stalls later looks again when it would, and
// no later than a conflict's retry.
func TestResultRechecks(t *testing.T) {
	g := NewWithT(t)
	r := &Reconciler{ConflictRetryInterval: time.Minute}
	res, err := r.result(&scope{recheckAfter: 90 * time.Second})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(90 * time.Second))
	s := &scope{}
	s.recheck(3 * time.Minute)
	s.recheck(time.Minute)
	s.recheck(0)
	g.Expect(s.recheckAfter).To(Equal(time.Minute), "the earliest")
	s.recheck(2 * time.Minute)
	s.fail(paasv1.ReasonServiceFailed, &conflictError{kind: "Service", name: "web"})
	s.recheckAfter = 10 * time.Second
	res, err = r.result(s)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(10 * time.Second))
	res, _ = r.result(&scope{})
	g.Expect(res.RequeueAfter).To(BeZero(), "nothing to look for: no polling")
}
