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

// Package localcluster runs a whole Kubernetes cluster as local processes on 127.0.0.1:
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler, and kwok simulating the
// nodes, so that Deployments make pods that become Running and Ready without a container
// runtime. With RealNode (root, Linux) it adds a real node: a registry, containerd, the
// kubelet and kube-proxy, on addresses of interfaces the cluster creates, and CoreDNS, so that
// the operator runs from its image and Services carry traffic and have names. The processes outlive the
// program that starts them; pid files in the state directory let another invocation stop them.
package localcluster

import (
	"context"
	"crypto/tls"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
)

//go:embed kwok-stages.yaml
var kwokStages []byte

// The components' names.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
	Kwok              = "kwok"
)

// Components are the cluster's processes in start order; Down stops them in reverse.
var Components = []string{Etcd, APIServer, ControllerManager, Scheduler, Kwok}

// controllers are the kube-controller-manager loops the operator's behaviour depends on:
// Deployments and ReplicaSets make pods, and StatefulSets with their claims, which the
// binder binds to PersistentVolumes and the protection loops let go once unused; the
// garbage collector removes owned objects,
// endpoints follow Services, namespaces get their default ServiceAccount and finish
// deleting, and node-lifecycle lifts the not-ready taint from kwok's nodes once they report
// Ready. OLM unpacks bundles with Jobs. The eviction API lets a pod go only as far as the
// disruption controller has counted its PodDisruptionBudget's healthy pods.
var controllers = []string{
	"deployment-controller", "replicaset-controller", "statefulset-controller", "persistentvolume-binder-controller",
	"persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller", "job-controller", "garbage-collector-controller", "disruption-controller",
	"endpoints-controller", "endpointslice-controller", "serviceaccount-controller",
	"serviceaccount-token-controller", "namespace-controller", "node-lifecycle-controller",
	"root-ca-certificate-publisher-controller",
}

// Cluster is one local cluster: its binaries, its state directory and its ports.
type Cluster struct {
	// Dir holds the certificates, etcd's data, the kubeconfig, logs and pid files.
	Dir string
	// BinDir holds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok.
	BinDir string
	// PortBase is kube-apiserver's port; the other components listen on the next thirteen:
	// etcd (2), controller-manager, scheduler, kwok, the demo's manager, then the real
	// node's registry, kubelet (2), kube-proxy (2), the registry's TLS endpoint and the
	// private registry.
	PortBase int
	// Nodes is how many kwok nodes to create.
	Nodes int
	// RealNode adds a real node (see NodeComponents) and taints the kwok nodes with
	// KwokTaint, so that workloads run on it.
	RealNode bool
	// Mirrors are registries (e.g. "registry.access.redhat.com") whose images the real node
	// pulls from its own registry, under the same repository and tag: for images a tool names
	// without a flag to change them, which cannot be pulled here.
	Mirrors []string
	// Progress receives one line per step; nil discards them.
	Progress io.Writer
	// DieWithParent ties the processes to the one that starts them, so that a test binary
	// killed by its timeout leaves nothing running.
	DieWithParent bool
	// Controllers are kube-controller-manager's controllers to run beside the default set,
	// such as the HorizontalPodAutoscaler's, which acts on every autoscaler of the cluster.
	Controllers []string
	// AuditLog makes kube-apiserver record every write (who, which object, when, the
	// answer) at the Metadata level in AuditLogFile, for tests that assert who wrote what.
	AuditLog bool

	// started holds what this process started, so that stopping one also reaps it.
	started map[string]*exec.Cmd
}

// Kubeconfig is the admin kubeconfig's path.
func (c *Cluster) Kubeconfig() string { return filepath.Join(c.Dir, "kubeconfig") }

// Server is kube-apiserver's URL.
func (c *Cluster) Server() string { return fmt.Sprintf("https://%s:%d", c.host(), c.PortBase) }

// host is the address kube-apiserver listens on: the node's when pods must reach it.
func (c *Cluster) host() string {
	if c.RealNode {
		return NodeIP
	}
	return "127.0.0.1"
}

// AuditLogFile is kube-apiserver's audit log, one JSON audit.k8s.io/v1 Event a line, when
// AuditLog is set.
func (c *Cluster) AuditLogFile() string { return filepath.Join(c.Dir, "logs", "audit.log") }

// auditPolicy logs writes only, once each, when answered: reads would drown them, and the
// answer carries the status code that tells a write from a refused attempt.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

