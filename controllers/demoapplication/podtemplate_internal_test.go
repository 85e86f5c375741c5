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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
)

func TestWithPodSecurityDefaults(t *testing.T) {
	podSpec := func(app *paasv1.DemoApplication, enforced string) corev1.PodSpec {
		d := newDeployment(app, nil, wellknown.DefaultPodLabelKeys)
		withPodSecurityDefaults(d.Spec.Template.Spec, enforced)
		return converted[*appsv1.Deployment](d).Spec.Template.Spec
	}
	restricted := &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		RunAsNonRoot:             ptr.To(true),
	}
	runtimeDefault := &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}

	t.Run("restricted fills every field the app leaves unset", func(t *testing.T) {
		g := NewWithT(t)
		pod := podSpec(testApp(), "restricted")
		g.Expect(pod.Containers[0].SecurityContext).To(Equal(restricted))
		g.Expect(pod.SecurityContext).To(Equal(runtimeDefault))
	})

	for _, level := range []string{"", "privileged", "baseline"} {
		t.Run("level "+level+" fills nothing", func(t *testing.T) {
			g := NewWithT(t)
			pod := podSpec(testApp(), level)
			g.Expect(pod.Containers[0].SecurityContext).To(BeNil())
			g.Expect(pod.SecurityContext).To(BeNil())
		})
	}

	t.Run("what the app sets is kept, even what restricted refuses", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.SecurityContext = &paasv1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(true),
			Capabilities:             &paasv1.Capabilities{Drop: []paasv1.Capability{"NET_RAW"}, Add: []paasv1.Capability{"NET_BIND_SERVICE"}},
			RunAsNonRoot:             ptr.To(false),
			SeccompProfile:           &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("app.json")},
		}
		pod := podSpec(app, "restricted")
		g.Expect(pod.Containers[0].SecurityContext).To(Equal(&corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"NET_RAW"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}},
			RunAsNonRoot:             ptr.To(false),
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("app.json")},
		}))
		// The container's seccomp profile is the pod's too: none is added beside it.
		g.Expect(pod.SecurityContext).To(Equal(&corev1.PodSecurityContext{}))
	})

	t.Run("the pod's own settings count", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.PodSecurityContext = &paasv1.PodSecurityContext{
			RunAsNonRoot:   ptr.To(true),
			RunAsUser:      ptr.To[int64](1000),
			SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		}
		pod := podSpec(app, "restricted")
		g.Expect(pod.Containers[0].SecurityContext).To(Equal(&corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		}))
		g.Expect(pod.SecurityContext).To(Equal(&corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](1000),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		}))
	})

	// Pod Security admits an app's pods only with all of them set: an upgrade of the operator
	// rolls no running app's pods.
	t.Run("an app that meets restricted on its own gets nothing", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.PodSecurityContext = &paasv1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), SeccompProfile: &paasv1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
		app.Spec.SecurityContext = &paasv1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), Capabilities: &paasv1.Capabilities{Drop: []paasv1.Capability{"ALL"}}}
		g.Expect(podSpec(app, "restricted")).To(Equal(podSpec(app, "")))
	})

	t.Run("an app that asks for user 0 does not get runAsNonRoot", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		app.Spec.PodSecurityContext = &paasv1.PodSecurityContext{RunAsUser: ptr.To[int64](0)}
		g.Expect(podSpec(app, "restricted").Containers[0].SecurityContext.RunAsNonRoot).To(BeNil())
	})

	t.Run("the app itself is never changed", func(t *testing.T) {
		g := NewWithT(t)
		app := testApp()
		g.Expect(podSpec(app, "restricted")).NotTo(Equal(podSpec(app, "")))
		g.Expect(app.Spec.SecurityContext).To(BeNil())
		g.Expect(app.Spec.PodSecurityContext).To(BeNil())
	})
}

// TestRootImageUnderDefaultsIsReported: with runAsNonRoot filled in, an image that runs as root
// gets a pod whose container the kubelet will not create; the app says so in its words.
func TestRootImageUnderDefaultsIsReported(t *testing.T) {
	g := NewWithT(t)
	message := "container has runAsNonRoot and image will run as root (pod: \"web-0_shop(1d2c)\", container: app)"
	got := podsCause([]corev1.Pod{podWith("web-0", corev1.PodPending, waiting("CreateContainerConfigError", message))})
	g.Expect(got).To(Equal(&cause{stalls: true, reason: paasv1.ReasonCreateContainerError, message: "Pod web-0, container app: " + message}))
}

func TestPreStop(t *testing.T) {
	sleep := func(s int64) *corev1.LifecycleHandler {
		return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: s}}
	}
	for _, tc := range []struct {
		name   string
		change func(*paasv1.DemoApplicationSpec)
		want   *corev1.LifecycleHandler
	}{
		{"an app with ports pauses 5 seconds", func(*paasv1.DemoApplicationSpec) {}, sleep(DefaultPreStopSeconds)},
		{"within a short grace period, less", func(s *paasv1.DemoApplicationSpec) { s.TerminationGracePeriodSeconds = ptr.To[int64](3) }, sleep(2)},
		{"a grace period of a second leaves no pause", func(s *paasv1.DemoApplicationSpec) { s.TerminationGracePeriodSeconds = ptr.To[int64](1) }, nil},
		{"an app without ports takes no traffic to drain", func(s *paasv1.DemoApplicationSpec) { s.Ports = nil }, nil},
		{"the pause declared", func(s *paasv1.DemoApplicationSpec) {
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 15}}}
		}, sleep(15)},
		{"a pause of 0 is none", func(s *paasv1.DemoApplicationSpec) {
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{}}}
		}, nil},
		{"a command", func(s *paasv1.DemoApplicationSpec) {
			s.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Exec: &paasv1.ExecAction{Command: []string{"/app", "drain"}}}}
		}, &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/app", "drain"}}}},
		{"an empty lifecycle is the default", func(s *paasv1.DemoApplicationSpec) { s.Lifecycle = &paasv1.Lifecycle{} }, sleep(DefaultPreStopSeconds)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := builder.DemoApplication("shop", "web")
			tc.change(&app.Spec)
			NewWithT(t).Expect(converted[*corev1.LifecycleHandler](preStop(&app.Spec))).To(Equal(tc.want))
		})
	}
}
