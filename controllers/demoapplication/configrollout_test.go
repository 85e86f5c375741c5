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
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// configHash returns the config hash on the pod template of the app's Deployment.
func configHash(g Gomega, namespace, name string) string {
	return get(g, namespace, name, &appsv1.Deployment{}).Spec.Template.Annotations[demoapplication.ConfigHashAnnotation]
}

// TestConfigChangeRollsPods: the pod template's hash changes when a key the pods read of a
// ConfigMap (env) or any key of another (envFrom) changes, and then only: not for another
// key of the ConfigMap, another ConfigMap, nor a mounted one until rolloutOnConfigChange is
// All; None drops the hash.
func TestConfigChangeRollsPods(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"level": "info", "unread": "1"}}
	flags := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "flags"}, Data: map[string]string{"beta": "off"}}
	files := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "files"}, Data: map[string]string{"app.conf": "a"}}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "other"}, Data: map[string]string{"x": "1"}}
	for _, obj := range []client.Object{settings, flags, files, other} {
		g.Expect(k8sClient.Create(ctx, obj)).To(Succeed())
	}
	app := builder.DemoApplication(ns, "web", builder.Env(paasv1.EnvVar{Name: "LEVEL", ValueFrom: &paasv1.EnvVarSource{
		ConfigMapKeyRef: &paasv1.KeySelector{Name: "settings", Key: "level"}}}))
	app.Spec.EnvFrom = []paasv1.EnvFromSource{{ConfigMapRef: &paasv1.OptionalObjectReference{Name: "flags"}}}
	app.Spec.Volumes = []paasv1.Volume{{Name: "files", ConfigMap: &paasv1.ConfigMapVolumeSource{Name: "files"}}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	var hash string
	g.Eventually(func(g Gomega) string { hash = configHash(g, ns, app.Name); return hash }, waitFor, pollEvery).ShouldNot(BeEmpty())
	g.Expect(hash).To(HaveLen(64), "a SHA-256")
	// changes returns a check that the hash moves from what it was, and records the new one.
	changes := func() func(g Gomega) {
		before := hash
		return func(g Gomega) {
			hash = configHash(g, ns, app.Name)
			g.Expect(hash).NotTo(Equal(before))
		}
	}
	// A pass that finds the ConfigMaps at the versions it last read reads none from the API
	// server again.
	configReads := func() int { return writes.ReadsUnder("/api/v1/namespaces/" + ns + "/configmaps/") }
	read := configReads()
	g.Expect(read).To(BeNumerically(">", 0))
	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.Replica = ptr.To[int32](2) })
	g.Eventually(func(g Gomega) *int32 { return get(g, ns, app.Name, &appsv1.Deployment{}).Spec.Replicas }, waitFor, pollEvery).
		Should(HaveValue(BeEquivalentTo(2)))
	g.Expect(configReads()).To(Equal(read), "the ConfigMaps, unchanged, read again")

	stays := func() {
		t.Helper()
		before := hash
		g.Consistently(func(g Gomega) string { return configHash(g, ns, app.Name) }, 2*time.Second, 100*time.Millisecond).Should(Equal(before))
	}

	// Unread: another ConfigMap, another key, a mounted ConfigMap (Env by default).
	other.Data["x"] = "2"
	g.Expect(k8sClient.Update(ctx, other)).To(Succeed())
	settings.Data["unread"] = "2"
	g.Expect(k8sClient.Update(ctx, settings)).To(Succeed())
	files.Data["app.conf"] = "b"
	g.Expect(k8sClient.Update(ctx, files)).To(Succeed())
	stays()

	// Read: the key of env, any key of envFrom's ConfigMap.
	settings.Data["level"] = "debug"
	g.Expect(k8sClient.Update(ctx, settings)).To(Succeed())
	g.Eventually(changes(), waitFor, pollEvery).Should(Succeed())
	flags.Data["gamma"] = "on"
	g.Expect(k8sClient.Update(ctx, flags)).To(Succeed())
	g.Eventually(changes(), waitFor, pollEvery).Should(Succeed())

	// All: the mounted ConfigMap counts, and its changes too.
	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.RolloutOnConfigChange = paasv1.ConfigRolloutAll })
	g.Eventually(changes(), waitFor, pollEvery).Should(Succeed())
	files.Data["app.conf"] = "c"
	g.Expect(k8sClient.Update(ctx, files)).To(Succeed())
	g.Eventually(changes(), waitFor, pollEvery).Should(Succeed())

	// None: no hash, nothing rolls.
	update(g, app, func(a *paasv1.DemoApplication) { a.Spec.RolloutOnConfigChange = paasv1.ConfigRolloutNone })
	g.Eventually(func(g Gomega) string { return configHash(g, ns, app.Name) }, waitFor, pollEvery).Should(BeEmpty())
}

