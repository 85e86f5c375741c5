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
	stdcmp "cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1ac "sigs.k8s.io/gateway-api/applyconfiguration/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	"sigs.k8s.io/yaml"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/demoapplication"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestEveryAcceptedSpecBuildsValidObjects submits generated DemoApplications to the API server
// and, for every one it accepts, server-side dry-runs the Deployment, Service and per-pod
// Service, Ingress, autoscaler and disruption budget the operator would build from it, then checks them against
// the rules the kubelet and the controllers apply only once they run them (brokenAtRunTime):
// an app the API server accepts must never sit Degraded because what it asks for is invalid,
// never wait for a pod that cannot start or become ready, nor have its objects applied on
// every pass because the API server stores, in fields the operator owns, other than what it
// asked. A third of the cases go past edges (lengths, characters, ranges); a third keep every
// field within its edges but let fields disagree with each other (a probe naming a port the
// container lacks, a pod's user 0 under the container's runAsNonRoot); the last third stay
// within every edge and agree, and each of those must be accepted, so that the rules refuse
// nothing a pod could be. Half the cases are dense, nearly every field set, so that fields
// meet each other. DEMOAPP_CASES and DEMOAPP_SEED rerun it larger or again.
func TestEveryAcceptedSpecBuildsValidObjects(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	cases := envInt(t, "DEMOAPP_CASES", 400)
	seed := uint64(envInt(t, "DEMOAPP_SEED", int(rand.Uint32())))
	t.Logf("seed %d (DEMOAPP_SEED reruns it)", seed)
	r := rand.New(rand.NewPCG(seed, seed))

	accepted, failures := 0, 0
	for i := range cases {
		kind := r.IntN(3)
		gen := specGen{r: r, edges: kind == 0, cross: kind == 1, dense: r.IntN(2) == 0, edgeRate: []float64{0.1, 1}[r.IntN(2)]}
		app := gen.app(ns, i)
		submitted, _ := json.Marshal(app)
		err := k8sClient.Create(ctx, app, client.DryRunAll)
		if err != nil {
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Fatalf("case %d: %v", i, err)
			}
			if !gen.crossing() {
				t.Errorf("a spec with no value past an edge, refused: %v\n%s", err, submitted)
			}
			continue
		}
		accepted++
		if refused := applyDryRun(ctx, app); refused != nil {
			failures++
			t.Errorf("accepted, then its objects refused or never settled: %v\n%s", refused, submitted)
			continue
		}
		if broken := brokenAtRunTime(app); broken != nil {
			failures++
			t.Errorf("accepted, then broken where the kubelet or a controller runs it: %v\n%s", broken, submitted)
		}
	}
	t.Logf("%d cases: %d accepted, %d refused by the API server; %d accepted then refused, never settled or broken at run time",
		cases, accepted, cases-accepted, failures)
	if accepted < cases/20 || accepted == cases {
		t.Errorf("%d of %d accepted: the generator no longer covers both sides of the schema", accepted, cases)
	}
}

// TestFoundSpecsSettle keeps each class TestEveryAcceptedSpecBuildsValidObjects found whose
// objects the API server accepted but stored otherwise, in fields the operator owns, than
// asked: the operator would have applied them on every pass.
func TestFoundSpecsSettle(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	for name, change := range map[string]func(*paasv1.DemoApplicationSpec){
		// The API server defaults a fieldRef's apiVersion, in a struct the operator owns whole.
		"a fieldRef without apiVersion": func(s *paasv1.DemoApplicationSpec) {
			s.Env = []paasv1.EnvVar{{Name: "POD_NAME", ValueFrom: &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		},
		// An empty rollingUpdate is not kept at all.
		"an empty rollingUpdate": func(s *paasv1.DemoApplicationSpec) {
			s.Strategy = &paasv1.DeploymentStrategy{RollingUpdate: &paasv1.RollingUpdateDeployment{}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			app := builder.DemoApplication(ns, strings.ToLower(strings.ReplaceAll(name, " ", "-")))
			change(&app.Spec)
			// Created and read back, with the CRD's defaults, as the operator reads it.
			g.Expect(k8sClient.Create(ctx, app)).To(Succeed())
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			g.Expect(applyDryRun(ctx, app)).To(Succeed())
		})
	}
}

// TestFoundSpecsRefused keeps each class TestEveryAcceptedSpecBuildsValidObjects found whose
// fields, each valid, disagreed in a way the API server's dry-run of the objects, the kubelet
// or a controller would only find later: the CRD now refuses it, naming both fields.
func TestFoundSpecsRefused(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	for _, tc := range []struct {
		name   string
		change func(*paasv1.DemoApplicationSpec)
		// fields the refusal must name, both sides of the disagreement.
		fields []string
	}{
		// The Deployment is refused: its progressDeadlineSeconds must exceed minReadySeconds.
		{"minReadySeconds at the progress deadline", func(s *paasv1.DemoApplicationSpec) { s.MinReadySeconds = 600 },
			[]string{"spec.minReadySeconds", "spec.progressDeadlineSeconds"}},
		// The kubelet finds no container port of the name: the probe fails every time.
		{"a readinessProbe naming a port the container lacks", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))}}
			s.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("metrics")}}
		}, []string{"spec.readinessProbe", "spec.ports[*].name"}},
		// The container port takes the targetPort's name, not the Service port's.
		{"a livenessProbe naming a Service port whose targetPort names the container port", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromString("web"))}}
			s.LivenessProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromString("http")}}
		}, []string{"spec.livenessProbe", "spec.ports[*].name"}},
		{"a startupProbe naming a port, without ports", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = nil
			s.StartupProbe = &paasv1.Probe{TCPSocket: &paasv1.TCPSocketAction{Port: intstr.FromString("http")}}
		}, []string{"spec.startupProbe", "spec.ports[*].name"}},
		// The container port 8080 takes the first port's name: the second port's targetPort
		// names no container port, and the EndpointSlice controller gives it no endpoints.
		{"two ports naming one container port twice", func(s *paasv1.DemoApplicationSpec) {
			s.Ports = []paasv1.DemoApplicationPort{
				{Name: "http", Port: 80, TargetPort: ptr.To(intstr.FromInt32(8080))},
				{Name: "alt", Port: 8080, TargetPort: ptr.To(intstr.FromString("metrics"))},
			}
		}, []string{"spec.ports[*].targetPort", "spec.ports[*].name"}},
		// The kubelet refuses to start a container that must not run as root, as user 0.
		{"the pod's runAsNonRoot with the container's user 0", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}
			s.SecurityContext = &paasv1.SecurityContext{RunAsUser: ptr.To[int64](0)}
		}, []string{"spec.securityContext", "spec.podSecurityContext"}},
		{"the container's runAsNonRoot with the pod's user 0", func(s *paasv1.DemoApplicationSpec) {
			s.PodSecurityContext = &paasv1.PodSecurityContext{RunAsUser: ptr.To[int64](0)}
			s.SecurityContext = &paasv1.SecurityContext{RunAsNonRoot: ptr.To(true)}
		}, []string{"spec.securityContext", "spec.podSecurityContext"}},
		// The autoscaler cannot compute a share of a request of 0.
		{"autoscaling on CPU with a CPU request of 0", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}}
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](80)}
		}, []string{"spec.autoscaling.targetCPUUtilizationPercentage", "spec.resources.requests.cpu"}},
		{"autoscaling on memory with a memory request of 0", func(s *paasv1.DemoApplicationSpec) {
			s.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("0")}}
			s.Autoscaling = &paasv1.Autoscaling{MaxReplicas: 3, TargetMemoryUtilizationPercentage: ptr.To[int32](80)}
		}, []string{"spec.autoscaling.targetMemoryUtilizationPercentage", "spec.resources.requests.memory"}},
		// A TLS entry without hosts: Ingress controllers serve their default certificate.
		{"an ingress certificate for no host", func(s *paasv1.DemoApplicationSpec) {
			s.Ingress = &paasv1.Ingress{TLSSecretName: "shop-tls"}
		}, []string{"spec.ingress.tlsSecretName", "spec.ingress.hosts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			app := builder.DemoApplication(ns, "refused")
			tc.change(&app.Spec)
			// Broken indeed: the API server refuses the objects, or they fail once run.
			g.Expect(errors.Join(applyDryRun(ctx, app.DeepCopy()), brokenAtRunTime(app))).To(HaveOccurred())
			err := k8sClient.Create(ctx, app, client.DryRunAll)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want the spec refused, got %v", err)
			for _, field := range tc.fields {
				g.Expect(err.Error()).To(ContainSubstring(field))
			}
		})
	}
}

