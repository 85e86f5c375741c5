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

// Package testenv is the environment every test runs in: the repository (Root), the tools make
// builds into bin/ (Tool), the machine's prerequisites, which skip on a developer's machine and
// fail on CI (Require), a namespace per test (NewNamespace), and the real kube-apiserver and etcd
// that integration tests run against, with the project's CRDs installed (Start).
package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// AdmissionPlugins are the admission plugins every API server the tests start runs: the
// ones a real platform enables, OwnerReferencesPermissionEnforcement included (on by
// default in OpenShift), which refuses an owner reference that blocks its owner's deletion
// unless the writer may update the owner's finalizers. kube-apiserver adds them to its
// default-on set; ServiceAccount stays off in envtest, which runs no controller to create
// the namespaces' default ServiceAccounts that the plugin requires of every pod.
var AdmissionPlugins = []string{
	"NamespaceLifecycle", "LimitRanger", "PodSecurity", "Priority", "DefaultTolerationSeconds",
	"ResourceQuota", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook",
	"NodeRestriction", "OwnerReferencesPermissionEnforcement",
}

// Root is the repository's top directory: the nearest one holding go.mod above the working
// directory, a test's package directory. Not the source file's path: -trimpath, which make
// builds everything with, leaves that relative.
var Root = sync.OnceValue(func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			panic("no go.mod above " + wd)
		}
	}
})

// Option changes the environment New returns.
type Option func(*envtest.Environment)

// WithoutGatewayAPI leaves the Gateway API's CRDs out: a cluster that has none.
func WithoutGatewayAPI(env *envtest.Environment) {
	env.CRDDirectoryPaths = env.CRDDirectoryPaths[:1]
}

// New returns an environment with the DemoApplication CRD and the Gateway API's
// standard-channel CRDs, not yet started. The control-plane binaries come from
// KUBEBUILDER_ASSETS, which `make test` sets to the ones hack/control-plane.sh builds.
func New(opts ...Option) (*envtest.Environment, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, fmt.Errorf("KUBEBUILDER_ASSETS is not set: run the tests with make test, " +
			"or export KUBEBUILDER_ASSETS=$(hack/control-plane.sh)")
	}
	gatewayAPI, err := GatewayAPICRDs()
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(Root(), "config", "crd", "bases"), gatewayAPI},
		ErrorIfCRDPathMissing: true,
	}
	for _, opt := range opts {
		opt(env)
	}
	env.ControlPlane.GetAPIServer().Configure().Set("enable-admission-plugins", strings.Join(AdmissionPlugins, ","))
	return env, nil
}

// GatewayAPICRDs returns the folder of the Gateway API's standard-channel CRDs, with their
// validation rules, as the module the operator is built with ships them.
func GatewayAPICRDs() (string, error) {
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api")
	list.Dir = Root()
	out, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("finding the module sigs.k8s.io/gateway-api: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "standard"), nil
}

// Start starts a new environment and returns it with its admin config.
func Start(opts ...Option) (*envtest.Environment, *rest.Config, error) {
	env, err := New(opts...)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	return env, cfg, nil
}

// OperatorNamespace and OperatorServiceAccount are where AsOperator puts the operator's
// identity: config/default's.
const (
	OperatorNamespace      = "demo-operator-system"
	OperatorServiceAccount = "demo-operator-controller-manager"
)

// ServiceAccountToken returns a token of the ServiceAccount from the TokenRequest API, valid
// for an hour, as the kubelet would mount it into a pod of that ServiceAccount.
func ServiceAccountToken(t testing.TB, cs kubernetes.Interface, namespace, name string) string {
	t.Helper()
	token, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s/%s: %v", namespace, name, err)
	}
	return token.Status.Token
}

