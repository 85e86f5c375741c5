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
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/lru"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	paasv1 "github.com/cmft/demo-operator/api/v1"
)

// ConfigHashAnnotation is the pod template's annotation that holds the hash of the ConfigMaps
// and Secrets the pods read: when it changes, the Deployment rolls the pods.
const ConfigHashAnnotation = "paas.cmft.com/config-hash"

// ConfigMapsHashLabel on a Deployment whose pods read Secrets, while the operator reads
// none, holds (shortened, configMapsHashLength) the hash of their ConfigMaps that its pod
// template's config hash was last set for. The template keeps a hash that covered Secrets too
// (an earlier operator's, or one run with --config-rollout-secrets) until that changes, so
// that turning Secret reads off restarts no pod. A label, not an annotation: a Deployment's
// annotations are copied to its ReplicaSet, and a change of them makes a new generation.
const ConfigMapsHashLabel = "paas.cmft.com/configmaps-hash"

// configMapsHashLength is how much of the hash ConfigMapsHashLabel keeps, 128 bits: a label's
// value holds no more than 63 characters.
const configMapsHashLength = 32

// Kinds of the objects a configRef reads.
const (
	kindConfigMap = "ConfigMap"
	kindSecret    = "Secret"
)

// configRef is one read, by the pods, of a ConfigMap or Secret of the app's namespace.
type configRef struct {
	kind, name string
	// key is the key read; empty, every key.
	key      string
	optional bool
	// field is the spec's field that reads it, for the messages.
	field string
}

// configRefs returns the reads of ConfigMaps and Secrets whose change rolls the pods under
// spec's rolloutOnConfigChange: those of env and envFrom of every container, and with All
// those of the volumes.
func configRefs(spec *paasv1.DemoApplicationSpec) []configRef {
	mode := cmp.Or(spec.RolloutOnConfigChange, paasv1.ConfigRolloutEnv)
	if mode == paasv1.ConfigRolloutNone {
		return nil
	}
	var refs []configRef
	fromEnv := func(path string, env []paasv1.EnvVar, envFrom []paasv1.EnvFromSource) {
		for _, e := range env {
			switch from := e.ValueFrom; {
			case from != nil && from.ConfigMapKeyRef != nil:
				k := from.ConfigMapKeyRef
				refs = append(refs, configRef{kindConfigMap, string(k.Name), k.Key, ptr.Deref(k.Optional, false),
					fmt.Sprintf("%s.env[%s].valueFrom.configMapKeyRef", path, e.Name)})
			case from != nil && from.SecretKeyRef != nil:
				k := from.SecretKeyRef
				refs = append(refs, configRef{kindSecret, string(k.Name), k.Key, ptr.Deref(k.Optional, false),
					fmt.Sprintf("%s.env[%s].valueFrom.secretKeyRef", path, e.Name)})
			}
		}
		for i, e := range envFrom {
			if o := e.ConfigMapRef; o != nil {
				refs = append(refs, configRef{kindConfigMap, string(o.Name), "", ptr.Deref(o.Optional, false), fmt.Sprintf("%s.envFrom[%d].configMapRef", path, i)})
			}
			if o := e.SecretRef; o != nil {
				refs = append(refs, configRef{kindSecret, string(o.Name), "", ptr.Deref(o.Optional, false), fmt.Sprintf("%s.envFrom[%d].secretRef", path, i)})
			}
		}
	}
	fromEnv("spec", spec.Env, spec.EnvFrom)
	for _, c := range spec.Sidecars {
		fromEnv(fmt.Sprintf("spec.sidecars[%s]", c.Name), c.Env, c.EnvFrom)
	}
	for _, c := range spec.InitContainers {
		fromEnv(fmt.Sprintf("spec.initContainers[%s]", c.Name), c.Env, c.EnvFrom)
	}
	if mode != paasv1.ConfigRolloutAll {
		return refs
	}
	fromVolume := func(kind, name, field string, items []paasv1.KeyToPath, optional *bool) {
		if len(items) == 0 {
			refs = append(refs, configRef{kind, name, "", ptr.Deref(optional, false), field})
		}
		for _, item := range items {
			refs = append(refs, configRef{kind, name, item.Key, ptr.Deref(optional, false), field})
		}
	}
	for _, v := range spec.Volumes {
		if cm := v.ConfigMap; cm != nil {
			fromVolume(kindConfigMap, string(cm.Name), fmt.Sprintf("spec.volumes[%s].configMap", v.Name), cm.Items, cm.Optional)
		}
		if s := v.Secret; s != nil {
			fromVolume(kindSecret, string(s.SecretName), fmt.Sprintf("spec.volumes[%s].secret", v.Name), s.Items, s.Optional)
		}
	}
	return refs
}

