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

package chart_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/kube"
	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/controllersuite"
	"github.com/cmft/demo-operator/internal/test/helmcli"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const crdName = "demoapplications.paas.cmft.com"

// cluster is a real kube-apiserver, with no CRD until a release installs it.
type cluster struct {
	cfg        *rest.Config
	admin      client.Client
	kubeconfig string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	env, err := testenv.New()
	if err != nil {
		t.Fatal(err)
	}
	// The chart, not envtest, installs the CRD here.
	env.CRDDirectoryPaths, env.ErrorIfCRDPathMissing = nil, false
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting kube-apiserver and etcd: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })

	// The helm CLI, and the SDK for the upgrade, read a kubeconfig.
	user, err := env.AddUser(envtest.User{Name: "helm", Groups: []string{"system:masters"}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, data, 0o600); err != nil {
		t.Fatal(err)
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	for gvk := range manager.Scheme.AllKnownTypes() {
		obj, _ := manager.Scheme.New(gvk)
		scheme.AddKnownTypeWithName(gvk, obj)
	}
	admin, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{cfg: cfg, admin: admin, kubeconfig: kubeconfig}
}

// helm returns the Helm SDK's configuration for releases in namespace, stored in Secrets as
// the CLI stores them: the upgrade to a chart changed in memory (a new operator version's CRD)
// runs in-process; install and uninstall run the helm CLI.
func (c *cluster) helm(t *testing.T, namespace string) *action.Configuration {
	t.Helper()
	cfg := &action.Configuration{}
	if err := cfg.Init(kube.GetConfig(c.kubeconfig, "", namespace), namespace, "secret", t.Logf); err != nil {
		t.Fatalf("helm configuration: %v", err)
	}
	return cfg
}

// restrictedNamespace creates a namespace handed to applications that admits only pods meeting
// the restricted Pod Security Standard.
func (c *cluster) restrictedNamespace(t *testing.T, name string) {
	t.Helper()
	c.createNamespace(t, name, map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
}

// namespace creates a namespace handed to applications, where a restrained manager may write.
func (c *cluster) namespace(t *testing.T, name string) {
	t.Helper()
	c.createNamespace(t, name, nil)
}

func (c *cluster) createNamespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	labels = maps.Clone(labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[wellknown.LabelApplicationsNamespace] = wellknown.ApplicationsEnabled
	if err := c.admin.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) install(t *testing.T, name, namespace string, vals map[string]interface{}) *release.Release {
	t.Helper()
	rel, err := c.tryInstall(t, name, namespace, vals)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// tryInstall runs `helm install` of the chart as release name in namespace with the helm CLI, and
// returns the release it prints.
func (c *cluster) tryInstall(t *testing.T, name, namespace string, vals map[string]interface{}) (*release.Release, error) {
	t.Helper()
	args := []string{"install", name, chartDir, "--namespace", namespace, "--kubeconfig", c.kubeconfig, "--output", "json"}
	if vals != nil {
		data, err := yaml.Marshal(vals)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "values.yaml")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--values", file)
	}
	out, err := helmcli.Run(args...)
	if err != nil {
		return nil, err
	}
	rel := &release.Release{}
	if err := json.Unmarshal([]byte(out), rel); err != nil {
		t.Fatalf("helm install %s printed no release: %v", name, err)
	}
	return rel, nil
}

// uninstall runs `helm uninstall` with the helm CLI.
func (c *cluster) uninstall(t *testing.T, name, namespace string) {
	t.Helper()
	helmCLI(t, "uninstall", name, "--namespace", namespace, "--kubeconfig", c.kubeconfig)
}

// serviceAccountConfig returns a config that authenticates as the ServiceAccount with a token
// from the TokenRequest API, as the kubelet would mount it into the manager's pods.
func (c *cluster) serviceAccountConfig(t *testing.T, namespace, name string) *rest.Config {
	t.Helper()
	clientset, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(c.cfg)
	cfg.BearerToken = testenv.ServiceAccountToken(t, clientset, namespace, name)
	return cfg
}

// runManager runs the manager in this process with the flags of the release's Deployment and
// the identity of its ServiceAccount, until the test (or stop) ends it.
func (c *cluster) runManager(t *testing.T, rel *release.Release) (cfg *rest.Config, stop func()) {
	t.Helper()
	d := parseManifest(t, rel.Manifest).deployment(t)
	opts := managerOptions(t, d)
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	cfg = c.serviceAccountConfig(t, rel.Namespace, d.Spec.Template.Spec.ServiceAccountName)
	mgr, err := manager.New(cfg, opts, func(o *ctrl.Options) {
		// In a pod the manager finds its namespace in the mounted token's directory.
		o.LeaderElectionNamespace = rel.Namespace
		// Each release's manager registers the same controller names in this one process.
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	if err != nil {
		t.Fatalf("building the manager: %v", err)
	}
	return cfg, controllersuite.Start(t, mgr)
}

func TestInstallUpgradeUninstall(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	c := startCluster(t)
	ctx := context.Background()

	c.restrictedNamespace(t, releaseNamespace)
	rel := c.install(t, releaseName, releaseNamespace, nil)
	t.Run("installs the CRD", func(t *testing.T) {
		g := newG(t)
		g.Eventually(func(g Gomega) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(c.admin.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
			g.Expect(crd.Status.Conditions).To(ContainElement(And(
				HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
		}, 30*time.Second).Should(Succeed())
	})

	t.Run("the notes tell the user what to do next", func(t *testing.T) {
		g := newG(t)
		g.Expect(rel.Info.Notes).To(ContainSubstring("helm test demo-operator -n demo-operator-system"))
		g.Expect(rel.Info.Notes).To(ContainSubstring("kind: DemoApplication"))
	})

	t.Run("the pods are admitted by a restricted namespace", func(t *testing.T) {
		g := newG(t)
		d := parseManifest(t, rel.Manifest).deployment(t)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "admission-", Namespace: releaseNamespace},
			Spec:       d.Spec.Template.Spec,
		}
		g.Expect(c.admin.Create(ctx, pod.DeepCopy(), client.DryRunAll)).To(Succeed())
		for _, hook := range rel.Hooks {
			hookPod := &corev1.Pod{}
			g.Expect(yaml.Unmarshal([]byte(hook.Manifest), hookPod)).To(Succeed())
			if hookPod.Kind != "Pod" {
				continue
			}
			g.Expect(c.admin.Create(ctx, hookPod, client.DryRunAll)).To(Succeed(), "the helm test pod %s", hook.Name)
		}

		// The namespace does enforce: one privilege too many and the pod is rejected.
		pod.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		err := c.admin.Create(ctx, pod, client.DryRunAll)
		g.Expect(err).To(MatchError(ContainSubstring("violates PodSecurity")))
	})

	const apps = "apps"
	c.namespace(t, apps)
	saConfig, stop := c.runManager(t, rel)
	sa, err := client.New(saConfig, client.Options{Scheme: c.admin.Scheme()})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the pod labeler works with the chart's RBAC", func(t *testing.T) {
		g := newG(t)
		pod := annotatedPod(apps, "labelled")
		g.Expect(c.admin.Create(ctx, pod)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			g.Expect(pod.Labels).To(HaveKeyWithValue("padok.fr/pod-name", "labelled"))
		}, 30*time.Second).Should(Succeed())
	})

	t.Run("the DemoApplication controller works with the chart's RBAC", func(t *testing.T) {
		g := newG(t)
		app := builder.DemoApplication(apps, "web", builder.Replicas(1), builder.Ports(builder.Port("", 80, 0)))
		g.Expect(c.admin.Create(ctx, app)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(c.admin.Get(ctx, client.ObjectKey{Namespace: apps, Name: "web"}, &corev1.Service{})).To(Succeed())
			g.Expect(c.admin.Get(ctx, client.ObjectKey{Namespace: apps, Name: "web"}, &appsv1.Deployment{})).To(Succeed())
			g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(app), app)).To(Succeed())
			g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation))
		}, 30*time.Second).Should(Succeed())
	})

	t.Run("the ServiceAccount can do nothing more", func(t *testing.T) {
		g := newG(t)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "password", Namespace: apps}}
		g.Expect(c.admin.Create(ctx, secret)).To(Succeed())

		// By default it reads no Secret (--config-rollout-secrets: TestSecretReadsNeedTheSwitch),
		// and it never writes one.
		g.Expect(sa.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{})).To(beForbidden(), "read a Secret")
		changed := secret.DeepCopy()
		changed.StringData = map[string]string{"password": "attacker"}
		g.Expect(sa.Update(ctx, changed)).To(beForbidden(), "change a Secret")
		g.Expect(sa.Delete(ctx, secret)).To(beForbidden(), "delete a Secret")
		g.Expect(sa.Delete(ctx, annotatedPod(apps, "labelled"))).To(beForbidden(), "delete a Pod")
		g.Expect(sa.Create(ctx, annotatedPod(apps, "created"))).To(beForbidden(), "create a Pod")
		web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: apps}}
		g.Expect(sa.Delete(ctx, web)).To(beForbidden(), "delete a Deployment")
		g.Expect(sa.Delete(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crdName}})).
			To(beForbidden(), "delete the CRD")
		g.Expect(sa.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "mine"}})).To(beForbidden(), "create a Namespace")
	})

	t.Run("the release's policies refuse the ServiceAccount what its RBAC allows but the operator never does", func(t *testing.T) {
		g := newG(t)
		pod := &corev1.Pod{}
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Namespace: apps, Name: "labelled"}, pod)).To(Succeed())
		image := pod.DeepCopy()
		image.Spec.Containers[0].Image = "attacker.example/miner:1"
		g.Expect(sa.Patch(ctx, image, client.MergeFrom(pod))).To(And(beForbidden(),
			MatchError(ContainSubstring("may change nothing of a pod but its pod-name label"))), "change a pod's image")
		label := pod.DeepCopy()
		label.Labels["example.com/other"] = "x"
		g.Expect(sa.Patch(ctx, label, client.MergeFrom(pod))).To(And(beForbidden(),
			MatchError(ContainSubstring("may change no label of a pod but"))), "label a pod with another key")
	})
	stop()

	t.Run("a namespaced release watches and may touch only its namespaces", func(t *testing.T) {
		g := newG(t)
		const scopedNamespace, watched = "scoped-system", "team-a"
		c.restrictedNamespace(t, scopedNamespace)
		c.namespace(t, watched)
		scoped := c.install(t, "scoped", scopedNamespace,
			values(t, "{watchNamespaces: [team-a], crds: {install: false}}"))
		saConfig, stop := c.runManager(t, scoped)
		defer stop()
		sa, err := client.New(saConfig, client.Options{Scheme: c.admin.Scheme()})
		g.Expect(err).NotTo(HaveOccurred())

		inside, outside := annotatedPod(watched, "inside"), annotatedPod(apps, "outside")
		g.Expect(c.admin.Create(ctx, inside)).To(Succeed())
		g.Expect(c.admin.Create(ctx, outside)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(inside), inside)).To(Succeed())
			g.Expect(inside.Labels).To(HaveKeyWithValue("padok.fr/pod-name", "inside"))
		}, 30*time.Second).Should(Succeed())
		g.Consistently(func(g Gomega) {
			g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(outside), outside)).To(Succeed())
			g.Expect(outside.Labels).NotTo(HaveKey("padok.fr/pod-name"))
		}, 2*time.Second).Should(Succeed())

		g.Expect(sa.List(ctx, &corev1.PodList{}, client.InNamespace(watched))).To(Succeed())
		g.Expect(sa.List(ctx, &corev1.PodList{}, client.InNamespace(apps))).To(beForbidden(), "list Pods outside team-a")
		g.Expect(sa.List(ctx, &corev1.PodList{})).To(beForbidden(), "list Pods cluster-wide")
	})

	// Prometheus' ServiceAccount, which the manager authorizes through SubjectAccessReviews.
	const promNamespace, promAccount = "monitoring", "prometheus-k8s"
	t.Run("metrics are forbidden to a scraper the release does not bind", func(t *testing.T) {
		newG(t).Expect(c.mayGetMetrics(t, promNamespace, promAccount)).To(BeFalse())
	})

	t.Run("upgrade applies a changed CRD", func(t *testing.T) {
		g := newG(t)
		changed := withRenamedAgeColumn(t, loadChart(t))
		upgrade := action.NewUpgrade(c.helm(t, releaseNamespace))
		upgrade.Namespace = releaseNamespace
		upgraded, err := upgrade.Run(releaseName, changed, values(t,
			"{replicaCount: 3, metrics: {readers: [{name: "+promAccount+", namespace: "+promNamespace+"}]}}"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(upgraded.Version).To(Equal(2))
		g.Expect(c.mayGetMetrics(t, promNamespace, promAccount)).To(BeTrue(), "metrics.readers binds metrics-reader")

		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		for _, version := range crd.Spec.Versions {
			g.Expect(version.AdditionalPrinterColumns).To(ContainElement(HaveField("Name", "Created")), version.Name)
		}
		d := parseManifest(t, upgraded.Manifest).deployment(t)
		g.Expect(c.admin.Get(ctx, client.ObjectKeyFromObject(d), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](3)))
	})

	t.Run("uninstall removes the release but keeps the CRD and the applications", func(t *testing.T) {
		g := newG(t)
		c.uninstall(t, releaseName, releaseNamespace)

		for _, obj := range parseManifest(t, rel.Manifest) {
			if obj.GetKind() == "CustomResourceDefinition" {
				continue
			}
			err := c.admin.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopy())
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s %s is left: %v", obj.GetKind(), obj.GetName(), err)
		}
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Name: crdName}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Namespace: apps, Name: "web"}, &paasv1.DemoApplication{})).To(Succeed())
	})

	// The kept CRD still carries the uninstalled release's ownership annotations; the notes
	// and the README give the two supported ways to install again under another name.
	t.Run("reinstalling under another name with the CRD kept", func(t *testing.T) {
		g := newG(t)
		g.Expect(rel.Info.Notes).To(ContainSubstring("kubectl annotate crd demoapplications.paas.cmft.com --overwrite"))
		const again = "again"
		c.restrictedNamespace(t, again)

		_, err := c.tryInstall(t, again, again, nil)
		g.Expect(err).To(MatchError(ContainSubstring("invalid ownership metadata")), "Helm refuses another release's CRD")

		// crds.install=false: the CRD is left as it is.
		c.install(t, again, again, values(t, "crds: {install: false}"))
		c.uninstall(t, again, again)

		// Adoption: the notes' kubectl annotate, then a release that owns and upgrades the CRD.
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		crd.Annotations["meta.helm.sh/release-name"], crd.Annotations["meta.helm.sh/release-namespace"] = again, again
		g.Expect(c.admin.Update(ctx, crd)).To(Succeed())
		adopted := c.install(t, again, again, nil)
		g.Expect(parseManifest(t, adopted.Manifest)).To(HaveKey("CustomResourceDefinition /" + crdName))
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
		g.Expect(crd.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", again))
		g.Expect(c.admin.Get(ctx, client.ObjectKey{Namespace: apps, Name: "web"}, &paasv1.DemoApplication{})).To(Succeed(),
			"the applications outlive both releases")
	})
}