// TestSecretsRollNothingByDefault: the suite's operator is installed as by default, without
// --config-rollout-secrets and the read of Secrets. An app that reads a Secret and a
// ConfigMap is rolled on the ConfigMap alone; the operator never reads, lists or watches a
// Secret, not even a missing one (the kubelet reports that), and says so in an Event that
// names the fields that read Secrets.
func TestSecretsRollNothingByDefault(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"level": "info"}}
	creds := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"}, Data: map[string][]byte{"password": []byte("s3cret")}}
	for _, obj := range []client.Object{settings, creds} {
		g.Expect(k8sClient.Create(ctx, obj)).To(Succeed())
	}
	app := builder.DemoApplication(ns, "web", builder.Env(
		paasv1.EnvVar{Name: "LEVEL", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Name: "settings", Key: "level"}}},
		paasv1.EnvVar{Name: "TOKEN", ValueFrom: &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{Name: "missing", Key: "token"}}}))
	app.Spec.EnvFrom = []paasv1.EnvFromSource{{SecretRef: &paasv1.OptionalObjectReference{Name: "creds"}}}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	var hash string
	g.Eventually(func(g Gomega) string { hash = configHash(g, ns, app.Name); return hash }, waitFor, pollEvery).ShouldNot(BeEmpty())
	g.Eventually(func(g Gomega) []string { return eventNotes(g, ns, app.Name, demoapplication.EventSecretRolloutOff) }, waitFor, pollEvery).Should(ConsistOf(
		"rolloutOnConfigChange rolls the pods on ConfigMaps only: the operator is installed without --config-rollout-secrets and reads no Secret. " +
			"Not rolled on the Secrets read by spec.env[TOKEN].valueFrom.secretKeyRef, spec.envFrom[0].secretRef"))
	g.Expect(condition(get(g, ns, app.Name, app), paasv1.ConditionDegraded)).NotTo(HaveField("Reason", paasv1.ReasonConfigNotFound),
		"a missing Secret is the kubelet's to report")

	creds.Data["password"] = []byte("changed")
	g.Expect(k8sClient.Update(ctx, creds)).To(Succeed())
	g.Consistently(func(g Gomega) string { return configHash(g, ns, app.Name) }, 2*time.Second, 100*time.Millisecond).Should(Equal(hash))
	settings.Data["level"] = "debug"
	g.Expect(k8sClient.Update(ctx, settings)).To(Succeed())
	g.Eventually(func(g Gomega) string { return configHash(g, ns, app.Name) }, waitFor, pollEvery).ShouldNot(Equal(hash))

	g.Expect(writes.ReadsUnder("/api/v1/secrets")).To(BeZero(), "a list or watch of Secrets")
	g.Expect(writes.ReadsUnder("/api/v1/namespaces/"+ns+"/secrets")).To(BeZero(), "a read of the app's Secrets")
}

