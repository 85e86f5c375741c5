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

package demoapplication_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/requestcount"
)

// The suite runs one manager, built exactly as the binary builds it and with the operator's
// RBAC, against a real kube-apiserver and etcd; tests assert through k8sClient, which reads the API server
// directly rather than the manager's cache.
var (
	cfg       *rest.Config
	k8sClient client.Client
	mgr       ctrl.Manager
	writes    *requestcount.Counter
	suite     *controllersuite.Suite
)

func TestMain(m *testing.M) {
	os.Exit(controllersuite.Run(m, func(s *controllersuite.Suite) {
		suite, cfg, k8sClient, mgr, writes = s, s.Config, s.Client, s.Manager, s.Requests
	}))
}

// eventNotes returns the notes of the events of reason recorded about the named object.
func eventNotes(g Gomega, namespace, name, reason string) []string {
	list := &eventsv1.EventList{}
	g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

// eventCount counts the events of reason recorded about the named object.
func eventCount(g Gomega, namespace, name, reason string) int {
	return len(eventNotes(g, namespace, name, reason))
}

// writesNothing asserts that, converged, the operator writes nothing under prefixes, where it
// wrote the objects: once its last write has landed (quiesced), none follows for two seconds more.
func writesNothing(g Gomega, prefixes ...string) {
	before := suite.Quiesced(g, prefixes...)
	g.Expect(before).To(BeNumerically(">", 0), "the operator's writes under %v", prefixes)
	g.Consistently(func() int { return suite.WritesUnder(prefixes...) }, 2*time.Second).Should(Equal(before), "writes under %v", prefixes)
}
