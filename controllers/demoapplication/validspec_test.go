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
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// TestEveryAcceptedSpecBuildsValidObjects submits generated DemoApplications to the API server
// and, for every one it accepts, server-side dry-runs the Deployment, Service and per-pod
// Service the operator would build from it: an app the API server accepts must never sit
// Degraded because what it asks for is invalid. The generator favours the edges (lengths,
// characters, ranges, combinations). DEMOAPP_CASES and DEMOAPP_SEED rerun it larger or again.
func TestEveryAcceptedSpecBuildsValidObjects(t *testing.T) {
	ctx := context.Background()
	ns := suite.NewNamespace(t)
	cases := envInt(t, "DEMOAPP_CASES", 400)
	seed := uint64(envInt(t, "DEMOAPP_SEED", int(rand.Uint32())))
	t.Logf("seed %d (DEMOAPP_SEED reruns it)", seed)
	gen := specGen{rand.New(rand.NewPCG(seed, seed))}

	accepted, failures := 0, 0
	for i := range cases {
		app := gen.app(ns, i)
		submitted, _ := json.Marshal(app)
		err := k8sClient.Create(ctx, app, client.DryRunAll)
		if err != nil {
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Fatalf("case %d: %v", i, err)
			}
			continue
		}
		accepted++
		if refused := applyDryRun(ctx, app); refused != nil {
			failures++
			t.Errorf("accepted, then its objects refused: %v\n%s", refused, submitted)
		}
	}
	t.Logf("%d cases: %d accepted, %d refused by the API server; %d accepted then refused", cases, accepted, cases-accepted, failures)
	if accepted < cases/20 || accepted == cases {
		t.Errorf("%d of %d accepted: the generator no longer covers both sides of the schema", accepted, cases)
	}
}

// applyDryRun server-side applies, without persisting, the objects app's controller would
// apply, and returns the first the API server refuses.
func applyDryRun(ctx context.Context, app *paasv1.DemoApplication) error {
	if app.UID == "" {
		app.UID = types.UID("00000000-0000-0000-0000-000000000001")
	}
	keys := wellknown.DefaultPodLabelKeys
	objects := []runtime.ApplyConfiguration{demoapplication.NewDeployment(app, nil, keys)}
	if svc := demoapplication.NewService(app); svc != nil {
		objects = append(objects, svc)
	}
	if demoapplication.PodServicesEnabled(app) {
		// The name the ReplicaSet controller gives a pod: its generateName cut to leave room
		// for the random suffix.
		base := app.Name + "-5d4f8c7b9f-"
		if len(base) > 58 {
			base = base[:58]
		}
		pod := &metav1.ObjectMeta{Name: base + "x7k2q", UID: "00000000-0000-0000-0000-000000000002"}
		objects = append(objects, demoapplication.NewPodService(app, pod, keys))
	}
	for _, obj := range objects {
		if err := k8sClient.Apply(ctx, obj, client.FieldOwner(wellknown.FieldManager), client.ForceOwnership, client.DryRunAll); err != nil {
			return err
		}
	}
	return nil
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// specGen generates DemoApplications, each field valid most of the time and at or past one of
// its edges otherwise.
type specGen struct{ r *rand.Rand }

func (g specGen) pick(choices ...string) string { return choices[g.r.IntN(len(choices))] }

func (g specGen) chance(p float64) bool { return g.r.Float64() < p }

// word returns a string of length within [minLen, maxLen] drawn from alphabet.
func (g specGen) word(alphabet string, minLen, maxLen int) string {
	n := minLen + g.r.IntN(maxLen-minLen+1)
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[g.r.IntN(len(alphabet))])
	}
	return b.String()
}

