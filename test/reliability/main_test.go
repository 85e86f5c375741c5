//go:build reliability

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

// Package reliability checks what platform teams check before they trust an operator, on
// the local cluster's real node with the operator installed by its chart from its image: an
// upgrade rolls out nothing users own, a partitioned leader never writes again. The
// applications' pods run on kwok's nodes, so that hundreds of them load the API server and
// the operator, not the machine. It needs root, Linux and the packages README lists.
package reliability

import (
	"archive/tar"
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/storage/driver"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/localcluster"
	"github.com/cmft/demo-operator/internal/manager"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const (
	// releaseName and chartFullname name the Helm release and its objects' prefix.
	releaseName   = "rel"
	chartFullname = "rel-demo-operator"
	// operatorNamespace holds the release, restricted by Pod Security as in production.
	operatorNamespace = "demo-operator-reliability"
	// podNameKey is the extra a bound ServiceAccount token carries into the audit log: the
	// name of the pod that sent a request, whatever its source address became on the way.
	podNameKey = "authentication.kubernetes.io/pod-name"
)

var (
	cluster *localcluster.Cluster
	k8s     client.Client
	cs      kubernetes.Interface
	// previousImage is release N-1 of the manager, currentImage this tree's.
	previousImage, currentImage string
)

func TestMain(m *testing.M) {
	assets := framework.Assets("make test-reliability", "NODE_ASSETS")[0]
	testenv.RequireInMain("reliability tests", localcluster.NodePrerequisites(assets))
	// Twelve kwok nodes hold the applications' pods (110 each): the collisions test alone
	// has 825 at once.
	cluster = &localcluster.Cluster{BinDir: assets, Nodes: 12, RealNode: true, AuditLog: true, Progress: os.Stdout, DieWithParent: true}
	os.Exit(framework.Run(m, cluster, framework.Options{Scheme: manager.Scheme, QPS: 200, Burst: 400,
		Timeout: 20 * time.Minute, SetUp: setUp}))
}

// setUp pushes both releases of the manager image to the cluster's registry.
func setUp(ctx context.Context, s *framework.Suite) error {
	k8s, cs = s.Client, s.Clientset
	dir := s.Dir
	start := time.Now()
	registry := cluster.RegistryHost()
	previousImage, currentImage = registry+"/demo-operator:previous", registry+"/demo-operator:current"
	trees := map[string]string{previousImage: testenv.Root(), currentImage: testenv.Root()}
	if unchanged, err := unchangedSinceHEAD(ctx); err != nil {
		return err
	} else if !unchanged {
		if trees[previousImage], err = checkout(ctx, previousRevision(), filepath.Join(dir, "previous")); err != nil {
			return err
		}
	}
	b := &imagebuild.Builder{}
	built := map[string]string{} // local tag by tree: one build of a tree serves both releases
	for ref, tree := range trees {
		local, ok := built[tree]
		if !ok {
			local = "localhost/demo-operator-reliability/manager:" + ref[strings.LastIndex(ref, ":")+1:]
			if _, err := b.BuildLocally(ctx, testenv.Root(), imagebuild.BuildOptions{ContextDir: tree, Tag: local}); err != nil {
				return fmt.Errorf("building %s: %w", ref, err)
			}
			built[tree] = local
		}
		if err := cluster.PushImage(ctx, b, local, ref); err != nil {
			return err
		}
	}
	fmt.Printf("release N-1 (%s) and this tree: %d image builds, pushed in %s\n", previousRevision(), len(built),
		time.Since(start).Round(100*time.Millisecond))
	return nil
}

// previousRevision is the git revision release N-1 is built from: RELIABILITY_PREVIOUS (the
// previous release's tag), else HEAD, the last commit of this tree. The repository has no
// release tag yet: by default N-1 is HEAD under another image tag, and a change not yet
// committed is the upgrade under test.
func previousRevision() string {
	if rev := os.Getenv("RELIABILITY_PREVIOUS"); rev != "" {
		return rev
	}
	return "HEAD"
}

// unchangedSinceHEAD reports whether release N-1 is HEAD and this tree is HEAD's, as on CI:
// then both releases are one build, pushed under two tags (the upgrade still replaces the
// manager's pods, whose image changes).
func unchangedSinceHEAD(ctx context.Context) (bool, error) {
	if previousRevision() != "HEAD" {
		return false, nil
	}
	status, err := exec.CommandContext(ctx, "git", "-C", testenv.Root(), "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return false, fmt.Errorf("git status: %w", err)
	}
	return len(status) == 0, nil
}

// checkout writes the tree of a git revision into dir, for the Dockerfile it holds to build.
func checkout(ctx context.Context, revision, dir string) (string, error) {
	archive := exec.CommandContext(ctx, "git", "-C", testenv.Root(), "archive", "--format=tar", revision)
	out, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	archive.Stderr = os.Stderr
	if err := archive.Start(); err != nil {
		return "", err
	}
	tr := tar.NewReader(out)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		path := filepath.Join(dir, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			err = writeFile(path, tr, os.FileMode(h.Mode))
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, path)
		}
		if err != nil {
			return "", err
		}
	}
	if err := archive.Wait(); err != nil {
		return "", fmt.Errorf("git archive %s: %w", revision, err)
	}
	return dir, nil
}