// TestRestrictedSampleMeetsRestrictedPodSecurity checks the sample docs/guide/demoapplication.md gives for namespaces
// that enforce the restricted Pod Security Standard: the API server's PodSecurity admission
// admits the pods its Deployment would create there, and refuses them without its security
// contexts.
func TestRestrictedSampleMeetsRestrictedPodSecurity(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-", testenv.NamespaceLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}))

	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config/samples/paas_v1_demoapplication_restricted.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	sample := &paasv1.DemoApplication{}
	g.Expect(yaml.UnmarshalStrict(data, sample)).To(Succeed())
	sample.Namespace = ns
	g.Expect(k8sClient.Create(ctx, sample.DeepCopy(), client.DryRunAll)).To(Succeed())

	podOf := func(app *paasv1.DemoApplication) *corev1.Pod {
		deployment := &appsv1.Deployment{}
		data, err := json.Marshal(demoapplication.NewDeployment(app, nil, wellknown.DefaultPodLabelKeys))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(json.Unmarshal(data, deployment)).To(Succeed())
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: app.Name + "-pod", Namespace: ns, Labels: deployment.Spec.Template.Labels},
			Spec:       deployment.Spec.Template.Spec,
		}
	}
	g.Expect(k8sClient.Create(ctx, podOf(sample), client.DryRunAll)).To(Succeed())

	unrestricted := sample.DeepCopy()
	unrestricted.Spec.SecurityContext, unrestricted.Spec.PodSecurityContext = nil, nil
	g.Expect(k8sClient.Create(ctx, podOf(unrestricted), client.DryRunAll)).To(MatchError(ContainSubstring(`violates PodSecurity "restricted`)))
}

// applyDryRun server-side applies, without persisting, the objects app's controller would
// apply, as the operator (under its restraint policies, so that every generated spec checks
// them too), and returns the first the API server refuses, or stores otherwise than asked.
func applyDryRun(ctx context.Context, app *paasv1.DemoApplication) error {
	if app.UID == "" {
		app.UID = types.UID("00000000-0000-0000-0000-000000000001")
	}
	keys := wellknown.DefaultPodLabelKeys
	objects := []runtime.ApplyConfiguration{demoapplication.NewDeployment(app, nil, keys)}
	if app.Spec.Workload == paasv1.WorkloadStatefulSet {
		objects = []runtime.ApplyConfiguration{demoapplication.NewStatefulSet(app, nil, keys), demoapplication.NewGoverningService(app)}
	}
	if svc := demoapplication.NewService(app); svc != nil {
		objects = append(objects, svc)
	}
	if ingress := demoapplication.NewIngress(app); ingress != nil {
		objects = append(objects, ingress)
	}
	if autoscaler := demoapplication.NewAutoscaler(app); autoscaler != nil {
		objects = append(objects, autoscaler)
	}
	if route := demoapplication.NewHTTPRoute(app); route != nil {
		objects = append(objects, route)
	}
	if policy := demoapplication.NewNetworkPolicy(app); policy != nil {
		objects = append(objects, policy)
	}
	if budget := demoapplication.NewDisruptionBudget(app); budget != nil {
		objects = append(objects, budget)
	}
	if demoapplication.PodServicesEnabled(app) && app.Spec.Workload == paasv1.WorkloadStatefulSet {
		objects = append(objects, demoapplication.NewOrdinalService(app, app.Name+"-0", keys))
	} else if demoapplication.PodServicesEnabled(app) {
		// The name the ReplicaSet controller gives a pod: its generateName cut to leave room
		// for the random suffix.
		base := app.Name + "-5d4f8c7b9f-"
		if len(base) > 58 {
			base = base[:58]
		}
		pod := &metav1.ObjectMeta{Name: base + "x7k2q", UID: "00000000-0000-0000-0000-000000000002"}
		objects = append(objects, demoapplication.NewPodService(app, pod, keys))
	}
	operator := testenv.OperatorConfig(cfg)
	cs, err := kubernetes.NewForConfig(operator)
	if err != nil {
		return err
	}
	gateways, err := gatewayclient.NewForConfig(operator)
	if err != nil {
		return err
	}
	for _, desired := range objects {
		live, err := dryRunApply(ctx, cs, gateways, desired)
		if err != nil {
			return err
		}
		// What the API server made of it must hold, in the fields the operator owns, what the
		// operator asked: else every reconcile would apply it again.
		same, err := demoapplication.Settled(live, desired)
		if err != nil {
			return err
		}
		if !same {
			owned, _ := demoapplication.OwnedFields(live)
			var asked, answered map[string]any
			demoapplication.Convert(desired, &asked)
			demoapplication.Convert(owned, &answered)
			return fmt.Errorf("%T would be applied again on every reconcile: the fields the operator owns differ from what it asked (-asked +answered):\n%s",
				live, cmp.Diff(asked, answered))
		}
	}
	return nil
}

// dryRunApply server-side applies desired as the operator does, without persisting it, and
// returns the object the API server would store.
func dryRunApply(ctx context.Context, cs kubernetes.Interface, gateways gatewayclient.Interface, desired runtime.ApplyConfiguration) (client.Object, error) {
	opts := metav1.ApplyOptions{FieldManager: wellknown.FieldManager, Force: true, DryRun: []string{metav1.DryRunAll}}
	switch d := desired.(type) {
	case *appsv1ac.DeploymentApplyConfiguration:
		return cs.AppsV1().Deployments(*d.Namespace).Apply(ctx, d, opts)
	case *appsv1ac.StatefulSetApplyConfiguration:
		return cs.AppsV1().StatefulSets(*d.Namespace).Apply(ctx, d, opts)
	case *corev1ac.ServiceApplyConfiguration:
		return cs.CoreV1().Services(*d.Namespace).Apply(ctx, d, opts)
	case *networkingv1ac.IngressApplyConfiguration:
		return cs.NetworkingV1().Ingresses(*d.Namespace).Apply(ctx, d, opts)
	case *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration:
		return cs.AutoscalingV2().HorizontalPodAutoscalers(*d.Namespace).Apply(ctx, d, opts)
	case *networkingv1ac.NetworkPolicyApplyConfiguration:
		return cs.NetworkingV1().NetworkPolicies(*d.Namespace).Apply(ctx, d, opts)
	case *gatewayv1ac.HTTPRouteApplyConfiguration:
		return gateways.GatewayV1().HTTPRoutes(*d.Namespace).Apply(ctx, d, opts)
	case *policyv1ac.PodDisruptionBudgetApplyConfiguration:
		return cs.PolicyV1().PodDisruptionBudgets(*d.Namespace).Apply(ctx, d, opts)
	}
	return nil, fmt.Errorf("no client for %T", desired)
}