// configRefIndex indexes the cached DemoApplications by the ConfigMaps and Secrets whose
// change rolls their pods, each as kind/name.
const configRefIndex = "configRef"

// configRefsOf is the value of configRefIndex for obj, a DemoApplication.
func configRefsOf(obj client.Object) []string {
	app, ok := obj.(*paasv1.DemoApplication)
	if !ok {
		return nil
	}
	var out []string
	for _, ref := range configRefs(&app.Spec) {
		out = append(out, ref.kind+"/"+ref.name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// configApps maps a ConfigMap or Secret (of kind) to the DemoApplications whose pods it
// rolls, through configRefIndex: the ones that read nothing of it are not woken.
func (r *Reconciler) configApps(kind string) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		apps := &paasv1.DemoApplicationList{}
		if err := r.List(ctx, apps, client.InNamespace(obj.GetNamespace()), client.MatchingFields{configRefIndex: kind + "/" + obj.GetName()}); err != nil {
			return nil
		}
		requests := make([]reconcile.Request, 0, len(apps.Items))
		for _, app := range apps.Items {
			requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&app)})
		}
		return requests
	}
}

// withConfigHash sets on template the hash of what app's pods read of ConfigMaps, and of
// Secrets with ConfigRolloutSecrets (without, the scope keeps the fields that read them, for
// an Event), as settleConfigHash decides from was, what the live workload carries; on meta,
// the workload's own metadata, the hash it records. A missing one they need is the pass's
// cause, stalling as the kubelet's CreateContainerConfigError does.
func (r *Reconciler) withConfigHash(ctx context.Context, s *scope, was configHashes,
	meta *metav1ac.ObjectMetaApplyConfiguration, template *corev1ac.PodTemplateSpecApplyConfiguration) error {
	refs := configRefs(&s.app.Spec)
	if !r.ConfigRolloutSecrets {
		refs, s.unrolledSecrets = splitSecretRefs(refs)
	}
	hash, missing, err := r.configHash(ctx, s.app.Namespace, refs)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		s.causes = append(s.causes, &cause{stalls: true, reason: paasv1.ReasonConfigNotFound, message: strings.Join(missing, "; ")})
	}
	set := settleConfigHash(hash, len(missing) > 0, len(s.unrolledSecrets) > 0, was)
	withConfigHashAnnotation(template, set.template)
	if set.configMaps != nil {
		meta.WithLabels(map[string]string{ConfigMapsHashLabel: *set.configMaps})
	}
	return nil
}

// withConfigHashAnnotation sets hash on template, when there is one.
func withConfigHashAnnotation(template *corev1ac.PodTemplateSpecApplyConfiguration, hash string) {
	if hash != "" {
		template.WithAnnotations(map[string]string{ConfigHashAnnotation: hash})
	}
}

// configHashesOf returns the config hashes live, the app's workload as the cache holds it
// carries on its metadata and its pod template: none when it is not
// the app's.
func configHashesOf(app *paasv1.DemoApplication, live client.Object, template *corev1.PodTemplateSpec) configHashes {
	var was configHashes
	if !metav1.IsControlledBy(live, app) {
		return was
	}
	was.template = template.Annotations[ConfigHashAnnotation]
	if v, ok := live.GetLabels()[ConfigMapsHashLabel]; ok {
		was.configMaps = &v
	}
	return was
}

