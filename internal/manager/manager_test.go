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

package manager

import (
	"flag"
	"reflect"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// parse returns the options the manager's flags set from args.
func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	o := &Options{}
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// podCache returns the cache settings of pods.
func podCache(o *Options) cache.ByObject {
	for obj, by := range o.cacheOptions().ByObject {
		if _, ok := obj.(*corev1.Pod); ok {
			return by
		}
	}
	return cache.ByObject{}
}

func TestDefaultsAreValid(t *testing.T) {
	o := DefaultOptions()
	NewWithT(t).Expect(o.Validate()).To(Succeed())

	// Every default, written out as --help shows it, is accepted and means the default: what a
	// user copies from the help text (or a chart renders) runs the manager the defaults run.
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	(&Options{}).BindFlags(fs)
	var args []string
	fs.VisitAll(func(f *flag.Flag) { args = append(args, "--"+f.Name+"="+f.DefValue) })
	NewWithT(t).Expect(args).To(HaveLen(reflect.TypeFor[Options]().NumField()), "a flag per option")
	explicit := parse(t, args...)
	NewWithT(t).Expect(explicit.Validate()).To(Succeed())
	NewWithT(t).Expect(explicit).To(Equal(&o))
}

func TestBadFlagsAreRefusedWithTheirName(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		message string
	}{
		{[]string{"--watch-namespaces=team-a,Team_B"}, `--watch-namespaces: "Team_B" is not a namespace name`},
		{[]string{"--leader-election-namespace=-x"}, `--leader-election-namespace: "-x" is not a namespace name`},
		{[]string{"--pod-label-annotation=not a key"}, `--pod-label-annotation: "not a key" is not a valid key`},
		{[]string{"--pod-name-label=/x"}, `--pod-name-label: "/x" is not a valid key`},
		{[]string{"--max-concurrent-reconciles=0"}, "--max-concurrent-reconciles must be at least 1, not 0"},
		{[]string{"--conflict-retry-interval=0s"}, "--conflict-retry-interval must be positive"},
		{[]string{"--kube-api-qps=0"}, "--kube-api-qps must be positive, or negative for no client-side limit"},
		{[]string{"--leader-election-id=Demo_Operator"}, `--leader-election-id: "Demo_Operator" is not a Lease name`},
		{[]string{"--kube-api-burst=0"}, "--kube-api-burst must be at least 1"},
		{[]string{"--max-retry-backoff=0s"}, "--max-retry-backoff must be positive"},
		{[]string{"--leader-elect-renew-deadline=20s"}, "--leader-elect-lease-duration (15s) must be longer than --leader-elect-renew-deadline (20s)"},
		{[]string{"--leader-elect-retry-period=9s"}, "--leader-elect-renew-deadline (10s) must be longer than 1.2 times a positive --leader-elect-retry-period (9s)"},
		{[]string{"--enable-pod-labeler=false", "--enable-demoapplication-controller=false"}, "both controllers are turned off"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			o := parse(t, tc.args...)
			NewWithT(t).Expect(o.Validate()).To(MatchError(ContainSubstring(tc.message)))
		})
	}

	t.Run("every bad flag at once", func(t *testing.T) {
		err := parse(t, "--max-concurrent-reconciles=0", "--kube-api-burst=0").Validate()
		NewWithT(t).Expect(err).To(MatchError(And(ContainSubstring("--max-concurrent-reconciles"), ContainSubstring("--kube-api-burst"))))
	})
}

func TestWatchNamespaces(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("WATCH_NAMESPACE", "olm-a,olm-b")
	g.Expect(parse(t).namespaces()).To(Equal([]string{"olm-a", "olm-b"}), "OLM's variable when the flag is not set")
	g.Expect(parse(t, "--watch-namespaces= team-a , team-b").namespaces()).To(Equal([]string{"team-a", "team-b"}), "the flag first")

	t.Setenv("WATCH_NAMESPACE", "")
	g.Expect(parse(t).namespaces()).To(BeEmpty(), "all namespaces")
	g.Expect(parse(t, "--watch-namespaces=team-a").cacheOptions().DefaultNamespaces).To(HaveKey("team-a"))
}

func TestPodCache(t *testing.T) {
	appPod := labels.Set{wellknown.LabelApplication: "web"}
	otherPod := labels.Set{"app": "other"}

	t.Run("with the labeler, which must see every pod, all pods", func(t *testing.T) {
		pods := podCache(parse(t))
		NewWithT(t).Expect(pods.Label).To(BeNil())
		NewWithT(t).Expect(pods.Transform).NotTo(BeNil(), "pods are trimmed")
	})

	t.Run("without it, only the DemoApplications' pods", func(t *testing.T) {
		g := NewWithT(t)
		pods := podCache(parse(t, "--enable-pod-labeler=false"))
		g.Expect(pods.Label.Matches(appPod)).To(BeTrue())
		g.Expect(pods.Label.Matches(otherPod)).To(BeFalse())
	})
}