func writeFile(path string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// helmConfig is the Helm SDK's configuration for the release's namespace.
func helmConfig() (*action.Configuration, error) {
	return framework.HelmConfig(cluster.Kubeconfig(), operatorNamespace)
}

// chartValues installs image, with the chart's default of two replicas.
func chartValues(image string) map[string]any {
	i := strings.LastIndex(image, ":")
	return map[string]any{"image": map[string]any{"repository": image[:i], "tag": image[i+1:]}}
}

// installRelease installs the chart with image, replacing a release of another image: each
// test starts from the release it needs, whichever ran before it.
func installRelease(t *testing.T, image string) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
	if err := k8s.Create(ctx, ns); err != nil {
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
	}
	cfg, err := helmConfig()
	g.Expect(err).NotTo(HaveOccurred())
	rel, err := action.NewGet(cfg).Run(releaseName)
	if err == nil {
		if rel.Config["image"].(map[string]any)["tag"] == image[strings.LastIndex(image, ":")+1:] {
			electedPods(t, image, 2*time.Minute)
			return
		}
		uninstall := action.NewUninstall(cfg)
		uninstall.Wait, uninstall.Timeout = true, 2*time.Minute
		_, err = uninstall.Run(releaseName)
		g.Expect(err).NotTo(HaveOccurred())
	} else {
		g.Expect(errors.Is(err, driver.ErrReleaseNotFound)).To(BeTrue(), "helm get: %v", err)
	}
	chart, err := loader.Load(filepath.Join(testenv.Root(), "charts", "demo-operator"))
	g.Expect(err).NotTo(HaveOccurred())
	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace = releaseName, operatorNamespace
	_, err = install.Run(chart, chartValues(image))
	g.Expect(err).NotTo(HaveOccurred())
	electedPods(t, image, 3*time.Minute)
}

// electedPods waits until the release's two pods run image, Ready, and one holds the Lease.
func electedPods(t *testing.T, image string, timeout time.Duration) []corev1.Pod {
	t.Helper()
	start := time.Now()
	pods := framework.ExpectManagerPods(t, k8s, operatorNamespace, chartFullname, image, 2, timeout)
	NewWithT(t).Eventually(func(g Gomega) string {
		return framework.LeaseHolder(g, cs, operatorNamespace)
	}, max(timeout-time.Since(start), 10*time.Second), 250*time.Millisecond).Should(BeElementOf(pods[0].Name, pods[1].Name))
	return pods
}

// appNamespace creates a namespace whose pods the API server places on the kwok nodes, as a
// platform team pins a tenant to its nodes: PodNodeSelector and PodTolerationRestriction
// read these annotations. The DemoApplication API has no scheduling fields.
func appNamespace(t *testing.T, prefix string) string {
	t.Helper()
	return testenv.NewNamespace(t, k8s, prefix, testenv.ControllersRun, testenv.NamespaceAnnotations(map[string]string{
		"scheduler.alpha.kubernetes.io/node-selector":      "type=kwok",
		"scheduler.alpha.kubernetes.io/defaultTolerations": `[{"key":"` + localcluster.KwokTaint + `","operator":"Exists"}]`,
	}))
}

// auditEvents reads the audit log's writes that pass keep.
func auditEvents(g Gomega, keep func(*auditv1.Event) bool) []auditv1.Event {
	f, err := os.Open(cluster.AuditLogFile())
	g.Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var events []auditv1.Event
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		var e auditv1.Event
		g.Expect(json.Unmarshal(scanner.Bytes(), &e)).To(Succeed())
		if keep(&e) {
			events = append(events, e)
		}
	}
	g.Expect(scanner.Err()).NotTo(HaveOccurred())
	return events
}

// sentBy reports whether one of pods sent e, by the pod name of its bound token.
func sentBy(e *auditv1.Event, pods ...string) bool {
	for _, name := range e.User.Extra[podNameKey] {
		for _, p := range pods {
			if name == p {
				return true
			}
		}
	}
	return false
}