// configHashes is what a Deployment carries of the config hash: the pod template's
// (ConfigHashAnnotation, empty for none) and, on its own metadata, the hash of the ConfigMaps
// that one was set for (ConfigMapsHashLabel, nil for none).
type configHashes struct {
	template   string
	configMaps *string
}

// settleConfigHash returns the config hashes the Deployment gets, given hash, that of what
// the pods read the operator may read, whether some of it is missing, whether they read
// Secrets the operator may not read (secretsUnread), and the hashes the Deployment has (was).
// While one is missing it keeps was: a rollout would only bring pods the kubelet cannot
// start. While Secrets are unread, hash covers ConfigMaps alone, and a template hash that
// covered Secrets too would roll every pod if replaced: the template keeps was's until hash
// differs from the one recorded with it (none recorded: the first pass since Secret reads
// went off), and the Deployment records hash (its first configMapsHashLength characters).
func settleConfigHash(hash string, missing, secretsUnread bool, was configHashes) configHashes {
	recorded := hash[:min(len(hash), configMapsHashLength)]
	switch {
	case missing && secretsUnread:
		return was
	case missing:
		return configHashes{template: was.template}
	case !secretsUnread:
		return configHashes{template: hash}
	case was.template != "" && (was.configMaps == nil || *was.configMaps == recorded):
		return configHashes{template: was.template, configMaps: &recorded}
	default:
		return configHashes{template: hash, configMaps: &recorded}
	}
}

// splitSecretRefs returns of refs those of ConfigMaps, and the fields that read a Secret:
// without --config-rollout-secrets the operator may not read Secrets, so their changes roll
// nothing and their absence is left to the kubelet to report.
func splitSecretRefs(refs []configRef) (configMaps []configRef, secretFields []string) {
	for _, ref := range refs {
		if ref.kind == kindSecret {
			secretFields = append(secretFields, ref.field)
		} else {
			configMaps = append(configMaps, ref)
		}
	}
	return configMaps, secretFields
}