// brokenAtRunTime returns why app's objects, valid to the API server, still fail where the
// kubelet or a controller runs them, by rules a dry-run cannot see; nil when they do not.
func brokenAtRunTime(app *paasv1.DemoApplication) error {
	var deployment appsv1.Deployment
	demoapplication.Convert(demoapplication.NewDeployment(app, nil, wellknown.DefaultPodLabelKeys), &deployment)
	pod := deployment.Spec.Template.Spec
	container := pod.Containers[0]
	var portNames []string
	for _, p := range container.Ports {
		if p.Name != "" {
			portNames = append(portNames, p.Name)
		}
	}

	// The kubelet looks a probe's named port up among the container's ports: not there, the
	// probe fails every time.
	for name, probe := range map[string]*corev1.Probe{
		"readinessProbe": container.ReadinessProbe, "livenessProbe": container.LivenessProbe, "startupProbe": container.StartupProbe,
	} {
		var port intstr.IntOrString
		switch {
		case probe == nil:
			continue
		case probe.HTTPGet != nil:
			port = probe.HTTPGet.Port
		case probe.TCPSocket != nil:
			port = probe.TCPSocket.Port
		}
		if port.Type == intstr.String && !slices.Contains(portNames, port.StrVal) {
			return fmt.Errorf("the kubelet cannot find the %s's port %q among the container's ports %v", name, port.StrVal, portNames)
		}
	}
	// The EndpointSlice controller looks a Service's named targetPort up among the pod's ports:
	// not there, the port gets no endpoints.
	if desired := demoapplication.NewService(app); desired != nil {
		var svc corev1.Service
		demoapplication.Convert(desired, &svc)
		for _, p := range svc.Spec.Ports {
			if p.TargetPort.Type == intstr.String && !slices.Contains(portNames, p.TargetPort.StrVal) {
				return fmt.Errorf("the Service's port %q targets %q, not among the container's ports %v: it never gets endpoints", p.Name, p.TargetPort.StrVal, portNames)
			}
		}
	}

	// The kubelet refuses to start, as root, a container that must not run as root; the
	// container's security context overrides the pod's field by field.
	podSC := ptr.Deref(pod.SecurityContext, corev1.PodSecurityContext{})
	for _, c := range slices.Concat(pod.Containers, pod.InitContainers) {
		sc := ptr.Deref(c.SecurityContext, corev1.SecurityContext{})
		if ptr.Deref(stdcmp.Or(sc.RunAsNonRoot, podSC.RunAsNonRoot), false) && ptr.Deref(stdcmp.Or(sc.RunAsUser, podSC.RunAsUser), -1) == 0 {
			return fmt.Errorf("the kubelet refuses to start the container %s: runAsNonRoot, as user 0", c.Name)
		}
	}

	// The Deployment controller reports a rollout stuck once its progress deadline passes, so
	// that a pod must become available well before.
	if deadline := ptr.Deref(deployment.Spec.ProgressDeadlineSeconds, 600); deployment.Spec.MinReadySeconds >= deadline {
		return fmt.Errorf("minReadySeconds %d is not below the progress deadline, %d s", deployment.Spec.MinReadySeconds, deadline)
	}

	// The autoscaler computes utilization as a share of each container's request (a request
	// left out is its limit): without one, or of 0, it cannot scale.
	if desired := demoapplication.NewAutoscaler(app); desired != nil {
		var hpa autoscalingv2.HorizontalPodAutoscaler
		demoapplication.Convert(desired, &hpa)
		for _, m := range hpa.Spec.Metrics {
			request, ok := container.Resources.Requests[m.Resource.Name]
			if !ok {
				request, ok = container.Resources.Limits[m.Resource.Name]
			}
			if !ok || request.IsZero() {
				return fmt.Errorf("the autoscaler targets %s utilization, and the container requests no %s", m.Resource.Name, m.Resource.Name)
			}
		}
	}

	if err := budgetBlocksDrains(app, &deployment); err != nil {
		return err
	}

	// Ingress controllers serve a TLS certificate for the hosts its entry names, and route
	// only the hosts of the rules: a TLS entry without hosts, or with one no rule has, serves
	// no request.
	if desired := demoapplication.NewIngress(app); desired != nil {
		var ingress networkingv1.Ingress
		demoapplication.Convert(desired, &ingress)
		var hosts []string
		for _, rule := range ingress.Spec.Rules {
			hosts = append(hosts, rule.Host)
		}
		for _, tls := range ingress.Spec.TLS {
			if len(tls.Hosts) == 0 {
				return fmt.Errorf("the Ingress's TLS certificate %q is for no host", tls.SecretName)
			}
			for _, host := range tls.Hosts {
				if !slices.Contains(hosts, host) {
					return fmt.Errorf("the Ingress's TLS host %q is the host of no rule %v", host, hosts)
				}
			}
		}
	}
	return nil
}

// budgetBlocksDrains returns an error when app's disruption budget lets no pod go at the
// app's fewest pods: the disruption controller lets a budget evict only what it allows at
// the pods there are, and a node drain would wait for as long as the app stays there.
func budgetBlocksDrains(app *paasv1.DemoApplication, deployment *appsv1.Deployment) error {
	desired := demoapplication.NewDisruptionBudget(app)
	if desired == nil {
		return nil
	}
	var budget policyv1.PodDisruptionBudget
	demoapplication.Convert(desired, &budget)
	fewest := ptr.Deref(deployment.Spec.Replicas, 1)
	if desired := demoapplication.NewAutoscaler(app); desired != nil {
		var hpa autoscalingv2.HorizontalPodAutoscaler
		demoapplication.Convert(desired, &hpa)
		fewest = ptr.Deref(hpa.Spec.MinReplicas, 1)
	}
	if fewest > 0 && disruptionsAllowed(budget.Spec, fewest) < 1 {
		return fmt.Errorf("the disruption budget %+v lets no pod of %d go: it blocks every node drain", budget.Spec, fewest)
	}
	return nil
}