func (g specGen) app(namespace string, i int) *paasv1.DemoApplication {
	name := fmt.Sprintf("app%d", i)
	if g.chance(0.15) {
		name = g.pick(
			g.word("abcdefghijklmnopqrstuvwxyz", 1, 1)+g.word("abcdefghijklmnopqrstuvwxyz0123456789-", 40, 64)+"z",
			g.word("0123456789", 1, 2)+"app",
			"app.v"+strconv.Itoa(i),
			strings.Repeat("a", 60+g.r.IntN(8)),
		)
	}
	app := &paasv1.DemoApplication{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: paasv1.DemoApplicationSpec{
			Image: g.pick("nginx", "nginx:1.27", "registry.example.com:5000/team/app@sha256:"+strings.Repeat("a", 64), "a"),
		},
	}
	if g.chance(0.5) {
		app.Spec.Replica = ptr.To(int32(g.pick2(0, 1, 3, 2147483647)))
	}
	for j := range g.r.IntN(4) {
		app.Spec.Ports = append(app.Spec.Ports, g.port(j))
	}
	for range g.r.IntN(4) {
		app.Spec.Env = append(app.Spec.Env, g.env())
	}
	if g.chance(0.4) {
		app.Spec.Resources = g.resources()
	}
	g.podFields(&app.Spec)
	if g.chance(0.3) {
		ps := &paasv1.PodServices{Enabled: g.chance(0.8), Type: corev1.ServiceType(g.pick("", "ClusterIP", "NodePort", "LoadBalancer"))}
		for _, p := range app.Spec.Ports {
			if p.Name != "" && g.chance(0.5) {
				ps.Ports = append(ps.Ports, p.Name)
			}
		}
		app.Spec.PodServices = ps
	}
	return app
}

func (g specGen) pick2(choices ...int) int { return choices[g.r.IntN(len(choices))] }

func (g specGen) portName() string {
	if g.chance(0.85) {
		return g.pick("http", "web", "grpc-api", "metrics", "h2c")
	}
	return g.pick(g.word("0123456789", 1, 5), g.word("abcdefghijklmnopqrstuvwxyz0123456789-", 1, 16), "a--b", "http-")
}

func (g specGen) port(j int) paasv1.DemoApplicationPort {
	p := paasv1.DemoApplicationPort{
		Port:     int32(g.pick2(80, 443, 8080+j, 1, 65535)),
		Protocol: corev1.Protocol(g.pick("", "TCP", "TCP", "UDP", "SCTP")),
	}
	if g.chance(0.95) {
		p.Name = g.portName()
	}
	switch g.r.IntN(4) {
	case 0:
		p.TargetPort = ptr.To(intstr.FromInt32(int32(g.pick2(1, 8080, 65535))))
	case 1:
		p.TargetPort = ptr.To(intstr.FromString(g.portName()))
	}
	if g.chance(0.2) {
		p.NodePort = ptr.To(int32(30000 + j + g.r.IntN(2700)))
	}
	return p
}

func (g specGen) envName() string {
	if g.chance(0.85) {
		return g.pick("LOG_LEVEL", "HTTP_PORT", "app.mode", "_X", "my-var")
	}
	return g.pick("", "1ST", "A=B", "WITH SPACE", "é", g.word("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789.-", 1, 20))
}

func (g specGen) env() paasv1.EnvVar {
	e := paasv1.EnvVar{Name: g.envName()}
	switch g.r.IntN(12) {
	default:
		e.Value = g.pick("", "1", "debug")
	case 2:
		e.ValueFrom = &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: g.pick(
			"metadata.name", "metadata.namespace", "spec.nodeName", "status.podIP", "metadata.labels['team']",
			"metadata.annotations['a/b']", "spec.containers[0].image", "status.phase", "",
			"metadata.labels['"+strings.Repeat("k", 63+g.r.IntN(2))+"']",
			"metadata.annotations['"+strings.Repeat("d", 250+g.r.IntN(5))+".io/k']")}}
		if g.chance(0.2) {
			e.ValueFrom.FieldRef.APIVersion = g.pick("v1", "v2")
		}
	case 3:
		e.ValueFrom = &paasv1.EnvVarSource{ResourceFieldRef: &paasv1.ResourceFieldSelector{
			Resource:      g.pick("limits.cpu", "requests.memory", "limits.ephemeral-storage", "cpu", "limits.gpu", ""),
			ContainerName: g.pick("", "app", "sidecar"),
		}}
		if g.chance(0.3) {
			e.ValueFrom.ResourceFieldRef.Divisor = g.pick("1m", "1", "1Mi", "2", "1000m")
		}
	case 4:
		e.ValueFrom = &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{
			Name: g.pick("settings", "", "Bad_Name"),
			Key:  g.pick("level", "a.b-c_d", "", "with space", "a/b"),
		}}
	case 5:
		e.ValueFrom = &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{
			Name: g.pick("creds", ""),
			Key:  g.pick("password", "", "..", "..data", "."),
		}}
	case 6:
		e.Value = "1"
		e.ValueFrom = &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}
	}
	if g.chance(0.05) {
		e.ValueFrom = &paasv1.EnvVarSource{}
	}
	return e
}