// CAFile is the cluster CA's path, for clients that build their own kubeconfig.
func (c *Cluster) CAFile() string { return filepath.Join(c.Dir, "pki", "ca.crt") }

// RESTConfig returns the admin's client configuration.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
}

func (c *Cluster) logf(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format+"\n", args...)
	}
}

// Running reports whether any of the cluster's processes is alive.
func (c *Cluster) Running() bool {
	return slices.ContainsFunc(append(Components, NodeComponents...), func(name string) bool { return c.pid(name) > 0 })
}

// Up starts every component that is not running yet and waits until the cluster is healthy:
// API server ready, nodes Ready and schedulable, the default ServiceAccount created.
func (c *Cluster) Up(ctx context.Context) error {
	if c.BinDir == "" {
		return errors.New("no directory with the cluster's binaries (hack/control-plane.sh --cluster prints it)")
	}
	if last := c.PortBase + portsUsed - 1; last >= firstNodePort && c.PortBase <= lastNodePort {
		return fmt.Errorf("ports %d-%d overlap the node ports Services take (%d-%d): choose a port below %d",
			c.PortBase, last, firstNodePort, lastNodePort, firstNodePort-portsUsed+1)
	}
	start := time.Now()
	// A running cluster is completed as it was started: the kubeconfig Up writes names
	// kube-apiserver's address, which depends on whether the cluster has a real node.
	if c.pid(APIServer) > 0 {
		running := &Cluster{Dir: c.Dir}
		if err := running.Attach(ctx); err != nil {
			return err
		}
		if running.RealNode != c.RealNode || running.PortBase != c.PortBase {
			return fmt.Errorf("the cluster in %s runs on port %d, real node %v, not on port %d, real node %v: stop it first (make cluster-down)",
				c.Dir, running.PortBase, running.RealNode, c.PortBase, c.RealNode)
		}
	}
	if c.RealNode {
		if err := c.prepareNode(); err != nil {
			return err
		}
	}
	pki := filepath.Join(c.Dir, "pki")
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return err
	}
	if _, err := os.Stat(c.CAFile()); errors.Is(err, os.ErrNotExist) {
		if err := writePKI(pki); err != nil {
			return fmt.Errorf("writing certificates: %w", err)
		}
	}
	if err := c.writeKubeconfig(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "kwok-stages.yaml"), kwokStages, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "audit-policy.yaml"), []byte(auditPolicy), 0o600); err != nil {
		return err
	}
	for _, name := range Components {
		if err := c.Start(name); err != nil {
			return err
		}
		if name == APIServer {
			if err := c.WaitAPIServer(ctx); err != nil {
				return err
			}
		}
	}
	if c.RealNode {
		if err := c.nodeUp(ctx); err != nil {
			return err
		}
	}
	cs, err := c.clientset()
	if err != nil {
		return err
	}
	if err := c.createNodes(ctx, cs); err != nil {
		return err
	}
	if c.RealNode {
		if err := c.deployDNS(ctx); err != nil {
			return fmt.Errorf("cluster DNS: %w", err)
		}
	}
	if err := c.waitHealthy(ctx, cs); err != nil {
		return err
	}
	c.logf("cluster ready in %s: %s", time.Since(start).Round(100*time.Millisecond), c.Kubeconfig())
	return nil
}

