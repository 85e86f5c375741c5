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

package restraint

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// podField says what a field of the pod or container API is to the operator: the app's, when
// from names the DemoApplication field it comes from; otherwise a field no app can ask for,
// which an attacker writes as probe and the restraint must refuse (or, when byAPI, the API
// server refuses or drops first: a field of a feature gate that is off, a value its validation
// forbids in a Deployment's pods).
type podField struct {
	from  string
	probe any
	byAPI bool
	// at, when set, is where the probe is written instead of every place of its type.
	at [][]string
}

func fromApp(from string) podField { return podField{from: from} }
func probe(v any) podField         { return podField{probe: v} }
func probeByAPI(v any) podField    { return podField{probe: v, byAPI: true} }

// podFields covers every field of the pod API types the operator's pods are made of, by their
// JSON names: a Kubernetes release that grows one fails TestEveryPodFieldIsHeld until it is
// classified here (config/restraint already refuses it: its lists name what apps may set).
var podFields = map[reflect.Type]map[string]podField{
	reflect.TypeFor[corev1.PodSpec](): {
		"volumes":                       fromApp("spec.volumes"),
		"initContainers":                fromApp("spec.initContainers"),
		"containers":                    fromApp("spec.image"),
		"restartPolicy":                 probeByAPI("OnFailure"),
		"terminationGracePeriodSeconds": fromApp("spec.terminationGracePeriodSeconds"),
		"dnsPolicy":                     probe("Default"),
		"nodeSelector":                  fromApp("spec.nodeSelector"),
		"serviceAccountName":            fromApp("spec.serviceAccountName"),
		"serviceAccount":                fromApp("spec.serviceAccountName"),
		"automountServiceAccountToken":  fromApp("spec.automountServiceAccountToken"),
		"securityContext":               fromApp("spec.podSecurityContext"),
		"imagePullSecrets":              fromApp("spec.imagePullSecrets"),
		"affinity":                      fromApp("spec.affinity"),
		"tolerations":                   fromApp("spec.tolerations"),
		"priorityClassName":             fromApp("spec.priorityClassName"),
		"topologySpreadConstraints":     fromApp("spec.topologySpreadConstraints"),
		"ephemeralContainers":           probeByAPI([]any{map[string]any{"name": "debug", "image": "attacker.example/shell:1"}}),
		"activeDeadlineSeconds":         probeByAPI(int64(10)),
		"nodeName":                      probe("control-plane"),
		"hostNetwork":                   probe(true),
		"hostPID":                       probe(true),
		"hostIPC":                       probe(true),
		"shareProcessNamespace":         probe(true),
		"hostname":                      probe("db"),
		"subdomain":                     probe("db"),
		"schedulerName":                 probe("attacker-scheduler"),
		"hostAliases":                   probe([]any{map[string]any{"ip": "203.0.113.1", "hostnames": []any{"registry.example"}}}),
		"priority":                      probe(int64(2000000000)),
		"dnsConfig":                     probe(map[string]any{"nameservers": []any{"203.0.113.53"}}),
		"readinessGates":                probe([]any{map[string]any{"conditionType": "example.com/never"}}),
		"runtimeClassName":              probe("unsandboxed"),
		"enableServiceLinks":            probe(false),
		"preemptionPolicy":              probe("Never"),
		"overhead":                      probe(map[string]any{"cpu": "1"}),
		"setHostnameAsFQDN":             probe(true),
		"os":                            probe(map[string]any{"name": "linux"}),
		"hostUsers":                     probe(false),
		"schedulingGates":               probe([]any{map[string]any{"name": "example.com/never"}}),
		"resourceClaims":                probe([]any{map[string]any{"name": "gpu", "resourceClaimName": "gpu"}}),
		"resources":                     probe(map[string]any{"limits": map[string]any{"cpu": "64"}}),
		"hostnameOverride":              probe("db"),
		"schedulingGroup":               probeByAPI(map[string]any{"podGroupName": "gang"}),
		"evictionResponders":            probeByAPI([]any{map[string]any{"name": "example.com/responder", "priority": int64(1)}}),
	},
	reflect.TypeFor[corev1.Container](): {
		"name":                     fromApp("spec.sidecars.name"),
		"image":                    fromApp("spec.image"),
		"command":                  fromApp("spec.command"),
		"args":                     fromApp("spec.args"),
		"ports":                    fromApp("spec.ports"),
		"envFrom":                  fromApp("spec.envFrom"),
		"env":                      fromApp("spec.env"),
		"resources":                fromApp("spec.resources"),
		"volumeMounts":             fromApp("spec.volumeMounts"),
		"livenessProbe":            fromApp("spec.livenessProbe"),
		"readinessProbe":           fromApp("spec.readinessProbe"),
		"startupProbe":             fromApp("spec.startupProbe"),
		"lifecycle":                fromApp("spec.lifecycle"),
		"imagePullPolicy":          fromApp("spec.imagePullPolicy"),
		"securityContext":          fromApp("spec.securityContext"),
		"terminationMessagePath":   probe("/etc/passwd"),
		"terminationMessagePolicy": probe("FallbackToLogsOnError"),
		"workingDir":               probe("/"),
		"resizePolicy":             probe([]any{map[string]any{"resourceName": "cpu", "restartPolicy": "NotRequired"}}),
		"restartPolicy":            probeByAPI("OnFailure"),
		"restartPolicyRules":       probeByAPI([]any{map[string]any{"action": "Restart", "exitCodes": map[string]any{"operator": "In", "values": []any{int64(42)}}}}),
		// The app's container mounts the claim data, which a device may not name too.
		"volumeDevices": {probe: []any{map[string]any{"name": "data", "devicePath": "/dev/xvda"}}, at: sidecar},
		"stdin":         probe(true),
		"stdinOnce":     probe(true),
		"tty":           probe(true),
	},
	reflect.TypeFor[corev1.SecurityContext](): {
		"capabilities":             fromApp("spec.securityContext.capabilities"),
		"runAsUser":                fromApp("spec.securityContext.runAsUser"),
		"runAsGroup":               fromApp("spec.securityContext.runAsGroup"),
		"runAsNonRoot":             fromApp("spec.securityContext.runAsNonRoot"),
		"readOnlyRootFilesystem":   fromApp("spec.securityContext.readOnlyRootFilesystem"),
		"allowPrivilegeEscalation": fromApp("spec.securityContext.allowPrivilegeEscalation"),
		"seccompProfile":           fromApp("spec.securityContext.seccompProfile"),
		"privileged":               probe(true),
		"seLinuxOptions":           probe(map[string]any{"type": "spc_t"}),
		"windowsOptions":           probe(map[string]any{"runAsUserName": "ContainerAdministrator"}),
		"procMount":                probeByAPI("Unmasked"),
		"appArmorProfile":          probe(map[string]any{"type": "Unconfined"}),
	},
	reflect.TypeFor[corev1.PodSecurityContext](): {
		"runAsUser":                fromApp("spec.podSecurityContext.runAsUser"),
		"runAsGroup":               fromApp("spec.podSecurityContext.runAsGroup"),
		"runAsNonRoot":             fromApp("spec.podSecurityContext.runAsNonRoot"),
		"supplementalGroups":       fromApp("spec.podSecurityContext.supplementalGroups"),
		"fsGroup":                  fromApp("spec.podSecurityContext.fsGroup"),
		"seccompProfile":           fromApp("spec.podSecurityContext.seccompProfile"),
		"seLinuxOptions":           probe(map[string]any{"type": "spc_t"}),
		"windowsOptions":           probe(map[string]any{"runAsUserName": "ContainerAdministrator"}),
		"supplementalGroupsPolicy": probe("Strict"),
		"sysctls":                  probe([]any{map[string]any{"name": "kernel.shm_rmid_forced", "value": "0"}}),
		"fsGroupChangePolicy":      probe("OnRootMismatch"),
		"appArmorProfile":          probe(map[string]any{"type": "Unconfined"}),
		"seLinuxChangePolicy":      probe("MountOption"),
	},
}

