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
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// TestConfigRefs: what rolls the pods under each rolloutOnConfigChange, and the index values
// that wake the app.
func TestConfigRefs(t *testing.T) {
	g := NewWithT(t)
	spec := &paasv1.DemoApplicationSpec{
		Env: []paasv1.EnvVar{{Name: "LEVEL", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Name: "settings", Key: "level"}}},
			{Name: "POD", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		Sidecars: []paasv1.Sidecar{{Container: paasv1.Container{Name: "proxy",
			EnvFrom: []paasv1.EnvFromSource{{SecretRef: &paasv1.OptionalObjectReference{Name: "db", Optional: ptr.To(true)}}}}}},
		InitContainers: []paasv1.Container{{Name: "migrate", Env: []paasv1.EnvVar{{Name: "PASSWORD",
			ValueFrom: &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{Name: "db", Key: "password"}}}}}},
		Volumes: []paasv1.Volume{{Name: "files", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "files",
			Items: []paasv1.KeyToPath{{Key: "app.conf", Path: "app.conf"}}}}, {Name: "tmp", EmptyDir: &paasv1.EmptyDirVolumeSource{}}},
	}
	envRefs := []configRef{
		{kindConfigMap, "settings", "level", false, "spec.env[LEVEL].valueFrom.configMapKeyRef"},
		{kindSecret, "db", "", true, "spec.sidecars[proxy].envFrom[0].secretRef"},
		{kindSecret, "db", "password", false, "spec.initContainers[migrate].env[PASSWORD].valueFrom.secretKeyRef"},
	}
	g.Expect(configRefs(spec)).To(Equal(envRefs), "Env, the default")
	g.Expect(configRefsOf(&paasv1.DemoApplication{Spec: *spec})).To(Equal([]string{"ConfigMap/settings", "Secret/db"}))

	spec.RolloutOnConfigChange = paasv1.ConfigRolloutAll
	g.Expect(configRefs(spec)).To(Equal(slices.Concat(envRefs, []configRef{{kindConfigMap, "files", "app.conf", false, "spec.volumes[files].configMap"}})))

	spec.RolloutOnConfigChange = paasv1.ConfigRolloutNone
	g.Expect(configRefs(spec)).To(BeEmpty())
	g.Expect(configRefsOf(&paasv1.DemoApplication{Spec: *spec})).To(BeEmpty())
}

// TestConfigCacheTransform: the cache keeps a ConfigMap's or Secret's identity alone, not
// the annotation kubectl apply copies its data into.
func TestConfigCacheTransform(t *testing.T) {
	g := NewWithT(t)
	in := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop", UID: "u", ResourceVersion: "7",
		Labels:        map[string]string{"a": "b"},
		Annotations:   map[string]string{corev1.LastAppliedConfigAnnotation: `{"data":{"password":"czNjcmV0"}}`},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}
	out, err := ConfigCacheTransform(in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.(*metav1.PartialObjectMetadata).ObjectMeta).To(Equal(metav1.ObjectMeta{Name: "db", Namespace: "shop", ResourceVersion: "7"}))
}

// TestCompletedInitContainerIsNoCause: an init container that ran to completion is done,
// where a sidecar that exited 0 is restarted: it crashed.
func TestCompletedInitContainerIsNoCause(t *testing.T) {
	g := NewWithT(t)
	done := corev1.ContainerStatus{Name: "migrate", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}
	pod := podWith("web-1", corev1.PodRunning, ready)
	pod.Spec.InitContainers = []corev1.Container{{Name: "migrate"}}
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{done}
	g.Expect(podsCause([]corev1.Pod{pod})).To(BeNil())

	pod.Spec.InitContainers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	c := podsCause([]corev1.Pod{pod})
	g.Expect(c).NotTo(BeNil())
	g.Expect(c.reason).To(Equal(paasv1.ReasonCrashLoopBackOff))
}