// Attach opens the cluster that runs in the state directory as it was started, starting
// nothing: its kubeconfig gives kube-apiserver's port, and its address whether the cluster
// has a real node (its API server then listens on NodeIP), which commands run after make
// cluster-up or make cluster-up-node must follow rather than their own flags.
func (c *Cluster) Attach(ctx context.Context) error {
	if c.pid(APIServer) == 0 {
		return fmt.Errorf("no local cluster runs in %s (make cluster-up or make cluster-up-node)", c.Dir)
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	server, err := url.Parse(cfg.Host)
	if err != nil {
		return err
	}
	if c.PortBase, err = strconv.Atoi(server.Port()); err != nil {
		return fmt.Errorf("kube-apiserver's port in %s: %w", c.Kubeconfig(), err)
	}
	c.RealNode = server.Hostname() == NodeIP
	return c.WaitAPIServer(ctx)
}

// Down stops every process recorded in the state directory, the cluster's and any other
// (such as the demo's manager), and removes the state so that the next Up starts afresh.
func (c *Cluster) Down() error {
	var errs []error
	extra, _ := filepath.Glob(filepath.Join(c.Dir, "run", "*.pid"))
	for _, f := range extra {
		if name := strings.TrimSuffix(filepath.Base(f), ".pid"); !slices.Contains(Components, name) && !slices.Contains(NodeComponents, name) {
			errs = append(errs, c.Stop(name))
		}
	}
	if _, err := os.Stat(c.nodeDir()); err == nil {
		errs = append(errs, c.nodeDown())
	}
	for _, name := range slices.Backward(Components) {
		errs = append(errs, c.Stop(name))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.RemoveAll(c.Dir)
}

// PID returns the process running a component, 0 when it is not running.
func (c *Cluster) PID(name string) int { return c.pid(name) }

// Start starts one component unless it is already running.
func (c *Cluster) Start(name string) error {
	if c.pid(name) > 0 {
		return nil
	}
	args, err := c.args(name)
	if err != nil {
		return err
	}
	c.logf("starting %s", name)
	return c.StartProcess(name, filepath.Join(c.BinDir, name), args, nil)
}

// Restart stops a component of the cluster or of its real node and starts it again, as an
// upgrade of it would, and waits until it serves.
func (c *Cluster) Restart(ctx context.Context, name string) error {
	if err := c.Stop(name); err != nil {
		return err
	}
	if name == APIServer {
		return c.restartAPIServer(ctx)
	}
	if !slices.Contains(NodeComponents, name) {
		if err := c.Start(name); err != nil {
			return err
		}
		if name == Etcd {
			return c.WaitAPIServer(ctx)
		}
		return nil
	}
	c.logf("starting %s", name)
	path, args, env := c.nodeCommand(name)
	if err := c.StartProcess(name, path, args, env); err != nil {
		return err
	}
	if name == Containerd {
		return c.waitContainerd(ctx)
	}
	return nil
}

// apiServerStarts bounds how often restartAPIServer starts kube-apiserver.
const apiServerStarts = 3

// restartAPIServer starts kube-apiserver and waits until it serves, and starts it again when
// it exits before that, as a kubelet restarts a control plane's static pod: kube-apiserver
// exits when a post-start hook times out (kubernetes/kubernetes#130377).
func (c *Cluster) restartAPIServer(ctx context.Context) error {
	for start := 1; ; start++ {
		if err := c.Start(APIServer); err != nil {
			return err
		}
		err := c.WaitAPIServer(ctx)
		if err == nil || c.pid(APIServer) > 0 || start == apiServerStarts {
			return err
		}
		c.logf("kube-apiserver exited before it served; starting it again. Its last errors:\n%s", c.lastErrors(APIServer, 5))
	}
}

// klogError matches klog's error and fatal lines: "E1129 22:41:07.421438 ...".
var klogError = regexp.MustCompile(`^[EF]\d{4} `)

// lastErrors is the last n klog error and fatal lines in the log of the process name.
func (c *Cluster) lastErrors(name string, n int) string {
	data, _ := os.ReadFile(c.LogFile(name))
	var errs []string
	for l := range strings.Lines(string(data)) {
		if klogError.MatchString(l) {
			errs = append(errs, l)
		}
	}
	return strings.TrimSuffix(strings.Join(errs[max(0, len(errs)-n):], ""), "\n")
}

// StartProcess starts a process that outlives this program: in its own process group, so
// that a terminal's Ctrl-C does not reach it, with its output in logs/<name>.log and its pid
// in run/<name>.pid for Stop and Down.
func (c *Cluster) StartProcess(name, path string, args, env []string) error {
	for _, d := range []string{"logs", "run"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o700); err != nil {
			return err
		}
	}
	logFile, err := os.OpenFile(c.LogFile(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.DieWithParent {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	// The kernel sends Pdeathsig when the thread that started the child ends, not the
	// process, and the Go runtime ends a thread whose goroutine exits while locked to it
	// (golang/go#27505): start and wait from a goroutine that holds its thread until the
	// child is gone, so that no other goroutine can end that thread meanwhile.
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			_ = cmd.Wait()
		}
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	if c.started == nil {
		c.started = map[string]*exec.Cmd{}
	}
	c.started[name] = cmd
	return os.WriteFile(c.pidFile(name), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
}

// exited reports a process that stopped by itself, with the end of its log, which is gone
// once a test run removes its state directory.
func (c *Cluster) exited(name string) error {
	return fmt.Errorf("%s exited; the end of its log:\n%s", name, c.LogTail(name, 15))
}

// LogFile is where a process started here writes its output.
func (c *Cluster) LogFile(name string) string { return filepath.Join(c.Dir, "logs", name+".log") }

// LogTail is the last lines of the log of the process name.
func (c *Cluster) LogTail(name string, lines int) string {
	data, _ := os.ReadFile(c.LogFile(name))
	return imagebuild.Tail(string(data), lines)
}

// Stop ends a process started by Start or StartProcess: SIGTERM, then SIGKILL after 20 seconds.
func (c *Cluster) Stop(name string) error { return c.signal(name, syscall.SIGTERM, 20*time.Second) }

// Kill ends a process at once with SIGKILL, as a crash would.
func (c *Cluster) Kill(name string) error { return c.signal(name, syscall.SIGKILL, 10*time.Second) }

func (c *Cluster) signal(name string, sig syscall.Signal, grace time.Duration) error {
	pid := c.pid(name)
	if pid > 0 {
		_ = syscall.Kill(pid, sig)
		err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, grace, true,
			func(context.Context) (bool, error) { return !alive(pid), nil })
		if err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true,
				func(context.Context) (bool, error) { return !alive(pid), nil }); err != nil {
				return fmt.Errorf("%s (pid %d) does not stop", name, pid)
			}
		}
	}
	delete(c.started, name)
	if err := os.Remove(c.pidFile(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func (c *Cluster) pidFile(name string) string { return filepath.Join(c.Dir, "run", name+".pid") }

// pid returns the recorded process if it is still alive and still ours: its command line
// names the state directory, which guards against a recycled pid.
func (c *Cluster) pid(name string) int {
	data, err := os.ReadFile(c.pidFile(name))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || !alive(pid) {
		return 0
	}
	// The command line tells our process from another that reused the pid. It reads empty
	// while the process is still in execve, after Start returned: the kernel closes the
	// exec pipe before it sets up the new arguments, a window that a large binary read
	// from a cold page cache makes long enough to see.
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || (len(cmdline) > 0 && !strings.Contains(string(cmdline), c.Dir)) {
		return 0
	}
	return pid
}

// alive is false for a process that is gone or a zombie waiting to be reaped.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func (c *Cluster) args(name string) ([]string, error) {
	pki := filepath.Join(c.Dir, "pki")
	p := func(offset int) string { return strconv.Itoa(c.PortBase + offset) }
	etcdClient, etcdPeer := "http://127.0.0.1:"+p(1), "http://127.0.0.1:"+p(2)
	kubeconfig := c.Kubeconfig()
	// kube-controller-manager and kube-scheduler delegate authentication and authorization
	// of their own endpoints to the API server; without these flags they log errors.
	delegated := []string{"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig, "--bind-address=127.0.0.1", "--leader-elect=false"}
	switch name {
	case Etcd:
		return []string{
			"--name=default", "--data-dir=" + filepath.Join(c.Dir, "etcd"),
			"--listen-client-urls=" + etcdClient, "--advertise-client-urls=" + etcdClient,
			"--listen-peer-urls=" + etcdPeer, "--initial-advertise-peer-urls=" + etcdPeer,
			"--initial-cluster=default=" + etcdPeer, "--log-level=warn",
			// A throwaway cluster on a shared disk: fsync buys nothing but latency.
			"--unsafe-no-fsync",
		}, nil
	case APIServer:
		endpointReconciler := "none"
		if c.RealNode {
			endpointReconciler = "lease"
		}
		args := []string{
			"--etcd-servers=" + etcdClient,
			"--bind-address=" + c.host(), "--advertise-address=" + c.host(), "--secure-port=" + p(0),
			fmt.Sprintf("--service-node-port-range=%d-%d", firstNodePort, lastNodePort),
			"--tls-cert-file=" + filepath.Join(pki, "apiserver.crt"),
			"--tls-private-key-file=" + filepath.Join(pki, "apiserver.key"),
			"--client-ca-file=" + filepath.Join(pki, "ca.crt"),
			"--authorization-mode=RBAC",
			// The front proxy to aggregated API servers (writePKI), with kubeadm's headers.
			"--requestheader-client-ca-file=" + filepath.Join(pki, "front-proxy-ca.crt"),
			"--requestheader-allowed-names=" + frontProxyClient,
			"--requestheader-username-headers=X-Remote-User",
			"--requestheader-group-headers=X-Remote-Group",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
			"--proxy-client-cert-file=" + filepath.Join(pki, "front-proxy-client.crt"),
			"--proxy-client-key-file=" + filepath.Join(pki, "front-proxy-client.key"),
			// PodSecurity and ServiceAccount are in the default admission chain; the list
			// says so explicitly because the operator's pods must pass both. PodNodeSelector
			// and PodTolerationRestriction act only in namespaces annotated for them: there
			// they place every pod on the kwok nodes, as a platform team pins a tenant's.
			"--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,PodSecurity,DefaultTolerationSeconds,ResourceQuota,OwnerReferencesPermissionEnforcement,PodNodeSelector,PodTolerationRestriction",
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-account-key-file=" + filepath.Join(pki, "sa.pub"),
			"--service-account-signing-key-file=" + filepath.Join(pki, "sa.key"),
			"--service-cluster-ip-range=" + ServiceCIDR,
			// The endpoint reconciler refuses a loopback address, and nothing in a cluster
			// without a network dials the kubernetes Service anyway; pods on a real node
			// reach kube-apiserver through it.
			"--endpoint-reconciler-type=" + endpointReconciler,
			// The admin's certificate, for logs and exec on the real node's kubelet.
			"--kubelet-client-certificate=" + filepath.Join(pki, "admin.crt"),
			"--kubelet-client-key=" + filepath.Join(pki, "admin.key"),
			// By address, never by node name, which only a DNS server could resolve.
			"--kubelet-preferred-address-types=InternalIP",
			// Without it a stop waits for open watches until --request-timeout (a minute);
			// with it they are closed and clients re-establish them elsewhere.
			"--shutdown-watch-termination-grace-period=2s",
			"--cert-dir=" + filepath.Join(c.Dir, "apiserver-certs"),
		}
		if c.AuditLog {
			// Never rotated (the default rotates at 100 MB): a test reads the whole run's
			// writes from this one file.
			args = append(args, "--audit-policy-file="+filepath.Join(c.Dir, "audit-policy.yaml"),
				"--audit-log-path="+c.AuditLogFile(), "--audit-log-format=json", "--audit-log-maxsize=0")
		}
		return args, nil
	case ControllerManager:
		return append(delegated,
			"--secure-port="+p(3),
			"--controllers="+strings.Join(append(slices.Clone(controllers), c.Controllers...), ","),
			"--service-account-private-key-file="+filepath.Join(pki, "sa.key"),
			"--root-ca-file="+filepath.Join(pki, "ca.crt"),
			"--cert-dir="+filepath.Join(c.Dir, "kcm-certs"),
		), nil
	case Scheduler:
		return append(delegated, "--secure-port="+p(4), "--cert-dir="+filepath.Join(c.Dir, "scheduler-certs")), nil
	case Kwok:
		return []string{
			"--kubeconfig=" + kubeconfig, "--config=" + filepath.Join(c.Dir, "kwok-stages.yaml"),
			// Only the nodes createNodes made: kwok would report a real node's pods Running
			// and Ready before the kubelet has even started them.
			"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
			"--cidr=10.244.0.1/16", "--node-ip=127.0.0.1",
			"--server-address=127.0.0.1:" + p(5), "--node-port=" + p(5),
			"--tls-cert-file=" + filepath.Join(pki, "apiserver.crt"),
			"--tls-private-key-file=" + filepath.Join(pki, "apiserver.key"),
			"--node-lease-duration-seconds=40",
		}, nil
	}
	return nil, fmt.Errorf("unknown component %q", name)
}

func (c *Cluster) writeKubeconfig() error {
	pki := filepath.Join(c.Dir, "pki")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: c.Server(), CertificateAuthority: c.CAFile()}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificate: filepath.Join(pki, "admin.crt"), ClientKey: filepath.Join(pki, "admin.key"),
	}
	cfg.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin", Namespace: "default"}
	cfg.CurrentContext = "local"
	return clientcmd.WriteToFile(*cfg, c.Kubeconfig())
}

func (c *Cluster) clientset() (*kubernetes.Clientset, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// WaitAPIServer waits until kube-apiserver answers /readyz.
func (c *Cluster) WaitAPIServer(ctx context.Context) error {
	cs, err := c.clientset()
	if err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if c.pid(APIServer) == 0 {
			return false, c.exited(APIServer)
		}
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver not ready (see %s): %w", c.LogFile(APIServer), err)
	}
	return nil
}

// kwokNodeTypeLabel is the label that kwok's own node template gives its nodes, with the value "kwok".
const kwokNodeTypeLabel = "type"

// createNodes registers the kwok nodes; kwok then reports them Ready and keeps their leases.
func (c *Cluster) createNodes(ctx context.Context, cs *kubernetes.Clientset) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	var taints []corev1.Taint
	if c.RealNode {
		taints = []corev1.Taint{{Key: KwokTaint, Value: "fake", Effect: corev1.TaintEffectNoSchedule}}
	}
	for i := range c.Nodes {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("kwok-node-%d", i),
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
				// The labels a kubelet sets, as kwok's own node template has them: node
				// affinity on the platform (config/manager's) selects them.
				Labels: map[string]string{kwokNodeTypeLabel: "kwok", corev1.LabelHostname: fmt.Sprintf("kwok-node-%d", i),
					corev1.LabelArchStable: runtime.GOARCH, corev1.LabelOSStable: "linux"},
			},
			Spec:   corev1.NodeSpec{Taints: taints},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
	}
	return nil
}