func (g specGen) resources() *paasv1.ResourceRequirements {
	r := &paasv1.ResourceRequirements{}
	names := []corev1.ResourceName{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", "gpu", "pods"}
	quantities := []string{"1", "100m", "500m", "2", "64Mi", "1Gi", "0", "-1", "1.5"}
	if g.chance(0.6) {
		names, quantities = names[:2], quantities[:6]
	}
	for range g.r.IntN(3) {
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[names[g.r.IntN(len(names))]] = resource.MustParse(quantities[g.r.IntN(len(quantities))])
	}
	for range g.r.IntN(3) {
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		r.Limits[names[g.r.IntN(len(names))]] = resource.MustParse(quantities[g.r.IntN(len(quantities))])
	}
	return r
}

// podFields sets, now and then, each field of the pod spec an app may declare beyond its
// container's image, ports, env and resources.
func (g specGen) podFields(spec *paasv1.DemoApplicationSpec) {
	if g.chance(0.2) {
		spec.ImagePullPolicy = corev1.PullPolicy(g.pick("Always", "IfNotPresent", "Never", "Sometimes"))
	}
	for range g.r.IntN(3) {
		spec.ImagePullSecrets = append(spec.ImagePullSecrets, paasv1.LocalObjectReference{Name: g.objectName()})
	}
	if g.chance(0.2) {
		spec.Command = []string{g.pick("/bin/sh", "", "$(HOME)/run")}
		spec.Args = []string{"-c", g.pick("", "echo $(A)", strings.Repeat("x", 1000))}
	}
	for range g.r.IntN(2) {
		from := paasv1.EnvFromSource{Prefix: g.pick("", "", "", "", "DB_", "DB_", "1X", "A=B")}
		switch g.r.IntN(9) {
		case 0, 1, 2, 3:
			from.ConfigMapRef = &paasv1.OptionalObjectReference{Name: g.objectName()}
		case 5, 6, 7, 8:
			from.SecretRef = &paasv1.OptionalObjectReference{Name: g.objectName(), Optional: ptr.To(g.chance(0.5))}
		case 4:
			if g.chance(0.5) {
				from.ConfigMapRef = &paasv1.OptionalObjectReference{Name: "a"}
				from.SecretRef = &paasv1.OptionalObjectReference{Name: "b"}
			}
		}
		spec.EnvFrom = append(spec.EnvFrom, from)
	}
	if g.chance(0.2) {
		spec.ServiceAccountName = g.objectName()
	}
	if g.chance(0.2) {
		spec.AutomountServiceAccountToken = ptr.To(g.chance(0.5))
	}
	if g.chance(0.3) {
		spec.PodLabels = map[string]paasv1.LabelValue{g.labelKey(): paasv1.LabelValue(g.labelValue())}
	}
	if g.chance(0.3) {
		spec.PodAnnotations = map[string]string{g.labelKey(): g.pick("", "true", strings.Repeat("v", 5000), "multi\nline")}
	}
	if g.chance(0.3) {
		spec.NodeSelector = map[string]paasv1.LabelValue{g.labelKey(): paasv1.LabelValue(g.labelValue())}
	}
	if g.chance(0.2) {
		spec.MinReadySeconds = int32(g.pick2(0, 10, -1))
	}
}

// objectName returns the name of an object an app refers to, a DNS subdomain most of the time.
func (g specGen) objectName() string {
	if g.chance(0.95) {
		return g.pick("registry", "settings", "web", "a.b-c")
	}
	return g.pick("", "Web", "a_b", "-a", strings.Repeat("n", 254))
}

func (g specGen) labelKey() string {
	if g.chance(0.9) {
		return g.pick("team", "example.com/team", "kubernetes.io/arch", "a.b/c-d_e.f")
	}
	return g.pick("", "bad key", "a/b/c", "/x", "Example.com/x", "app.kubernetes.io/name", "paas.cmft.com/demoapplication",
		strings.Repeat("k", 64), strings.Repeat("d", 254)+"/k", "x/"+strings.Repeat("k", 63))
}

func (g specGen) labelValue() string {
	if g.chance(0.9) {
		return g.pick("shop", "", "v1.2_3-a", "amd64")
	}
	return g.pick("-x", "x-", "with space", strings.Repeat("v", 64), "a/b")
}