// AsOperator returns a copy of the admin config cfg that acts as the operator's
// ServiceAccount, bound to the ClusterRole of config/rbac/role.yaml and restrained by the
// policies of config/restraint as config/default installs them: a manager run with it has
// exactly the rights the shipped RBAC and policies leave it, so that a missing rule, or an
// admission plugin checking them, fails the tests as it would fail users.
func AsOperator(ctx context.Context, cfg *rest.Config) (*rest.Config, error) {
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return nil, err
	}
	role := &rbacv1.ClusterRole{}
	data, err := os.ReadFile(filepath.Join(Root(), "config", "rbac", "role.yaml"))
	if err == nil {
		err = yaml.UnmarshalStrict(data, role)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the operator's ClusterRole: %w", err)
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: OperatorNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: OperatorServiceAccount, Namespace: OperatorNamespace}},
		role,
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: OperatorServiceAccount, Namespace: OperatorNamespace}},
		},
	}
	restraint, err := Objects(filepath.Join(Root(), "config", "restraint", "policy.yaml"))
	if err != nil {
		return nil, err
	}
	for _, obj := range append(objs, restraint...) {
		if err := c.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("creating the operator's %T %s: %w", obj, obj.GetName(), err)
		}
	}
	operator := OperatorConfig(cfg)
	return operator, waitRestrained(ctx, c, operator)
}

// OperatorConfig returns a copy of the admin config cfg that impersonates the operator's
// ServiceAccount, for tests that act with the operator's token once AsOperator has set it up.
func OperatorConfig(cfg *rest.Config) *rest.Config {
	return ServiceAccountConfig(cfg, OperatorNamespace, OperatorServiceAccount)
}

// ServiceAccountConfig returns a copy of the admin config cfg that impersonates the
// ServiceAccount namespace/name, with the groups its token would carry.
func ServiceAccountConfig(cfg *rest.Config, namespace, name string) *rest.Config {
	sa := rest.CopyConfig(cfg)
	sa.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":" + name,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	return sa
}

// waitRestrained waits until the API server enforces each of config/restraint's policies,
// which it loads a moment after they are created: until then the operator would be
// unrestrained. It probes each with a write that it refuses, dry run.
func waitRestrained(ctx context.Context, admin client.Client, cfg *rest.Config) error {
	operator, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return err
	}
	const probe = "restraint-probe"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: OperatorNamespace, Name: probe},
		// Bound to a node that does not exist: nothing runs it.
		Spec: corev1.PodSpec{NodeName: probe, Containers: []corev1.Container{{Name: "probe", Image: probe}}},
	}
	if err := admin.Create(ctx, pod); err != nil {
		return fmt.Errorf("creating the restraint probe pod: %w", err)
	}
	defer func() { _ = admin.Delete(ctx, pod) }()
	probes := map[string]func() error{
		"restraint-pods": func() error {
			labelled := pod.DeepCopy()
			labelled.Labels = map[string]string{probe: "true"}
			return operator.Patch(ctx, labelled, client.MergeFrom(pod), client.DryRunAll)
		},
		"restraint-objects": func() error {
			// Under the operator's field manager, unlabelled and controlled by no one.
			return operator.Create(ctx, &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: OperatorNamespace, Name: probe},
				Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
			}, client.DryRunAll, client.FieldOwner("demo-operator"))
		},
	}
	for policy, write := range probes {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			err := write()
			// Refused by one of its validations, not by an expression that fails.
			return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+policy+"'") &&
				!strings.Contains(err.Error(), "resulted in error"), nil
		})
		if err != nil {
			return fmt.Errorf("waiting for the API server to enforce %s: %w", policy, err)
		}
	}
	return nil
}