// TestInstallReleaseNamedLikeABoolean installs releases whose names YAML reads as a boolean or
// a number: the API server takes only strings as label values.
func TestInstallReleaseNamedLikeABoolean(t *testing.T) {
	c := startCluster(t)
	for _, name := range []string{"yes", "123"} {
		ns := "release-" + name
		c.restrictedNamespace(t, ns)
		rel := c.install(t, name, ns, values(t, "{crds: {install: false}, networkPolicy: {enabled: true}}"))
		d := parseManifest(t, rel.Manifest).deployment(t)
		NewWithT(t).Expect(c.admin.Get(context.Background(), client.ObjectKeyFromObject(d), d)).To(Succeed())
		NewWithT(t).Expect(d.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", name))
	}
}

// mayGetMetrics asks the API server's authorizer, as the manager does for every scrape,
// whether the ServiceAccount may get /metrics.
func (c *cluster) mayGetMetrics(t *testing.T, namespace, name string) bool {
	t.Helper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:                  "system:serviceaccount:" + namespace + ":" + name,
		Groups:                []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}}
	if err := c.admin.Create(context.Background(), review); err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}

// annotatedPod returns a pod that opts in to the pod-name label. No kubelet runs it.
func annotatedPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: namespace,
			Annotations: map[string]string{"padok.fr/add-pod-name-label": "true"},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}},
	}
}

// newG returns a Gomega for t whose Eventually gives the manager time to act on two busy cores.
func newG(t *testing.T) *WithT {
	g := NewWithT(t)
	g.SetDefaultEventuallyTimeout(30 * time.Second)
	g.SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	return g
}

func beForbidden() types.GomegaMatcher {
	return Satisfy(apierrors.IsForbidden)
}

// withRenamedAgeColumn changes the chart's copy of the CRD, as a new operator version would.
func withRenamedAgeColumn(t *testing.T, ch *chart.Chart) *chart.Chart {
	t.Helper()
	for _, f := range ch.Files {
		if strings.HasPrefix(f.Name, "files/crds/") {
			changed := strings.ReplaceAll(string(f.Data), "name: Age\n", "name: Created\n")
			if changed == string(f.Data) {
				t.Fatalf("%s has no Age column to rename", f.Name)
			}
			f.Data = []byte(changed)
		}
	}
	ch.Metadata.Version = "0.1.1"
	return ch
}