// disruptionsAllowed returns how many of pods a budget lets an eviction take, as the
// disruption controller counts them (both bounds rounded up).
func disruptionsAllowed(budget policyv1.PodDisruptionBudgetSpec, pods int32) int32 {
	if budget.MaxUnavailable != nil {
		n, err := intstr.GetScaledValueFromIntOrPercent(budget.MaxUnavailable, int(pods), true)
		if err != nil {
			return 0
		}
		return min(int32(n), pods)
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(budget.MinAvailable, int(pods), true)
	if err != nil {
		return 0
	}
	return max(pods-int32(n), 0)
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
type specGen struct {
	r *rand.Rand
	// edges says whether this case may go past the edges at all: most cases do not, so that
	// the valid side of every field is explored together with the others.
	edges bool
	// dense says whether this case sets nearly every field, so that fields meet the others
	// they depend on: a sparse case sets each now and then.
	dense bool
	// edgeRate is how often, in a case that explores edges, a pick may go past one: now and
	// then, so that one mistake meets many valid fields, or whenever it can.
	edgeRate float64
	// cross says whether this case, each field within its edges, may set fields that
	// disagree with each other.
	cross bool
}

// crossing reports whether fields may disagree with each other.
func (g specGen) crossing() bool { return g.edges || g.cross }

// edge marks where a pick's valid choices end and its invalid ones begin.
const edge = "\x00edge"

// edgeN is edge for picks of numbers.
const edgeN = math.MinInt

// pick returns one of choices; those after edge only in a case that explores edges.
func (g specGen) pick(choices ...string) string { return pickWithin(g, edge, choices) }

// pickN is pick for numbers, with edgeN.
func (g specGen) pickN(choices ...int) int { return pickWithin(g, edgeN, choices) }

func pickWithin[T comparable](g specGen, marker T, choices []T) T {
	if i := slices.Index(choices, marker); i >= 0 {
		if !g.edges || !g.chance(g.edgeRate) {
			choices = choices[:i]
		} else {
			choices = slices.Delete(slices.Clone(choices), i, i+1)
		}
	}
	return choices[g.r.IntN(len(choices))]
}

func (g specGen) chance(p float64) bool { return g.r.Float64() < p }

// set reports whether to set an optional field a sparse case sets with probability p.
func (g specGen) set(p float64) bool {
	if g.dense {
		p = max(p, 0.85)
	}
	return g.chance(p)
}

// count returns how many items to give a list of fewer than n: any number in a sparse case,
// the upper half in a dense one.
func (g specGen) count(n int) int {
	if g.dense {
		return n/2 + g.r.IntN(n-n/2)
	}
	return g.r.IntN(n)
}

// edge reports, in a case that explores edges, with probability p, that a value goes past one.
func (g specGen) edge(p float64) bool { return g.edges && g.chance(p) }

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
	if g.edge(0.15) {
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
	if g.set(0.5) {
		app.Spec.Replica = ptr.To(int32(g.pickN(0, 1, 3, 2147483647)))
	}
	for j := range g.count(4) {
		p := g.port(j)
		// Ports that target one container port must give it one name.
		if !g.crossing() && slices.ContainsFunc(app.Spec.Ports, func(o paasv1.DemoApplicationPort) bool {
			return containerPortNumber(o) == containerPortNumber(p) && demoapplication.ProtocolOf(o) == demoapplication.ProtocolOf(p) &&
				containerPortName(o) != containerPortName(p)
		}) {
			continue
		}
		app.Spec.Ports = append(app.Spec.Ports, p)
	}
	for range g.count(4) {
		e := g.env()
		// Names are keys: the same one twice is an edge.
		if g.edges || !slices.ContainsFunc(app.Spec.Env, func(o paasv1.EnvVar) bool { return o.Name == e.Name }) {
			app.Spec.Env = append(app.Spec.Env, e)
		}
	}
	if g.set(0.4) {
		app.Spec.Resources = g.resources()
	}
	g.podFields(&app.Spec)
	g.rollout(&app.Spec)
	g.ingress(&app.Spec)
	g.httpRoute(&app.Spec)
	g.autoscaling(&app.Spec)
	g.networkPolicy(&app.Spec)
	g.lifecycle(&app.Spec)
	g.exposure(&app.Spec)
	g.workload(app)
	if g.set(0.3) {
		ps := &paasv1.PodServices{
			Enabled: g.chance(0.8) && (len(app.Spec.Ports) > 0 || g.crossing()),
			Type:    corev1.ServiceType(g.pick("", "ClusterIP", "NodePort", "LoadBalancer")),
		}
		for _, p := range app.Spec.Ports {
			if p.Name != "" && g.chance(0.5) {
				ps.Ports = append(ps.Ports, p.Name)
			}
		}
		app.Spec.PodServices = ps
	}
	return app
}

// workload makes app a StatefulSet app now and then, its settings at and past their edges:
// a claim named like a volume or mounted at a volume's path, a size of 0, a class that is no
// name, ReadWriteOncePod with another mode, a strategy, a name too long for its pods' labels.
func (g specGen) workload(app *paasv1.DemoApplication) {
	if !g.set(0.3) {
		return
	}
	spec := &app.Spec
	spec.Workload = paasv1.Workload(g.pick("Deployment", "StatefulSet", "StatefulSet", edge, "DaemonSet"))
	if spec.Workload != paasv1.WorkloadStatefulSet {
		return
	}
	if !g.crossing() {
		spec.Strategy = nil
		if len(app.Name) > 52 {
			app.Name = strings.TrimRight(app.Name[:52], "-")
		}
	}
	if !g.set(0.8) {
		return
	}
	settings := &paasv1.StatefulSetSettings{
		PodManagementPolicy: appsv1.PodManagementPolicyType(g.pick("", "OrderedReady", "Parallel", edge, "Random")),
	}
	if g.chance(0.5) {
		settings.Partition = ptr.To(int32(g.pickN(0, 1, 3, edgeN, -1)))
	}
	if g.chance(0.3) {
		retention := []appsv1.PersistentVolumeClaimRetentionPolicyType{"", "Retain", "Delete"}
		settings.PersistentVolumeClaimRetentionPolicy = &paasv1.PersistentVolumeClaimRetentionPolicy{
			WhenDeleted: retention[g.r.IntN(3)], WhenScaled: retention[g.r.IntN(3)]}
	}
	for i := range g.count(3) {
		c := paasv1.VolumeClaimTemplate{
			Name:      g.pick(fmt.Sprintf("data%d", i), edge, "Data", strings.Repeat("d", 64)),
			MountPath: g.pick(fmt.Sprintf("/data/%d", i), edge, "relative", "/a:b"),
			Size:      resource.MustParse(g.pick("1Gi", "500Mi", "1", edge, "0", "-1Gi")),
		}
		// Named like a volume, or mounted at a volume's path (volumes').
		if g.crossing() && g.chance(0.2) {
			c.Name = "vol0"
		}
		if g.crossing() && g.chance(0.2) {
			c.MountPath = "/mnt/0"
		}
		if g.chance(0.5) {
			c.StorageClassName = ptr.To(g.pick("", "fast", "ssd.example.com", edge, "Fast_SSD"))
		}
		if g.chance(0.5) {
			modes := [][]corev1.PersistentVolumeAccessMode{{"ReadWriteOnce"}, {"ReadWriteOncePod"}, {"ReadWriteOnce", "ReadOnlyMany"}}
			if g.crossing() {
				modes = append(modes, []corev1.PersistentVolumeAccessMode{"ReadWriteOncePod", "ReadWriteOnce"})
			}
			if g.edges {
				modes = append(modes, []corev1.PersistentVolumeAccessMode{"Sometimes"})
			}
			c.AccessModes = modes[g.r.IntN(len(modes))]
		}
		// Claims are keyed by name and mounted each at its own path: the same twice is an edge.
		if !g.crossing() && slices.ContainsFunc(settings.VolumeClaimTemplates, func(o paasv1.VolumeClaimTemplate) bool {
			return o.Name == c.Name || o.MountPath == c.MountPath
		}) {
			continue
		}
		settings.VolumeClaimTemplates = append(settings.VolumeClaimTemplates, c)
	}
	spec.StatefulSet = settings
}

func (g specGen) portName() string {
	if !g.edge(0.15) {
		return g.pick("http", "web", "grpc-api", "metrics", "h2c")
	}
	return g.pick(g.word("0123456789", 1, 5), g.word("abcdefghijklmnopqrstuvwxyz0123456789-", 1, 16), "a--b", "http-")
}

func (g specGen) port(j int) paasv1.DemoApplicationPort {
	// Unique numbers and names, unless the case explores edges.
	p := paasv1.DemoApplicationPort{
		Port:     int32([]int{80, 443, 8080, 65535}[j]),
		Protocol: corev1.Protocol(g.pick("", "TCP", "TCP", "UDP", "SCTP")),
		Name:     []string{"http", "web", "grpc-api", "h2c"}[j],
	}
	if g.edge(0.3) {
		p.Port, p.Name = int32(g.pickN(80, 443, 1)), g.portName()
	}
	if g.edge(0.05) {
		p.Name = ""
	}
	switch g.r.IntN(4) {
	case 0:
		p.TargetPort = ptr.To(intstr.FromInt32(int32(g.pickN(1, 8080, 65535))))
	case 1:
		p.TargetPort = ptr.To(intstr.FromString(g.portName()))
	}
	if g.chance(0.2) {
		// In the band the API server keeps for ports asked by number (30000-30085 of the default
		// range), which no other test of the suite asks for: Services given any node port take
		// theirs above it, and a port taken is refused.
		p.NodePort = ptr.To(int32(30010 + 10*j + g.r.IntN(10)))
	}
	return p
}

func (g specGen) envName() string {
	if !g.edge(0.15) {
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
			"metadata.annotations['a/b']", edge, "spec.containers[0].image", "status.phase", "",
			"metadata.labels['"+strings.Repeat("k", 63+g.r.IntN(2))+"']",
			"metadata.annotations['"+strings.Repeat("d", 250+g.r.IntN(5))+".io/k']")}}
		if g.chance(0.2) {
			e.ValueFrom.FieldRef.APIVersion = g.pick("v1", edge, "v2")
		}
	case 3:
		e.ValueFrom = &paasv1.EnvVarSource{ResourceFieldRef: &paasv1.ResourceFieldSelector{
			Resource:      g.pick("limits.cpu", "requests.memory", "limits.ephemeral-storage", edge, "cpu", "limits.gpu", ""),
			ContainerName: g.pick("", "app", edge, "sidecar"),
		}}
		if g.chance(0.3) {
			e.ValueFrom.ResourceFieldRef.Divisor = g.pick("1", edge, "1m", "1Mi", "2", "1000m")
		}
	case 4:
		e.ValueFrom = &paasv1.EnvVarSource{ConfigMapKeyRef: &paasv1.KeySelector{
			Name: paasv1.ObjectName(g.pick("settings", edge, "", "Bad_Name")),
			Key:  g.pick("level", "a.b-c_d", edge, "", "with space", "a/b"),
		}}
	case 5:
		e.ValueFrom = &paasv1.EnvVarSource{SecretKeyRef: &paasv1.KeySelector{
			Name: paasv1.ObjectName(g.pick("creds", edge, "")),
			Key:  g.pick("password", "a..b", edge, "", "..", ".", "..data"),
		}}
	case 6:
		e.ValueFrom = &paasv1.EnvVarSource{FieldRef: &paasv1.ObjectFieldSelector{FieldPath: "metadata.name"}}
		if g.edge(0.5) {
			e.Value = "1"
		}
	}
	if g.edge(0.05) {
		e.ValueFrom = &paasv1.EnvVarSource{}
	}
	return e
}