// succeeded reports whether the API server carried out the write e records and stored
// something: TokenReviews and SubjectAccessReviews, which the metrics endpoint creates to
// authenticate and authorize a scrape, are answers that change nothing.
func succeeded(e *auditv1.Event) bool {
	if e.ObjectRef != nil && (e.ObjectRef.APIGroup == "authentication.k8s.io" || e.ObjectRef.APIGroup == "authorization.k8s.io") {
		return false
	}
	return e.ResponseStatus != nil && e.ResponseStatus.Code < 300
}

// isLease reports a write to a Lease: leader election's, which runs whatever else happens.
func isLease(e *auditv1.Event) bool {
	return e.ObjectRef != nil && e.ObjectRef.APIGroup == "coordination.k8s.io"
}

// isLeaderElection reports a write of leader election: the Lease, and the Event a new
// leader records about it, the one Event the manager writes in its own namespace.
func isLeaderElection(e *auditv1.Event) bool {
	return isLease(e) || e.ObjectRef != nil && e.ObjectRef.Resource == "events" && e.ObjectRef.Namespace == operatorNamespace
}

// describe is an audit event in one line, for failure messages.
func describe(e auditv1.Event) string {
	ref := e.ObjectRef
	if ref == nil {
		return fmt.Sprintf("%s %s %s", e.RequestReceivedTimestamp.Format(time.StampMilli), e.Verb, e.RequestURI)
	}
	return fmt.Sprintf("%s %s %s %s/%s %s (%d)", e.RequestReceivedTimestamp.Format(time.StampMilli), e.Verb,
		ref.Resource+"/"+ref.Subresource, ref.Namespace, ref.Name, e.User.Extra[podNameKey], e.ResponseStatus.Code)
}

// deploymentsOf returns the namespace's Deployments by name.
func deploymentsOf(g Gomega, namespace string) map[string]appsv1.Deployment {
	list := &appsv1.DeploymentList{}
	g.Expect(k8s.List(context.Background(), list, client.InNamespace(namespace))).To(Succeed())
	out := map[string]appsv1.Deployment{}
	for _, d := range list.Items {
		out[d.Name] = d
	}
	return out
}

// leaseDuration is the manager's Lease's duration, as its leader wrote it.
func leaseDuration(g Gomega) time.Duration {
	leases, err := cs.CoordinationV1().Leases(operatorNamespace).List(context.Background(), metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(leases.Items).To(HaveLen(1), "Leases in %s", operatorNamespace)
	return time.Duration(*leases.Items[0].Spec.LeaseDurationSeconds) * time.Second
}

// leaseLoss is what the audit log shows of a manager pod that lost its Lease: its last
// renewal before it lost it, the expiry that renewal set, and its writes after the expiry
// until it led again, none of which a leader that lost its Lease may make.
type leaseLoss struct {
	lastRenew, expiry time.Time
	// lastWrite is its last write before it led again, Lease renewals included.
	lastWrite time.Time
	late      []auditv1.Event
}

// lostLease reads from the audit log how pod lost its Lease, of leaseDuration, by lostBy
// (when another pod took it, or the pod's manager exited on losing it): its last renewal
// is its last Lease write before lostBy; its next Lease write after lostBy is its taking
// the Lease again, as a new leader, which may write.
func lostLease(g Gomega, pod string, lostBy time.Time, leaseDuration time.Duration) leaseLoss {
	var loss leaseLoss
	var leadsAgain time.Time
	writes := auditEvents(g, func(e *auditv1.Event) bool { return succeeded(e) && sentBy(e, pod) })
	for _, e := range writes {
		if at := e.RequestReceivedTimestamp.Time; isLease(&e) && at.Before(lostBy) && at.After(loss.lastRenew) {
			loss.lastRenew = at
		} else if isLease(&e) && !at.Before(lostBy) && (leadsAgain.IsZero() || at.Before(leadsAgain)) {
			leadsAgain = at
		}
	}
	g.Expect(loss.lastRenew).NotTo(BeZero(), "%s's last renewal of the Lease before %s", pod, lostBy.Format(time.StampMilli))
	loss.expiry = loss.lastRenew.Add(leaseDuration)
	loss.lastWrite = loss.lastRenew
	for _, e := range writes {
		at := e.RequestReceivedTimestamp.Time
		if !leadsAgain.IsZero() && !at.Before(leadsAgain) {
			continue
		}
		if at.After(loss.lastWrite) {
			loss.lastWrite = at
		}
		if at.After(loss.expiry) {
			loss.late = append(loss.late, e)
		}
	}
	return loss
}
