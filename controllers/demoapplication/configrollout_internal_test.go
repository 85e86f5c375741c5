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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// TestSettleConfigHash: with Secrets read, or none in the pods, the template takes the hash;
// with Secrets unread, the template keeps the hash it has (one that covered Secrets) until
// the ConfigMaps' hash differs from the one recorded with it, and the Deployment records the
// ConfigMaps' hash; while something is missing, nothing moves.
func TestSettleConfigHash(t *testing.T) {
	const withSecrets, configMaps, changed = "with-secrets", "configmaps", "changed"
	for _, tc := range []struct {
		name                   string
		hash                   string
		missing, secretsUnread bool
		was, want              configHashes
	}{
		{name: "a new app", hash: configMaps,
			want: configHashes{template: configMaps}},
		{name: "a new app whose pods read Secrets, unread", hash: configMaps, secretsUnread: true,
			want: configHashes{template: configMaps, configMaps: ptr.To(configMaps)}},
		{name: "Secrets read: the hash, none recorded", hash: withSecrets,
			was:  configHashes{template: configMaps, configMaps: ptr.To(configMaps)},
			want: configHashes{template: withSecrets}},
		{name: "Secret reads just off: the template's hash kept, the ConfigMaps' recorded", hash: configMaps, secretsUnread: true,
			was:  configHashes{template: withSecrets},
			want: configHashes{template: withSecrets, configMaps: ptr.To(configMaps)}},
		{name: "Secret reads off, ConfigMaps unchanged: kept", hash: configMaps, secretsUnread: true,
			was:  configHashes{template: withSecrets, configMaps: ptr.To(configMaps)},
			want: configHashes{template: withSecrets, configMaps: ptr.To(configMaps)}},
		{name: "Secret reads off, a ConfigMap changed: the new hash", hash: changed, secretsUnread: true,
			was:  configHashes{template: withSecrets, configMaps: ptr.To(configMaps)},
			want: configHashes{template: changed, configMaps: ptr.To(changed)}},
		{name: "pods that read Secrets alone: no ConfigMaps' hash, recorded as such", secretsUnread: true,
			was:  configHashes{template: withSecrets},
			want: configHashes{template: withSecrets, configMaps: ptr.To("")}},
		{name: "pods that read Secrets alone, then a ConfigMap", hash: configMaps, secretsUnread: true,
			was:  configHashes{template: withSecrets, configMaps: ptr.To("")},
			want: configHashes{template: configMaps, configMaps: ptr.To(configMaps)}},
		{name: "no template hash to keep", hash: configMaps, secretsUnread: true,
			want: configHashes{template: configMaps, configMaps: ptr.To(configMaps)}},
		{name: "a SHA-256 recorded in a label's 63 characters", hash: strings.Repeat("ab", 32), secretsUnread: true,
			was:  configHashes{template: withSecrets, configMaps: ptr.To(strings.Repeat("ab", 16))},
			want: configHashes{template: withSecrets, configMaps: ptr.To(strings.Repeat("ab", 16))}},
		{name: "missing: the template's hash kept", hash: changed, missing: true,
			was:  configHashes{template: configMaps},
			want: configHashes{template: configMaps}},
		{name: "missing, Secrets unread: both kept", hash: changed, missing: true, secretsUnread: true,
			was:  configHashes{template: withSecrets, configMaps: ptr.To(configMaps)},
			want: configHashes{template: withSecrets, configMaps: ptr.To(configMaps)}},
		{name: "missing on a new app: no hash", hash: changed, missing: true,
			want: configHashes{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(settleConfigHash(tc.hash, tc.missing, tc.secretsUnread, tc.was)).To(Equal(tc.want))
		})
	}
}

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