// waitHealthy waits for what a workload needs: the controller manager and scheduler healthy,
// every node Ready without a taint, the default namespace's ServiceAccount, and with a real
// node the cluster DNS.
func (c *Cluster) waitHealthy(ctx context.Context, cs *kubernetes.Clientset) error {
	insecure := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		// The Components serve /healthz with self-signed certificates and no authentication.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec
	}}
	want := c.Nodes
	if c.RealNode {
		want++
	}
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		for name, port := range map[string]int{ControllerManager: c.PortBase + 3, Scheduler: c.PortBase + 4} {
			if c.pid(name) == 0 {
				return false, c.exited(name)
			}
			resp, err := insecure.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", port))
			if err != nil {
				last = name + " not serving /healthz"
				return false, nil
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				last = name + " unhealthy"
				return false, nil
			}
		}
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) < want {
			last = "nodes not registered"
			return false, nil
		}
		for _, n := range nodes.Items {
			untainted := !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key != KwokTaint })
			if !untainted || !nodeReady(&n) {
				last = "node " + n.Name + " not Ready or still tainted"
				return false, nil
			}
		}
		if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
			last = "default ServiceAccount not created yet"
			return false, nil
		}
		if c.RealNode && !dnsReady(ctx, cs) {
			last = "CoreDNS not ready"
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("cluster not healthy (%s; logs in %s): %w", last, filepath.Join(c.Dir, "logs"), err)
	}
	return nil
}

func nodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// BindFlags registers the flags of the commands that work on the cluster of make cluster-up:
// where its state and binaries are, its port and its size.
func (c *Cluster) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Dir, "dir", "bin/cluster", "State directory: certificates, etcd data, kubeconfig, logs, pid files.")
	fs.StringVar(&c.BinDir, "bin", "", "Directory with etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (hack/control-plane.sh --cluster).")
	// Below the node port range (30000+) and Linux's ephemeral range (32768+), where envtest
	// picks its random ports.
	fs.IntVar(&c.PortBase, "port", 16443, "kube-apiserver's port; the other components use the next thirteen.")
	fs.IntVar(&c.Nodes, "nodes", 3, "Number of kwok nodes.")
	fs.BoolVar(&c.RealNode, "real-node", false, "Add a real node: containerd, kubelet, kube-proxy, a local registry (root, Linux, see DEVELOPMENT.md).")
}

// The node ports kube-apiserver allocates to Services (its default range). kube-proxy takes
// over new connections to a node's addresses on a port a Service holds: a component listening
// there becomes unreachable, kube-apiserver even to itself.
const firstNodePort, lastNodePort = 30000, 32767

// portsUsed is how many ports a cluster listens on, from its PortBase.
const portsUsed = 14

// FreePortBase finds fourteen free ports in a row for a cluster of a test run, below the node
// port range and clear of the make cluster-up ports, from a random start, so that runs
// starting together (e2e tests, OLM tests, a CI job) rarely race for the same ports.
func FreePortBase() (int, error) {
	const first, step = 17443, 20
	const slots = (firstNodePort - portsUsed - first) / step
	start := rand.IntN(slots)
	for i := range slots {
		base := first + step*((start+i)%slots)
		free := true
		for p := base; p < base+portsUsed && free; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if free = err == nil; free {
				l.Close()
			}
		}
		if free {
			return base, nil
		}
	}
	return 0, errors.New("no free ports for the cluster")
}

// FreeAddr is a loopback address whose port nothing listens on now, for a server started a
// moment later.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// WaitEstablished waits until the API server serves the kinds of the CRDs named names.
func WaitEstablished(ctx context.Context, cfg *rest.Config, names ...string) error {
	cs, err := apiextensionsclientset.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
				return false, nil
			}
		}
		return true, nil
	})
}