// Objects reads the objects of a YAML file of one or more documents.
func Objects(path string) ([]client.Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var objs []client.Object
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

// Counters returns the values of the controller-runtime counter name by the value of its
// label, as the managers of this process have counted them (their metrics share one registry).
func Counters(name, label string) (map[string]float64, error) {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, family := range families {
		if family.GetName() != name {
			continue
		}
		for _, m := range family.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out, nil
}

// Require stops test t when err says this machine lacks one of its prerequisites: a skip on a
// developer's machine, a failure under CI (CI set), which installs every prerequisite, so that
// a missing one is a broken CI and not a green run.
func Require(t testing.TB, err error) {
	t.Helper()
	switch {
	case err == nil:
	case os.Getenv("CI") != "":
		t.Fatalf("CI must run this test: %v (.ci/run installs what it needs)", err)
	default:
		t.Skipf("skipping: %v", err)
	}
}

// RequireInMain is Require for the TestMain of suite, before any test runs: it ends the test
// binary unless err is nil.
func RequireInMain(suite string, err error) {
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		fmt.Fprintf(os.Stderr, "the %s cannot run: %v (.ci/run installs what they need)\n", suite, err)
		os.Exit(1)
	}
	fmt.Printf("skipping the %s: %v\n", suite, err)
	os.Exit(0)
}

// NewNamespace creates a namespace for one test, named prefix and a random suffix, and returns
// its name. It is handed to applications (labelled as the platform opts a namespace in) unless
// NotForApplications says otherwise. On envtest, which runs no controller, that is all: no namespace controller would
// finish a deletion, so namespaces stay and their names are unique instead. On a cluster that
// runs its controllers (the option ControllersRun) the namespace is deleted when the test ends,
// and NewNamespace returns once its default ServiceAccount exists: pods are refused before.
func NewNamespace(t testing.TB, k8s client.Client, prefix string, opts ...NamespaceOption) string {
	t.Helper()
	o := namespaceOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	labels := maps.Clone(o.labels)
	if !o.closed {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[wellknown.LabelApplicationsNamespace] = wellknown.ApplicationsEnabled
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix, Labels: labels, Annotations: o.annotations}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	if !o.controllers {
		return ns.Name
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	// The ServiceAccount controller creates the default ServiceAccount a moment later.
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "default"}, &corev1.ServiceAccount{})
		return err == nil, client.IgnoreNotFound(err)
	})
	if err != nil {
		t.Fatalf("waiting for the default ServiceAccount of namespace %s: %v", ns.Name, err)
	}
	return ns.Name
}

// HandOver labels namespace ns as handed to applications, as a platform team does, until t ends.
func HandOver(t testing.TB, k8s client.Client, ns string) {
	t.Helper()
	label := func(value *string) error {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{wellknown.LabelApplicationsNamespace: value}}})
		if err != nil {
			return err
		}
		return k8s.Patch(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, client.RawPatch(types.MergePatchType, patch))
	}
	enabled := wellknown.ApplicationsEnabled
	if err := label(&enabled); err != nil {
		t.Fatalf("handing namespace %s to applications: %v", ns, err)
	}
	t.Cleanup(func() { _ = label(nil) })
}

// NamespaceOption changes the namespace NewNamespace makes.
type NamespaceOption func(*namespaceOptions)

type namespaceOptions struct {
	labels, annotations map[string]string
	controllers, closed bool
}

// NotForApplications leaves out the label by which the platform hands a namespace to
// applications, which NewNamespace otherwise sets: the operator may then write nothing there.
func NotForApplications(o *namespaceOptions) { o.closed = true }

// ControllersRun says the cluster runs its controllers (a local cluster, not envtest): the
// namespace is deleted when the test ends, and ready for pods when NewNamespace returns.
func ControllersRun(o *namespaceOptions) { o.controllers = true }

// NamespaceLabels labels the namespace, e.g. with a Pod Security level.
func NamespaceLabels(labels map[string]string) NamespaceOption {
	return func(o *namespaceOptions) { o.labels = labels }
}

// NamespaceAnnotations annotates the namespace, e.g. with a node selector for its pods.
func NamespaceAnnotations(annotations map[string]string) NamespaceOption {
	return func(o *namespaceOptions) { o.annotations = annotations }
}

// Tool is the path of a tool the Makefile builds into bin/, or the one the environment
// variable of the same name (HELM, OPERATOR_SDK, CONTROLLER_GEN ...) names, as make sets them.
func Tool(name string) (string, error) {
	path := os.Getenv(strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
	if path == "" {
		path = filepath.Join(Root(), "bin", name)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%w: run the tests with make, or build it with make %s", err, name)
	}
	return path, nil
}

// DemoApplicationCRD is the DemoApplication CRD that make manifests generates into
// config/crd/bases, as config/ installs it.
func DemoApplicationCRD(t testing.TB) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Root(), "config", "crd", "bases", "paas.cmft.com_demoapplications.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}