// where is the path, in a Deployment, of the object of each type that TestEveryPodFieldIsHeld
// writes a field of: the pod, the app's container, a sidecar, and their security contexts.
var where = map[reflect.Type][][]string{
	reflect.TypeFor[corev1.PodSpec]():   {{"spec", "template", "spec"}},
	reflect.TypeFor[corev1.Container](): {{"spec", "template", "spec", "containers", "0"}, sidecar[0]},
	// The init container's, which does not forbid privilege escalation (privileged would contradict it).
	reflect.TypeFor[corev1.SecurityContext]():    {{"spec", "template", "spec", "initContainers", "1", "securityContext"}},
	reflect.TypeFor[corev1.PodSecurityContext](): {{"spec", "template", "spec", "securityContext"}},
}

// sidecar is where webSpec's sidecar is: the first of the init containers.
var sidecar = [][]string{{"spec", "template", "spec", "initContainers", "0"}}

// TestEveryPodFieldIsHeld writes, with the operator's token, each field of the pod API that no
// DemoApplication can ask for into the pods of the operator's Deployment: the restraint must
// refuse each. The fields an app can ask for must name a field the CRD has.
func TestEveryPodFieldIsHeld(t *testing.T) {
	w := newWeb(t, testenv.NewNamespace(t, admin, "podfields-"))
	schema := crdSchema(t)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w.deployment)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	var probed, apps int
	for typ, fields := range podFields {
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			field, ok := fields[name]
			switch {
			case !ok:
				t.Errorf("%s.%s: a field of the pod API that podFields does not classify: name the DemoApplication field "+
					"it comes from, or give a value that config/restraint must refuse", typ.Name(), name)
				continue
			case field.from != "":
				apps++
				if !hasField(schema, field.from) {
					t.Errorf("%s.%s: comes from %s, which the CRD does not have", typ.Name(), name, field.from)
				}
				continue
			}
			places := where[typ]
			if field.at != nil {
				places = field.at
			}
			for _, at := range places {
				probed++
				t.Run(strings.Join(at, ".")+"."+name, func(t *testing.T) {
					g := NewWithT(t)
					changed := runtime.DeepCopyJSON(u)
					g.Expect(setAt(changed, at, name, runtime.DeepCopyJSONValue(field.probe))).To(Succeed())
					d := &appsv1.Deployment{}
					g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(changed, d)).To(Succeed())
					err := write(d, asOperator)
					if field.byAPI && err == nil {
						// Dropped by the API server, its feature gate off: nothing was written.
						written, werr := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
						g.Expect(werr).NotTo(HaveOccurred())
						_, found, _ := unstructured.NestedFieldNoCopy(written, append(at, name)...)
						g.Expect(found).To(BeFalse(), "admitted with %s set", name)
						return
					}
					g.Expect(err).To(HaveOccurred(), "admitted: the operator's token wrote %s into its pods", name)
					if !field.byAPI {
						g.Expect(err.Error()).To(ContainSubstring("ValidatingAdmissionPolicy"))
					}
				})
			}
		}
	}
	t.Logf("pod API fields: %d an app can ask for, %d writes of the others refused", apps, probed)
}

// setAt sets the field name of the object at path in obj, whose list indexes are numbers.
func setAt(obj map[string]any, path []string, name string, value any) error {
	var current any = obj
	for _, p := range path {
		switch c := current.(type) {
		case map[string]any:
			if _, ok := c[p]; !ok {
				c[p] = map[string]any{}
			}
			current = c[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(c) {
				return fmt.Errorf("no item %s in %v", p, path)
			}
			current = c[i]
		}
	}
	m, ok := current.(map[string]any)
	if !ok {
		return fmt.Errorf("%v is no object", path)
	}
	m[name] = value
	return nil
}