func (g specGen) resources() *paasv1.ResourceRequirements {
	r := &paasv1.ResourceRequirements{}
	names := []corev1.ResourceName{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", "gpu", "pods"}
	quantities := []string{"1", "100m", "500m", "2", "64Mi", "1Gi", "0", "-1", "1.5"}
	if !g.edges {
		// Requests alone or limits alone: what is left out is then the other.
		list := corev1.ResourceList{}
		for range 1 + g.count(3) {
			list[names[g.r.IntN(3)]] = resource.MustParse(quantities[g.r.IntN(6)])
		}
		if g.chance(0.5) {
			return &paasv1.ResourceRequirements{Requests: list}
		}
		list["example.com/gpu"] = resource.MustParse("1")
		return &paasv1.ResourceRequirements{Limits: list}
	}
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
	if g.set(0.2) {
		spec.ImagePullPolicy = corev1.PullPolicy(g.pick("Always", "IfNotPresent", "Never", edge, "Sometimes"))
	}
	for range g.r.IntN(3) {
		secret := paasv1.LocalObjectReference{Name: g.objectName()}
		if g.edges || !slices.Contains(spec.ImagePullSecrets, secret) {
			spec.ImagePullSecrets = append(spec.ImagePullSecrets, secret)
		}
	}
	if g.set(0.2) {
		spec.Command = []string{g.pick("/bin/sh", "", "$(HOME)/run")}
		spec.Args = []string{"-c", g.pick("", "echo $(A)", strings.Repeat("x", 1000))}
	}
	for range g.count(2) {
		from := paasv1.EnvFromSource{Prefix: g.pick("", "", "DB_", edge, "1X", "A=B")}
		switch g.r.IntN(9) {
		case 0, 1, 2, 3:
			from.ConfigMapRef = &paasv1.OptionalObjectReference{Name: g.objectName()}
		case 5, 6, 7, 8:
			from.SecretRef = &paasv1.OptionalObjectReference{Name: g.objectName(), Optional: ptr.To(g.chance(0.5))}
		case 4:
			if g.edge(0.5) {
				from.ConfigMapRef = &paasv1.OptionalObjectReference{Name: "a"}
				from.SecretRef = &paasv1.OptionalObjectReference{Name: "b"}
			} else {
				from.SecretRef = &paasv1.OptionalObjectReference{Name: "b"}
			}
		}
		spec.EnvFrom = append(spec.EnvFrom, from)
	}
	if g.set(0.2) {
		spec.ServiceAccountName = g.objectName()
	}
	if g.set(0.2) {
		spec.AutomountServiceAccountToken = ptr.To(g.chance(0.5))
	}
	if g.set(0.3) {
		spec.PodLabels = map[string]paasv1.LabelValue{g.labelKey(): paasv1.LabelValue(g.labelValue())}
	}
	if g.set(0.3) {
		key := g.labelKey()
		if g.edge(0.1) {
			key = g.pick("container.apparmor.security.beta.kubernetes.io/app", "seccomp.security.alpha.kubernetes.io/pod")
		}
		spec.PodAnnotations = map[string]string{key: g.pick("", "true", strings.Repeat("v", 5000), "multi\nline")}
	}
	if g.set(0.3) {
		spec.NodeSelector = map[string]paasv1.LabelValue{g.labelKey(): paasv1.LabelValue(g.labelValue())}
	}
	if g.set(0.2) {
		spec.MinReadySeconds = int32(g.pickN(0, 10, 599, edgeN, -1))
		// Past the Deployment's progress deadline, which the app does not set.
		if g.crossing() && g.chance(0.3) {
			spec.MinReadySeconds = int32(g.pickN(600, 3600))
		}
	}
	if g.set(0.3) {
		spec.ReadinessProbe = g.probe(spec.Ports)
	}
	if g.set(0.2) {
		spec.LivenessProbe = g.probe(spec.Ports)
	}
	if g.set(0.1) {
		spec.StartupProbe = g.probe(spec.Ports)
	}
	if g.set(0.3) {
		spec.SecurityContext = g.securityContext()
	}
	if g.set(0.3) {
		spec.PodSecurityContext = g.podSecurityContext()
	}
	// The container's runAsUser overrides the pod's, and its runAsNonRoot the pod's: each
	// context alone may hold with the other's user 0.
	if !g.crossing() && runsAsNonRootAsRoot(spec) {
		spec.SecurityContext = ptr.To(ptr.Deref(spec.SecurityContext, paasv1.SecurityContext{}))
		spec.SecurityContext.RunAsUser = ptr.To[int64](1000)
	}
	g.volumes(spec)
	g.helpers(spec)
	if g.set(0.3) {
		spec.RolloutOnConfigChange = paasv1.ConfigRollout(g.pick("Env", "All", "None", edge, "Always"))
	}
	g.scheduling(spec)
	if g.set(0.25) {
		spec.Affinity = g.affinity()
	}
}

// scheduling gives spec tolerations and spread constraints, at and past their edges now and then.
func (g specGen) scheduling(spec *paasv1.DemoApplicationSpec) {
	for range g.count(3) {
		t := paasv1.Toleration{
			Key:      g.pick("dedicated", "example.com/gpu", g.labelKey(), edge, "", "bad key", "node-role.kubernetes.io/control-plane"),
			Operator: corev1.TolerationOperator(g.pick("", "Equal", "Exists", "Exists")),
			Effect:   corev1.TaintEffect(g.pick("", "NoSchedule", "NoExecute", "PreferNoSchedule", edge, "Sometimes")),
		}
		if t.Operator != corev1.TolerationOpExists || g.crossing() {
			t.Value = paasv1.LabelValue(g.pick("", "shop", edge, "-x"))
		}
		if g.chance(0.2) && (g.crossing() || t.Effect == corev1.TaintEffectNoExecute) {
			t.TolerationSeconds = ptr.To(int64(g.pickN(300, 0, edgeN, -1)))
		}
		spec.Tolerations = append(spec.Tolerations, t)
	}
	for range g.count(3) {
		c := paasv1.TopologySpreadConstraint{
			MaxSkew:           int32(g.pickN(1, 1, 2, edgeN, 0)),
			TopologyKey:       g.pick("topology.kubernetes.io/zone", "kubernetes.io/hostname", edge, "", "bad key"),
			WhenUnsatisfiable: corev1.UnsatisfiableConstraintAction(g.pick("DoNotSchedule", "ScheduleAnyway", edge, "Never")),
		}
		if g.chance(0.2) && (g.crossing() || c.WhenUnsatisfiable == corev1.DoNotSchedule) {
			c.MinDomains = ptr.To(int32(g.pickN(2, 1, edgeN, 0)))
		}
		if !g.edges && slices.ContainsFunc(spec.TopologySpreadConstraints, func(o paasv1.TopologySpreadConstraint) bool {
			return o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable
		}) {
			continue
		}
		spec.TopologySpreadConstraints = append(spec.TopologySpreadConstraints, c)
	}
}

// affinity returns a node affinity, a pod anti-affinity, or both; empty now and then past
// the edges.
func (g specGen) affinity() *paasv1.Affinity {
	term := func() paasv1.NodeSelectorTerm {
		var t paasv1.NodeSelectorTerm
		for range 1 + g.r.IntN(2) {
			req := paasv1.NodeSelectorRequirement{Key: g.labelKey(), Operator: corev1.NodeSelectorOperator(g.pick("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))}
			switch req.Operator {
			case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
				for range g.pickN(1, 2, edgeN, 0) {
					req.Values = append(req.Values, paasv1.LabelValue(g.labelValue()))
				}
			case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
				req.Values = []paasv1.LabelValue{paasv1.LabelValue(g.pick("8", "0", "123456789012345678", edge, "-3", "+12", "many", "1.5", "99999999999999999999"))}
			default:
				if g.edge(0.2) {
					req.Values = []paasv1.LabelValue{"x"}
				}
			}
			t.MatchExpressions = append(t.MatchExpressions, req)
		}
		return t
	}
	topologyKey := func() string {
		return g.pick("kubernetes.io/hostname", "topology.kubernetes.io/zone", edge, "", "bad key", "a/b/c")
	}
	a := &paasv1.Affinity{}
	if g.chance(0.6) {
		a.NodeAffinity = &paasv1.NodeAffinity{}
		if g.chance(0.6) {
			a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &paasv1.NodeSelector{NodeSelectorTerms: []paasv1.NodeSelectorTerm{term()}}
		}
		if g.chance(0.6) || (a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil && !g.edges) {
			a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []paasv1.PreferredSchedulingTerm{
				{Weight: int32(g.pickN(1, 50, 100, edgeN, 0, 101)), Preference: term()}}
		}
	}
	if g.chance(0.6) || (a.NodeAffinity == nil && !g.edges) {
		a.PodAntiAffinity = &paasv1.PodAntiAffinity{}
		if g.chance(0.5) {
			a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []paasv1.PodAffinityTerm{{TopologyKey: topologyKey()}}
		}
		if g.chance(0.5) || (a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil && !g.edges) {
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []paasv1.WeightedPodAffinityTerm{
				{Weight: int32(g.pickN(1, 100, edgeN, 0)), PodAffinityTerm: paasv1.PodAffinityTerm{TopologyKey: topologyKey()}}}
		}
	}
	return a
}

// rollout gives spec a strategy now and then, its bounds at and past their edges.
func (g specGen) rollout(spec *paasv1.DemoApplicationSpec) {
	if !g.set(0.3) {
		return
	}
	st := &paasv1.DeploymentStrategy{Type: appsv1.DeploymentStrategyType(g.pick("", "RollingUpdate", "Recreate", edge, "BlueGreen"))}
	if g.chance(0.6) && (st.Type != appsv1.RecreateDeploymentStrategyType || g.crossing()) {
		bound := func(max string) *intstr.IntOrString {
			switch g.r.IntN(3) {
			case 0:
				return nil
			case 1:
				return ptr.To(intstr.FromInt32(int32(g.pickN(0, 1, 3, edgeN, -1))))
			}
			return ptr.To(intstr.FromString(g.pick("0%", "25%", max, "0100%", edge, "101%", "1000%", "-5%", "5", "%", "one")))
		}
		ru := &paasv1.RollingUpdateDeployment{MaxUnavailable: bound("100%"), MaxSurge: bound("1000%")}
		isZero := func(v *intstr.IntOrString) bool {
			return v != nil && (v.String() == "0" || strings.Trim(v.String(), "0") == "%")
		}
		if isZero(ru.MaxUnavailable) && isZero(ru.MaxSurge) && !g.crossing() {
			ru.MaxSurge = ptr.To(intstr.FromInt32(1))
		}
		st.RollingUpdate = ru
	}
	spec.Strategy = st
}

// ingress gives spec an Ingress now and then, at and past its edges.
func (g specGen) ingress(spec *paasv1.DemoApplicationSpec) {
	var tcp []paasv1.DemoApplicationPort
	for _, p := range spec.Ports {
		if p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
			tcp = append(tcp, p)
		}
	}
	if !g.set(0.3) || (len(tcp) == 0 && !g.crossing()) {
		return
	}
	in := &paasv1.Ingress{}
	if g.set(0.3) {
		in.ClassName = g.objectName()
	}
	for _, host := range []string{"shop.example.com", "*.shop.example.com", "a-b.c"}[:g.r.IntN(4)] {
		if g.edge(0.2) {
			host = g.pick("Shop.example.com", "10.0.0.1", "*", "a..b", "-a.com", "a_b.com", "foo.*.com", strings.Repeat("a", 64)+".com")
		}
		in.Hosts = append(in.Hosts, host)
	}
	for _, path := range []string{"/", "/api", "/static/"}[:g.r.IntN(4)] {
		in.Paths = append(in.Paths, g.ingressPath(path, spec.Ports, tcp))
	}
	if g.set(0.3) && (len(in.Hosts) > 0 || g.crossing()) {
		in.TLSSecretName = g.objectName()
	}
	if g.set(0.3) {
		in.Annotations = map[string]string{g.pick("example.com/rewrite", "zalando.org/skipper-filter", edge, "bad key", "a/b/c"): g.pick("x", "", "setPath(\"/\")")}
	}
	spec.Ingress = in
}

// ingressPath returns an Ingress path, to a TCP port of ports (tcp) or, past the edges, to
// any port or none.
func (g specGen) ingressPath(path string, ports, tcp []paasv1.DemoApplicationPort) paasv1.IngressPath {
	ip := paasv1.IngressPath{Path: path, PathType: networkingv1.PathType(g.pick("", "Prefix", "Exact", "ImplementationSpecific"))}
	if g.edge(0.2) {
		ip.Path = g.pick("api", "/a//b", "/a/./b", "/a/..", "/%2F", "/a b", "/über", "/*", "/a?b=c")
	}
	if !g.crossing() {
		ports = tcp
	}
	if g.chance(0.4) && len(ports) > 0 {
		p := ports[g.r.IntN(len(ports))]
		ip.Port = ptr.To(intstr.FromInt32(p.Port))
		if p.Name != "" && g.chance(0.5) {
			ip.Port = ptr.To(intstr.FromString(p.Name))
		}
	}
	if g.edge(0.1) {
		ip.Port = ptr.To(intstr.FromString(g.pick("nope", "8080")))
	}
	return ip
}

// httpRoute gives spec an HTTPRoute now and then, in place of its Ingress (beside it past
// the edges), at and past its edges.
func (g specGen) httpRoute(spec *paasv1.DemoApplicationSpec) {
	var tcp []paasv1.DemoApplicationPort
	for _, p := range spec.Ports {
		if p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
			tcp = append(tcp, p)
		}
	}
	if !g.set(0.3) || ((len(tcp) == 0 || spec.Ingress != nil) && !g.crossing()) {
		return
	}
	route := &paasv1.HTTPRoute{}
	refs := []paasv1.GatewayReference{{Name: "public"}, {Name: "public", Namespace: "gateways", SectionName: "https"},
		{Name: "public", Namespace: "gateways", SectionName: "http"}, {Name: "internal.v1", Namespace: "infra"}}
	for _, i := range g.r.Perm(len(refs))[:1+g.r.IntN(len(refs))] {
		route.ParentRefs = append(route.ParentRefs, refs[i])
	}
	if g.edge(0.2) {
		switch g.r.IntN(4) {
		case 0:
			route.ParentRefs = nil
		case 1:
			route.ParentRefs = append(route.ParentRefs, route.ParentRefs[0])
		case 2:
			// The same Gateway with and without a listener.
			route.ParentRefs = append(route.ParentRefs, paasv1.GatewayReference{Name: "public", Namespace: "gateways"})
		default:
			route.ParentRefs[0] = paasv1.GatewayReference{Name: g.pick("Public", "a_b", strings.Repeat("g", 64)),
				Namespace: g.pick("", "Gateways", strings.Repeat("n", 64)), SectionName: g.pick("", "HTTPS", "a/b")}
		}
	}
	for _, host := range []string{"shop.example.com", "*.shop.example.com", "a-b.c"}[:g.r.IntN(4)] {
		if g.edge(0.2) {
			host = g.pick("Shop.example.com", "10.0.0.1", "*", "a..b", "-a.com", "a_b.com", "foo.*.com", strings.Repeat("a", 64)+".com")
		}
		route.Hostnames = append(route.Hostnames, host)
	}
	for _, path := range []string{"/", "/api", "/static/", "/a%20b;v=1"}[:g.r.IntN(5)] {
		ip := g.ingressPath(path, spec.Ports, tcp)
		rp := paasv1.HTTPRoutePath{Path: ip.Path, Port: ip.Port, Type: g.pick("", "PathPrefix", "Exact", edge, "RegularExpression")}
		if g.edge(0.2) {
			rp.Path = g.pick("/a#b", "/a//b", "/a/.", "/über", "/a b", "/%2f")
		}
		route.Paths = append(route.Paths, rp)
	}
	spec.HTTPRoute = route
}

// networkPolicy gives spec a NetworkPolicy now and then, at and past its edges.
func (g specGen) networkPolicy(spec *paasv1.DemoApplicationSpec) {
	if !g.set(0.3) {
		return
	}
	np := &paasv1.NetworkPolicy{Enabled: g.chance(0.8), SameApp: g.chance(0.5)}
	for _, ns := range []string{"ingress-nginx", "monitoring", "kube-system"}[:g.r.IntN(4)] {
		if g.edge(0.2) {
			ns = g.pick("", "Monitoring", "a.b", strings.Repeat("n", 64))
		}
		np.Namespaces = append(np.Namespaces, ns)
	}
	for range g.count(3) {
		var peer paasv1.NetworkPolicyPeer
		if g.chance(0.6) || g.edge(0.1) {
			peer.NamespaceSelector = g.labelSelector()
		}
		if g.chance(0.6) || (peer.NamespaceSelector == nil && !g.edges) {
			peer.PodSelector = g.labelSelector()
		}
		np.From = append(np.From, peer)
	}
	spec.NetworkPolicy = np
}

// labelSelector returns a label selector, empty now and then, at and past its edges.
func (g specGen) labelSelector() *paasv1.LabelSelector {
	s := &paasv1.LabelSelector{}
	for range g.r.IntN(3) {
		if s.MatchLabels == nil {
			s.MatchLabels = map[string]paasv1.LabelValue{}
		}
		s.MatchLabels[g.labelKey()] = paasv1.LabelValue(g.labelValue())
	}
	for range g.r.IntN(3) {
		e := paasv1.LabelSelectorRequirement{Key: g.labelKey(),
			Operator: metav1.LabelSelectorOperator(g.pick("In", "NotIn", "Exists", "DoesNotExist", edge, "Gt"))}
		if e.Operator == metav1.LabelSelectorOpIn || e.Operator == metav1.LabelSelectorOpNotIn || g.edge(0.1) {
			for range 1 + g.r.IntN(2) {
				e.Values = append(e.Values, paasv1.LabelValue(g.labelValue()))
			}
			slices.Sort(e.Values)
			e.Values = slices.Compact(e.Values)
		}
		if g.edge(0.1) {
			e.Values = nil
		}
		s.MatchExpressions = append(s.MatchExpressions, e)
	}
	return s
}

// autoscaling gives spec autoscaling now and then, on the resources it requests, or past the
// edges.
func (g specGen) autoscaling(spec *paasv1.DemoApplicationSpec) {
	if !g.set(0.3) {
		return
	}
	requests := corev1.ResourceList{}
	if spec.Resources != nil && spec.Resources.Requests != nil {
		requests = spec.Resources.Requests
	}
	a := &paasv1.Autoscaling{MaxReplicas: int32(g.pickN(1, 5, 100, edgeN, 0, -1))}
	if g.set(0.5) {
		a.MinReplicas = ptr.To(int32(g.pickN(1, 1, edgeN, 0, 200)))
		if !g.crossing() && *a.MinReplicas > a.MaxReplicas {
			a.MinReplicas = &a.MaxReplicas
		}
	}
	target := func() *int32 { return ptr.To(int32(g.pickN(50, 80, 150, 1000, edgeN, 0, 1001))) }
	if _, ok := requests[corev1.ResourceCPU]; (ok || g.crossing()) && g.chance(0.7) {
		a.TargetCPUUtilizationPercentage = target()
	}
	if _, ok := requests[corev1.ResourceMemory]; (ok || g.crossing()) && g.chance(0.5) {
		a.TargetMemoryUtilizationPercentage = target()
	}
	if a.TargetCPUUtilizationPercentage == nil && a.TargetMemoryUtilizationPercentage == nil && !g.edges {
		return
	}
	// A request of 0 is a request, of which no utilization is a share.
	if len(requests) > 0 && g.crossing() && g.chance(0.3) {
		for name := range requests {
			requests[name] = resource.MustParse("0")
		}
	}
	spec.Autoscaling = a
}

// volumes gives spec volumes of each source and mounts of them, or of volumes it lacks.
func (g specGen) volumes(spec *paasv1.DemoApplicationSpec) {
	for i := range g.count(3) {
		v := paasv1.Volume{Name: g.pick(fmt.Sprintf("vol%d", i), edge, "Vol", "a.b", strings.Repeat("v", 64))}
		mode := func() *int32 {
			if g.chance(0.8) {
				return nil
			}
			return ptr.To(int32(g.pickN(0o644, 0o400, edgeN, 0o1000, -1)))
		}
		items := func() []paasv1.KeyToPath {
			if g.chance(0.7) {
				return nil
			}
			return []paasv1.KeyToPath{{
				Key:  g.pick("app.conf", edge, "bad key", ".."),
				Path: g.pick("conf/app.conf", "app.conf", "a..b/c", edge, "/etc/app.conf", "../app.conf", "a/../b"),
				Mode: mode(),
			}}
		}
		switch g.r.IntN(5) {
		case 0:
			v.ConfigMap = &paasv1.ConfigMapVolumeSource{Name: g.objectName(), Items: items(), DefaultMode: mode(), Optional: ptr.To(g.chance(0.5))}
		case 1:
			v.Secret = &paasv1.SecretVolumeSource{SecretName: g.objectName(), Items: items(), DefaultMode: mode()}
		case 2:
			v.EmptyDir = &paasv1.EmptyDirVolumeSource{Medium: corev1.StorageMedium(g.pick("", "Memory", edge, "Disk"))}
			if g.chance(0.3) {
				v.EmptyDir.SizeLimit = ptr.To(resource.MustParse(g.pick("64Mi", "1Gi", "0", edge, "-1")))
			}
		case 3:
			v.PersistentVolumeClaim = &paasv1.PersistentVolumeClaimVolumeSource{ClaimName: g.objectName(), ReadOnly: g.chance(0.5)}
		case 4:
			v.EmptyDir = &paasv1.EmptyDirVolumeSource{}
			if g.edges {
				v.EmptyDir, v.PersistentVolumeClaim = []*paasv1.EmptyDirVolumeSource{nil, {}}[g.r.IntN(2)], &paasv1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}
			}
		}
		spec.Volumes = append(spec.Volumes, v)
		if g.chance(0.8) {
			spec.VolumeMounts = append(spec.VolumeMounts, paasv1.VolumeMount{
				Name:      g.pick(v.Name, edge, "missing"),
				MountPath: g.pick(fmt.Sprintf("/mnt/%d", i), edge, "relative", "/a:b"),
				SubPath:   g.pick("", "", "sub", edge, "/abs", "../up"),
				ReadOnly:  g.chance(0.5),
			})
		}
	}
}

// helpers gives spec init containers and sidecars, at and past their edges now and then: a
// name taken, a mount of no volume, a named port on a sidecar's probe, a request over its
// limit.
func (g specGen) helpers(spec *paasv1.DemoApplicationSpec) {
	names := []string{}
	container := func() paasv1.Container {
		c := paasv1.Container{Name: g.pick("migrate", "proxy", "wait-for-db", "logs", edge, "app", "Bad_Name", ""),
			Image: g.pick("busybox:1.36", "registry.example/proxy:1", edge, "", " padded ")}
		// Names are unique among the pod's containers: the same one twice is an edge.
		if !g.crossing() && slices.Contains(names, c.Name) {
			c.Name += fmt.Sprintf("-%d", len(names))
		}
		names = append(names, c.Name)
		if g.chance(0.3) {
			c.Command, c.Args = []string{"/bin/sh", "-c"}, []string{g.pick("sleep 1", "echo $(LOG_LEVEL)")}
		}
		for range g.count(2) {
			e := g.env()
			if g.edges || !slices.ContainsFunc(c.Env, func(o paasv1.EnvVar) bool { return o.Name == e.Name }) {
				c.Env = append(c.Env, e)
			}
		}
		if g.chance(0.3) {
			c.EnvFrom = []paasv1.EnvFromSource{{ConfigMapRef: &paasv1.OptionalObjectReference{Name: g.objectName(), Optional: ptr.To(g.chance(0.5))}}}
		}
		if g.chance(0.3) {
			quantity := func() *resource.Quantity {
				return ptr.To(resource.MustParse(g.pick("10m", "64Mi", "1", "0", edge, "-1")))
			}
			c.Resources = &paasv1.ContainerResources{}
			if g.chance(0.6) {
				c.Resources.Requests = &paasv1.ResourceAmounts{CPU: quantity()}
			}
			if g.chance(0.6) && (g.crossing() || c.Resources.Requests == nil) {
				c.Resources.Limits = &paasv1.ResourceAmounts{CPU: quantity(), Memory: quantity()}
			}
		}
		if g.chance(0.3) {
			c.SecurityContext = g.securityContext()
			if !g.crossing() && ptr.Deref(c.SecurityContext.RunAsUser, -1) == 0 {
				c.SecurityContext.RunAsUser = ptr.To[int64](1000)
			}
		}
		if len(spec.Volumes) > 0 && g.chance(0.4) {
			c.VolumeMounts = []paasv1.VolumeMount{{Name: g.pick(spec.Volumes[0].Name, edge, "missing"), MountPath: g.pick("/work", edge, "relative")}}
		}
		return c
	}
	for range g.count(2) {
		spec.InitContainers = append(spec.InitContainers, container())
	}
	for range g.count(2) {
		s := paasv1.Sidecar{Container: container()}
		if g.chance(0.3) {
			// A sidecar has no ports: its probes name none.
			s.ReadinessProbe = g.probe(nil)
		}
		if g.chance(0.2) {
			s.LivenessProbe = g.probe(nil)
		}
		spec.Sidecars = append(spec.Sidecars, s)
	}
	if !g.crossing() {
		// The pod's runAsUser 0 with a helper that must not run as root is a crossing.
		for i := range spec.InitContainers {
			spec.InitContainers[i].SecurityContext = nonRootSafe(spec, spec.InitContainers[i].SecurityContext)
		}
		for i := range spec.Sidecars {
			spec.Sidecars[i].SecurityContext = nonRootSafe(spec, spec.Sidecars[i].SecurityContext)
		}
	}
}

// nonRootSafe returns sc, or a copy that runs as user 1000 when, in the pod of spec, it would
// have to run as non-root as user 0.
func nonRootSafe(spec *paasv1.DemoApplicationSpec, sc *paasv1.SecurityContext) *paasv1.SecurityContext {
	c := ptr.Deref(sc, paasv1.SecurityContext{})
	podSC := ptr.Deref(spec.PodSecurityContext, paasv1.PodSecurityContext{})
	if ptr.Deref(stdcmp.Or(c.RunAsNonRoot, podSC.RunAsNonRoot), false) && ptr.Deref(stdcmp.Or(c.RunAsUser, podSC.RunAsUser), -1) == 0 {
		c.RunAsUser = ptr.To[int64](1000)
		return &c
	}
	return sc
}

// probe returns a probe of the container, which has the container ports of ports.
func (g specGen) probe(ports []paasv1.DemoApplicationPort) *paasv1.Probe {
	p := &paasv1.Probe{}
	switch g.r.IntN(9) {
	case 0, 1, 2:
		p.HTTPGet = &paasv1.HTTPGetAction{Path: g.pick("", "/healthz", "healthz"), Port: g.probePort(ports), Scheme: corev1.URIScheme(g.pick("", "HTTP", "HTTPS"))}
		if g.chance(0.2) {
			p.HTTPGet.HTTPHeaders = []paasv1.HTTPHeader{{Name: g.pick("X-Probe", edge, "Bad Header", ""), Value: "1"}}
		}
	case 3, 4:
		p.TCPSocket = &paasv1.TCPSocketAction{Port: g.probePort(ports)}
	case 5:
		p.GRPC = &paasv1.GRPCAction{Port: int32(g.pickN(9090, edgeN, 0, 65536))}
		if g.chance(0.3) {
			p.GRPC.Service = ptr.To(g.pick("", "app.Health"))
		}
	case 6, 7:
		p.Exec = &paasv1.ExecAction{Command: []string{"cat", "/tmp/ready"}}
		if g.edge(0.1) {
			p.Exec.Command = nil
		}
	case 8:
		p.GRPC = &paasv1.GRPCAction{Port: 9090}
		if g.edge(0.5) {
			p.TCPSocket = &paasv1.TCPSocketAction{Port: intstr.FromInt32(80)}
			p.Exec = &paasv1.ExecAction{Command: []string{"true"}}
		}
	}
	if g.chance(0.3) {
		p.InitialDelaySeconds, p.TimeoutSeconds, p.PeriodSeconds = int32(g.pickN(0, 5, edgeN, -1)), int32(g.pickN(0, 1, 3)), int32(g.pickN(0, 10, 1))
	}
	if g.chance(0.3) {
		p.SuccessThreshold, p.FailureThreshold = int32(g.pickN(0, 1, edgeN, 2)), int32(g.pickN(0, 3, edgeN, -1))
	}
	return p
}

// probePort returns a port number, or the name of one of the container ports of ports (or,
// past the edges, of any port of ports, or any name).
func (g specGen) probePort(ports []paasv1.DemoApplicationPort) intstr.IntOrString {
	if g.chance(0.5) {
		return intstr.FromInt32(int32(g.pickN(8080, 80, edgeN, 0, 65536)))
	}
	var names, others []string
	for _, p := range ports {
		names = append(names, containerPortName(p))
		others = append(others, p.Name)
	}
	if g.crossing() && g.chance(0.3) {
		names = append(others, g.portName())
	}
	if len(names) == 0 || names[0] == "" {
		return intstr.FromInt32(8080)
	}
	return intstr.FromString(names[g.r.IntN(len(names))])
}

// containerPortName returns the name p gives its container port: its targetPort's, when that
// is a name, else its own.
func containerPortName(p paasv1.DemoApplicationPort) string {
	if p.TargetPort != nil && p.TargetPort.Type == intstr.String {
		return p.TargetPort.StrVal
	}
	return p.Name
}

// containerPortNumber returns the number of p's container port: its targetPort's, when that
// is a number, else its own.
func containerPortNumber(p paasv1.DemoApplicationPort) int32 {
	if p.TargetPort != nil && p.TargetPort.Type == intstr.Int {
		return p.TargetPort.IntVal
	}
	return p.Port
}

// runsAsNonRoot reports whether spec's container must not run as root and runs as user 0, its
// security context overriding the pod's field by field.
func runsAsNonRootAsRoot(spec *paasv1.DemoApplicationSpec) bool {
	sc := ptr.Deref(spec.SecurityContext, paasv1.SecurityContext{})
	podSC := ptr.Deref(spec.PodSecurityContext, paasv1.PodSecurityContext{})
	return ptr.Deref(stdcmp.Or(sc.RunAsNonRoot, podSC.RunAsNonRoot), false) && ptr.Deref(stdcmp.Or(sc.RunAsUser, podSC.RunAsUser), -1) == 0
}

func (g specGen) securityContext() *paasv1.SecurityContext {
	sc := &paasv1.SecurityContext{}
	if g.set(0.5) {
		sc.RunAsNonRoot = ptr.To(g.chance(0.7))
	}
	if g.set(0.4) {
		sc.RunAsUser = ptr.To(int64(g.pickN(1000, 65534, 0, edgeN, -1)))
	}
	if g.set(0.3) {
		sc.RunAsGroup = ptr.To(int64(g.pickN(1000, 0)))
	}
	if g.set(0.5) {
		sc.AllowPrivilegeEscalation = ptr.To(g.chance(0.3))
	}
	if g.set(0.3) {
		sc.ReadOnlyRootFilesystem = ptr.To(true)
	}
	if g.set(0.4) {
		sc.Capabilities = &paasv1.Capabilities{Drop: []paasv1.Capability{"ALL"}}
		if g.chance(0.5) {
			sc.Capabilities.Add = []paasv1.Capability{paasv1.Capability(g.pick("NET_BIND_SERVICE", edge, "ALL", "SYS_ADMIN", "CAP_SYS_ADMIN", "net_raw"))}
		}
	}
	if g.set(0.4) {
		sc.SeccompProfile = g.seccompProfile()
	}
	if !g.crossing() && ptr.Deref(sc.RunAsNonRoot, false) && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		sc.RunAsUser = ptr.To[int64](1000)
	}
	return sc
}