// TestSecretReadsOffRestartNothing: an app whose pods read a Secret and a ConfigMap, rolled
// out by a manager with --config-rollout-secrets (or an earlier release), keeps its pod
// template when a manager without it takes over: its Deployment only records the ConfigMaps'
// hash. Then a change of the ConfigMap rolls the pods, and one of the Secret does not.
func TestSecretReadsOffRestartNothing(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	// config/config-rollout-secrets's role, granted in this namespace alone.
	objs, err := testenv.Objects(filepath.Join(testenv.Root(), "config", "config-rollout-secrets", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(objs).To(HaveLen(1))
	g.Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, objs[0]))).To(Succeed())
	g.Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secret-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: objs[0].GetName()},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: testenv.OperatorNamespace, Name: testenv.OperatorServiceAccount}},
	})).To(Succeed())

	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"level": "info"}}
	creds := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"}, Data: map[string][]byte{"password": []byte("s3cret")}}
	for _, obj := range []client.Object{settings, creds} {
		g.Expect(k8sClient.Create(ctx, obj)).To(Succeed())
	}
	app := builder.DemoApplication(ns, "web", builder.Env(
		paasv1.EnvVar{Name: "LEVEL", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Name: "settings", Key: "level"}}},
		paasv1.EnvVar{Name: "PASSWORD", ValueFrom: &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{Name: "creds", Key: "password"}}}))
	app.Labels = map[string]string{controllersuite.OwnManager: "true"}
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	opts := manager.DefaultOptions()
	opts.WatchNamespaces, opts.EnablePodLabeler = ns, false
	opts.ConfigRolloutSecrets = true
	_, stop := suite.RunManager(t, opts)
	var converged *appsv1.Deployment
	g.Eventually(func(g Gomega) {
		converged = get(g, ns, app.Name, &appsv1.Deployment{})
		g.Expect(converged.Spec.Template.Annotations).To(HaveKey(demoapplication.ConfigHashAnnotation))
		g.Expect(get(g, ns, app.Name, &paasv1.DemoApplication{}).Status.ObservedGeneration).To(Equal(app.Generation))
	}, waitFor, pollEvery).Should(Succeed())
	g.Expect(converged.Labels).NotTo(HaveKey(demoapplication.ConfigMapsHashLabel))
	stop()

	// Secret reads off: one write, of the ConfigMaps' hash, and the same template and
	// generation.
	opts.ConfigRolloutSecrets = false
	requests, _ := suite.RunManager(t, opts)
	deployments := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	g.Eventually(func(g Gomega) map[string]string {
		return get(g, ns, app.Name, &appsv1.Deployment{}).Labels
	}, waitFor, pollEvery).Should(HaveKey(demoapplication.ConfigMapsHashLabel))
	g.Consistently(func(g Gomega) {
		d := get(g, ns, app.Name, &appsv1.Deployment{})
		g.Expect(d.Spec.Template).To(Equal(converged.Spec.Template))
		g.Expect(d.Generation).To(Equal(converged.Generation))
		g.Expect(requests.WritesUnder(deployments)).To(Equal(1))
	}, 2*time.Second, 100*time.Millisecond).Should(Succeed())

	creds.Data["password"] = []byte("changed")
	g.Expect(k8sClient.Update(ctx, creds)).To(Succeed())
	g.Consistently(func(g Gomega) int64 { return get(g, ns, app.Name, &appsv1.Deployment{}).Generation }, 2*time.Second, 100*time.Millisecond).
		Should(Equal(converged.Generation))
	settings.Data["level"] = "debug"
	g.Expect(k8sClient.Update(ctx, settings)).To(Succeed())
	g.Eventually(func(g Gomega) string { return configHash(g, ns, app.Name) }, waitFor, pollEvery).
		ShouldNot(Equal(converged.Spec.Template.Annotations[demoapplication.ConfigHashAnnotation]))
	g.Expect(get(g, ns, app.Name, &appsv1.Deployment{}).Generation).To(Equal(converged.Generation + 1))
}

// TestMissingConfigIsACause: a ConfigMap the pods read through env that does not exist
// makes the app Degraded and Stalled, as the kubelet's CreateContainerConfigError would,
// naming it and the field that reads it, and nothing rolls; a missing optional one is no
// cause. Once it exists, the cause goes and the hash is set.
func TestMissingConfigIsACause(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	app := builder.DemoApplication(ns, "web", builder.Env(
		paasv1.EnvVar{Name: "DB", ValueFrom: &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{Name: "db", Key: "host"}}},
		paasv1.EnvVar{Name: "TOKEN", ValueFrom: &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{Name: "maybe", Key: "token", Optional: ptr.To(true)}}}))
	g.Expect(k8sClient.Create(ctx, app)).To(Succeed())

	degraded := eventually(g, app, paasv1.ConditionDegraded, metav1.ConditionTrue, paasv1.ReasonConfigNotFound)
	g.Expect(degraded.Message).To(Equal("ConfigMap db, which spec.env[DB].valueFrom.configMapKeyRef reads, does not exist"))
	g.Expect(condition(app, paasv1.ConditionStalled)).To(HaveField("Reason", paasv1.ReasonConfigNotFound))
	g.Expect(configHash(g, ns, app.Name)).To(BeEmpty())

	// The ConfigMap, without the key: still missing.
	db := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Data: map[string]string{"port": "5432"}}
	g.Expect(k8sClient.Create(ctx, db)).To(Succeed())
	g.Eventually(func(g Gomega) string {
		return condition(get(g, ns, app.Name, app), paasv1.ConditionDegraded).Message
	}, waitFor, pollEvery).Should(Equal("key host of ConfigMap db, which spec.env[DB].valueFrom.configMapKeyRef reads, does not exist"))

	db.Data["host"] = "db.example"
	g.Expect(k8sClient.Update(ctx, db)).To(Succeed())
	g.Eventually(func(g Gomega) string {
		return condition(get(g, ns, app.Name, app), paasv1.ConditionDegraded).Reason
	}, waitFor, pollEvery).ShouldNot(Equal(paasv1.ReasonConfigNotFound))
	g.Expect(configHash(g, ns, app.Name)).NotTo(BeEmpty())
}