// configHash returns the hash of what refs, the reads of an app's pods in namespace, take of
// ConfigMaps and Secrets (empty when there are none), and what they need that does not exist.
// The hash is made of a digest of each object read (configDigest); the operator keeps
// nothing of their data but these digests.
func (r *Reconciler) configHash(ctx context.Context, namespace string, refs []configRef) (string, []string, error) {
	if len(refs) == 0 {
		return "", nil, nil
	}
	slices.SortStableFunc(refs, func(a, b configRef) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.name, b.name), cmp.Compare(a.key, b.key))
	})
	h := sha256.New()
	var missing []string
	for len(refs) > 0 {
		kind, name := refs[0].kind, refs[0].name
		n := 1
		for n < len(refs) && refs[n].kind == kind && refs[n].name == name {
			n++
		}
		group := refs[:n]
		refs = refs[n:]
		writeLengthPrefixed(h, kind, name)
		d, found, err := r.configDigest(ctx, namespace, kind, name, group)
		if err != nil {
			return "", nil, err
		}
		if !found {
			writeLengthPrefixed(h, "absent")
			for _, ref := range group {
				if !ref.optional {
					missing = append(missing, fmt.Sprintf("%s %s, which %s reads, does not exist", kind, name, ref.field))
				}
			}
			continue
		}
		writeLengthPrefixed(h, string(d.sum[:]))
		for _, ref := range group {
			if ref.key != "" && !ref.optional && slices.Contains(d.absent, ref.key) {
				missing = append(missing, fmt.Sprintf("key %s of %s %s, which %s reads, does not exist", ref.key, kind, name, ref.field))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), missing, nil
}

// writeLengthPrefixed writes each part to h after its length, so that no two lists of parts
// write the same bytes.
func writeLengthPrefixed(h io.Writer, parts ...string) {
	for _, p := range parts {
		_, _ = h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
}

// A configDigest is what the hash takes of one ConfigMap or Secret for the reads of a group
// of configRefs: a digest of its uid and of the keys read with their values (every key when
// one read takes them all), and which keys read it lacks. A Secret's uid is in the digest so
// that whoever reads the Deployment but not the Secret cannot test a guess of its value
// against the hash.
type configDigest struct {
	sum    [sha256.Size]byte
	absent []string
}

// configDigestKey names a configDigest: the object, its resourceVersion and the keys read
// (whether every key, and which by name).
type configDigestKey struct {
	namespace, kind, name, resourceVersion, keys string
}

// configDigests remembers the latest digests taken, so that an app's passes read a
// ConfigMap or Secret from the API server only when its resourceVersion, which the metadata
// cache holds, says it changed.
type configDigests struct {
	once   sync.Once
	recent *lru.Cache
}

// configDigestsSize bounds the digests remembered, each about two hundred bytes.
const configDigestsSize = 4096

func (c *configDigests) cache() *lru.Cache {
	c.once.Do(func() { c.recent = lru.New(configDigestsSize) })
	return c.recent
}

// configDigest returns the digest of the ConfigMap or Secret (of kind) name of namespace for
// the reads of group; found is false when it does not exist. The metadata cache says at which
// resourceVersion it is; its data is read from the API server's watch cache when no digest of
// that version is remembered.
func (r *Reconciler) configDigest(ctx context.Context, namespace, kind, name string, group []configRef) (configDigest, bool, error) {
	every := false
	var keys []string
	for _, ref := range group {
		if ref.key == "" {
			every = true
		} else {
			keys = append(keys, ref.key)
		}
	}
	keys = slices.Compact(keys)
	objKey := client.ObjectKey{Namespace: namespace, Name: name}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
	err := r.configVersions.Get(ctx, objKey, meta)
	if err != nil && !apierrors.IsNotFound(err) {
		return configDigest{}, false, fmt.Errorf("reading %s %s/%s, which the pods read: %w", kind, namespace, name, err)
	}
	key := configDigestKey{namespace, kind, name, meta.ResourceVersion, fmt.Sprint(every, keys)}
	// One the metadata cache has not seen may have been created just before the app (kubectl
	// apply of both): the API server says whether it exists.
	if d, ok := r.configDigests.cache().Get(key); ok && err == nil {
		return d.(configDigest), true, nil
	}

	obj, data, err := r.readConfig(ctx, objKey, kind)
	switch {
	case apierrors.IsNotFound(err):
		return configDigest{}, false, nil
	case err != nil:
		return configDigest{}, false, fmt.Errorf("reading %s %s/%s, which the pods read: %w", kind, namespace, name, err)
	}
	if every {
		keys = append(slices.Sorted(maps.Keys(data)), keys...)
	}
	var d configDigest
	h := sha256.New()
	if kind == kindSecret {
		writeLengthPrefixed(h, string(obj.GetUID()))
	}
	for _, k := range keys {
		if v, ok := data[k]; ok {
			writeLengthPrefixed(h, k, string(v))
		} else {
			writeLengthPrefixed(h, k, "absent")
			d.absent = append(d.absent, k)
		}
	}
	h.Sum(d.sum[:0])
	// Remembered under the version read, which the metadata cache reaches, if it lags, with
	// the event that wakes the app.
	key.resourceVersion = obj.GetResourceVersion()
	r.configDigests.cache().Add(key, d)
	return d, true, nil
}

// readConfig reads the ConfigMap or Secret (of kind) key from the API server's watch cache,
// and its keys and values.
func (r *Reconciler) readConfig(ctx context.Context, key client.ObjectKey, kind string) (client.Object, map[string][]byte, error) {
	fromWatchCache := &client.GetOptions{Raw: &metav1.GetOptions{ResourceVersion: "0"}}
	if kind == kindSecret {
		secret := &corev1.Secret{}
		err := r.APIReader.Get(ctx, key, secret, fromWatchCache)
		return secret, secret.Data, err
	}
	cm := &corev1.ConfigMap{}
	err := r.APIReader.Get(ctx, key, cm, fromWatchCache)
	data := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return cm, data, err
}