func (g specGen) podSecurityContext() *paasv1.PodSecurityContext {
	sc := &paasv1.PodSecurityContext{}
	if g.set(0.5) {
		sc.RunAsNonRoot = ptr.To(g.chance(0.7))
	}
	if g.set(0.4) {
		sc.RunAsUser = ptr.To(int64(g.pickN(1000, 65534, 0)))
	}
	if g.set(0.3) {
		sc.RunAsGroup, sc.FSGroup = ptr.To(int64(g.pickN(1000, 0))), ptr.To(int64(g.pickN(2000, 0, edgeN, -1)))
	}
	if g.set(0.2) {
		sc.SupplementalGroups = []int64{int64(g.pickN(3000, 0, edgeN, -1))}
	}
	if g.set(0.4) {
		sc.SeccompProfile = g.seccompProfile()
	}
	if !g.crossing() && ptr.Deref(sc.RunAsNonRoot, false) && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		sc.RunAsUser = ptr.To[int64](1000)
	}
	return sc
}

func (g specGen) seccompProfile() *paasv1.SeccompProfile {
	p := &paasv1.SeccompProfile{Type: corev1.SeccompProfileType(g.pick("RuntimeDefault", "RuntimeDefault", "Localhost", edge, "Unconfined"))}
	if p.Type == corev1.SeccompProfileTypeLocalhost || g.edge(0.1) {
		p.LocalhostProfile = ptr.To(g.pick("profiles/app.json", "a..b.json", edge, "/abs.json", "../up.json", "a/../b.json"))
	}
	return p
}

// objectName returns the name of an object an app refers to, a DNS subdomain most of the time.
func (g specGen) objectName() paasv1.ObjectName {
	if !g.edge(0.05) {
		return paasv1.ObjectName(g.pick("registry", "settings", "web", "a.b-c"))
	}
	return paasv1.ObjectName(g.pick("", "Web", "a_b", "-a", strings.Repeat("n", 254)))
}

func (g specGen) labelKey() string {
	if !g.edge(0.1) {
		return g.pick("team", "example.com/team", "kubernetes.io/arch", "a.b/c-d_e.f")
	}
	return g.pick("", "bad key", "a/b/c", "/x", "Example.com/x", "app.kubernetes.io/name", "paas.cmft.com/demoapplication",
		strings.Repeat("k", 64), strings.Repeat("d", 254)+"/k", "x/"+strings.Repeat("k", 63))
}

func (g specGen) labelValue() string {
	if !g.edge(0.1) {
		return g.pick("shop", "", "v1.2_3-a", "amd64")
	}
	return g.pick("-x", "x-", "with space", strings.Repeat("v", 64), "a/b")
}
