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

package localcluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/apimachinery/pkg/util/wait"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/devtools/mounts"
)

// The real node's components, in start order: NodeComponents.
const (
	Registry        = "registry"
	RegistryTLS     = "registry-tls"
	RegistryPrivate = "registry-private"
	Containerd      = "containerd"
	Kubelet         = "kubelet"
	KubeProxy       = "kube-proxy"
)

// NodeComponents are the real node's processes in start order.
var NodeComponents = []string{Registry, RegistryTLS, RegistryPrivate, Containerd, Kubelet, KubeProxy}

// The real node's network. Its addresses are private ranges that a machine's own routes must
// not already use (Up checks), and every one of them lives on interfaces the cluster creates
// and Down deletes: the node's address on one, pods on a bridge. A real node
// needs the network namespace of the machine, so there is one per machine.
const (
	// NodeName is the real node's name.
	NodeName = "real-node"
	// NodeIP is the node's address, on an interface of its own: kube-apiserver, the kubelet
	// and the registry listen there, since pods cannot reach the machine's 127.0.0.1. The
	// interface is a bridge without ports, which holds an address and swallows whatever is
	// routed to it, as a dummy interface would (not every kernel has those).
	NodeIP = "10.246.0.1"
	// PodCIDR holds the real node's pods, on the bridge.
	PodCIDR = "10.245.0.0/24"
	// ServiceCIDR holds the Services' cluster IPs, which kube-proxy translates: a /16, as
	// hundreds of DemoApplications with per-pod Services outgrow a /24's 254 addresses.
	ServiceCIDR = "10.0.0.0/16"
	// kwokPodCIDR holds the addresses kwok gives its simulated pods, which exist nowhere.
	kwokPodCIDR = "10.244.0.0/16"

	nodeInterface = "demo-node0"
	bridgeName    = "demo-cni0"
	// guardTable is the cluster's own nftables table: it keeps the pods' traffic on the machine.
	guardTable = "demo-operator-node"
	// cgroupRoot holds the pods' cgroups in every cgroup v1 hierarchy.
	cgroupRoot = "/demo-operator-node"
	// nodeOwner names the state directory of the cluster that runs the machine's real node.
	nodeOwner = "/run/demo-operator-node"
	// cniBinDir is where Debian's containernetworking-plugins installs the plugins.
	cniBinDir = "/usr/lib/cni"
	// cniBridge is the CNI plugin that puts the pods on bridgeName.
	cniBridge = "bridge"
	// KwokTaint keeps workloads off the simulated nodes of a cluster with a real node; pods
	// that only load the API server (benchmarks, the memory test) tolerate it.
	KwokTaint = "kwok.x-k8s.io/node"
)

// PauseImage is the pod sandbox image, built from ./pause by Up into the registry.
func (c *Cluster) PauseImage() string { return c.RegistryHost() + "/pause:local" }

// RegistryHost is the local registry's plain-HTTP address, for image references: the node
// pulls from it, and so can pods and the host's tools that can be told to use HTTP.
func (c *Cluster) RegistryHost() string { return NodeIP + ":" + strconv.Itoa(c.PortBase+7) }

// SecureRegistryHost is the same registry's TLS address, with a certificate of the cluster's
// CA, which the node trusts. It serves the same storage as RegistryHost: an image pushed to
// one is pulled from the other. It exists for the clients that only speak TLS (operator-sdk
// run bundle reads an index image's labels over HTTPS whatever --use-http says).
func (c *Cluster) SecureRegistryHost() string { return NodeIP + ":" + strconv.Itoa(c.PortBase+12) }

// PrivateRegistryHost is a registry that requires authentication, as a team's private registry
// does: TLS with a certificate of the cluster's CA, which the node trusts, and a user and
// password (PrivateRegistryCredentials) for every request, pull or push. It has a storage of
// its own: what is pushed there is pulled from nowhere else. The node has no credentials for
// it: a pod pulls from it with an imagePullSecret.
func (c *Cluster) PrivateRegistryHost() string { return NodeIP + ":" + strconv.Itoa(c.PortBase+13) }

// PrivateRegistryUser is PrivateRegistryHost's only user.
const PrivateRegistryUser = "demo"

// PrivateRegistryCredentials returns PrivateRegistryHost's user and password: a password
// drawn when the cluster's state directory was made, kept there.
func (c *Cluster) PrivateRegistryCredentials() (user, password string, err error) {
	data, err := os.ReadFile(c.nodeDir(RegistryPrivate + ".password"))
	return PrivateRegistryUser, string(data), err
}

// PushPrivateImage pushes local, an image of b's storage, to ref, an image of
// PrivateRegistryHost, with its credentials, trusting the cluster's CA.
func (c *Cluster) PushPrivateImage(ctx context.Context, b *imagebuild.Builder, local, ref string) error {
	user, password, err := c.PrivateRegistryCredentials()
	if err != nil {
		return err
	}
	return b.Push(ctx, local, "docker://"+ref, imagebuild.PushOptions{CertDir: c.RegistryCertDir(), Creds: user + ":" + password})
}

// SecureImage names an image of RegistryHost by SecureRegistryHost.
func (c *Cluster) SecureImage(image string) string {
	return c.SecureRegistryHost() + strings.TrimPrefix(image, c.RegistryHost())
}

// PushImage pushes local, an image of b's storage, to ref, an image of RegistryHost, through
// SecureRegistryHost, trusting the cluster's CA (RegistryCertDir): both endpoints serve one
// storage, so the node pulls it by ref.
func (c *Cluster) PushImage(ctx context.Context, b *imagebuild.Builder, local, ref string) error {
	return b.Push(ctx, local, "docker://"+c.SecureImage(ref), imagebuild.PushOptions{CertDir: c.RegistryCertDir()})
}

// RegistryCertDir holds only the cluster's CA certificate, as ca.crt: the host's tools trust
// SecureRegistryHost with it and no change to the machine's trust store, buildah and skopeo
// with --cert-dir, Go programs (operator-sdk, opm) with SSL_CERT_DIR=/etc/ssl/certs:<dir>.
func (c *Cluster) RegistryCertDir() string { return filepath.Join(c.Dir, "registry-ca") }

// RegistryCAFile is the CA certificate of RegistryCertDir, for the tools that take a file
// (helm's and cosign's flags).
func (c *Cluster) RegistryCAFile() string { return filepath.Join(c.RegistryCertDir(), "ca.crt") }

func (c *Cluster) nodeDir(parts ...string) string {
	return filepath.Join(append([]string{c.Dir, "node"}, parts...)...)
}

func (c *Cluster) containerdSocket() string { return c.nodeDir("containerd.sock") }

// nodePrerequisites names what a real node needs and this machine lacks.
func (c *Cluster) nodePrerequisites() error {
	var missing []string
	if runtime.GOOS != "linux" {
		missing = append(missing, "Linux")
	}
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, cmd := range []string{"containerd", "containerd-shim-runc-v2", "runc", "docker-registry", "buildah", "ip", "nft"} {
		if _, err := exec.LookPath(cmd); err != nil {
			missing = append(missing, cmd)
		}
	}
	for _, plugin := range []string{cniBridge, "host-local", "loopback"} {
		if _, err := os.Stat(filepath.Join(cniBinDir, plugin)); err != nil {
			missing = append(missing, filepath.Join(cniBinDir, plugin))
		}
	}
	for _, bin := range []string{Kubelet, KubeProxy, CoreDNS} {
		if _, err := os.Stat(filepath.Join(c.BinDir, bin)); err != nil {
			missing = append(missing, filepath.Join(c.BinDir, bin)+" (hack/control-plane.sh --node)")
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		missing = append(missing, "cgroup v1 (the kubelet runs with failCgroupV1: false)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("a real node needs %s (apt-get install containerd runc containernetworking-plugins docker-registry buildah iproute2 nftables)",
			strings.Join(missing, ", "))
	}
	return nil
}

// NodePrerequisites reports what a real node needs and this machine lacks, nil when nothing.
func NodePrerequisites(binDir string) error {
	return (&Cluster{BinDir: binDir}).nodePrerequisites()
}

// claimNode records this cluster as the machine's real node, refusing when another
// cluster's node is still running.
func (c *Cluster) claimNode() error {
	owner, err := os.ReadFile(nodeOwner)
	if err == nil && string(owner) != c.Dir {
		other := &Cluster{Dir: string(owner)}
		if slices.ContainsFunc(NodeComponents, func(name string) bool { return other.pid(name) > 0 }) {
			return fmt.Errorf("the local cluster in %s runs this machine's real node; stop it first (make cluster-down)", owner)
		}
		// A cluster that ended without Down: clear what it left, so this one starts clean.
		if err := other.nodeDown(); err != nil {
			return fmt.Errorf("cleaning up the real node of %s: %w", owner, err)
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(nodeOwner, []byte(c.Dir), 0o600)
}

// nodeNetworkUp creates the node's interface and the routes that keep traffic to
// cluster IPs and kwok's pod addresses on it (where nothing answers) rather than on the
// default route, and a forward filter that keeps the pods' traffic among themselves and the
// node: the bridge plugin turns IPv4 forwarding on.
func (c *Cluster) nodeNetworkUp() error {
	if exec.Command("ip", "link", "show", nodeInterface).Run() == nil {
		return nil // this cluster's, from an earlier Up: claimNode cleared any other's
	}
	routes, err := exec.Command("ip", "-4", "route", "show").Output()
	if err != nil {
		return fmt.Errorf("reading the routes: %w", err)
	}
	for _, cidr := range []string{PodCIDR, ServiceCIDR, kwokPodCIDR, NodeIP} {
		if network, _, _ := strings.Cut(cidr, "/"); strings.Contains(string(routes), network) {
			return fmt.Errorf("the machine already routes %s, which the real node's network uses", cidr)
		}
	}
	forward, err := os.ReadFile("/proc/sys/net/ipv4/ip_forward")
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.nodeDir("ip_forward"), forward, 0o600); err != nil {
		return err
	}
	// ip runs an ip command unless one before it failed.
	ip := func(args ...string) {
		if err == nil {
			err = run(append([]string{"ip"}, args...)...)
		}
	}
	ip("link", "add", nodeInterface, "type", "bridge")
	ip("addr", "add", NodeIP+"/32", "dev", nodeInterface)
	ip("link", "set", nodeInterface, "up")
	ip("route", "add", ServiceCIDR, "dev", nodeInterface)
	ip("route", "add", kwokPodCIDR, "dev", nodeInterface)
	if err != nil {
		return err
	}
	guard := fmt.Sprintf(`table ip %s {
	chain forward {
		type filter hook forward priority filter; policy accept;
		ip saddr %s ip daddr != %s drop
		ip daddr %s ip saddr != %s drop
	}
}
`, guardTable, PodCIDR, PodCIDR, PodCIDR, PodCIDR)
	cmd := exec.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(guard)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nft: %w: %s", err, out)
	}
	return nil
}

// writeNodeConfig writes the configuration of the registry, containerd, the CNI bridge,
// the kubelet and kube-proxy, each confined to the state directory.
func (c *Cluster) writeNodeConfig() error {
	for _, d := range []string{"cni", "registry", RegistryPrivate, "pod-logs", "kubelet"} {
		if err := os.MkdirAll(c.nodeDir(d), 0o700); err != nil {
			return err
		}
	}
	p := func(offset int) int { return c.PortBase + offset }
	// Two registries, plain HTTP and TLS, on one storage. Neither has a blob descriptor cache
	// (none is configured), so that each sees at once what was pushed to the other. The
	// private one has a storage of its own.
	registry := func(storage, addr string, tls map[string]any) map[string]any {
		http := map[string]any{"addr": addr}
		if tls != nil {
			http["tls"] = tls
		}
		return map[string]any{
			"version": 0.1,
			"log":     map[string]any{"level": "warn", "accesslog": map[string]any{"disabled": true}},
			"storage": map[string]any{"filesystem": map[string]any{"rootdirectory": c.nodeDir(storage)},
				"delete": map[string]any{"enabled": true}}, //nolint:goconst // a key of the registry's and the kubelet's config files, spelt as they read it
			"http": http,
		}
	}
	pki := filepath.Join(c.Dir, "pki")
	tls := map[string]any{"certificate": filepath.Join(pki, "registry.crt"), "key": filepath.Join(pki, "registry.key")}
	htpasswd, err := c.writeRegistryPassword()
	if err != nil {
		return err
	}
	private := registry(RegistryPrivate, c.PrivateRegistryHost(), tls)
	private["auth"] = map[string]any{"htpasswd": map[string]any{"realm": "demo-operator", "path": htpasswd}}
	files := map[string]any{
		"registry.yaml":           registry("registry", c.RegistryHost(), nil),
		"registry-tls.yaml":       registry("registry", c.SecureRegistryHost(), tls),
		RegistryPrivate + ".yaml": private,
		"cni/10-demo-bridge.conflist": map[string]any{
			"cniVersion": "1.0.0", "name": "demo-bridge",
			"plugins": []any{map[string]any{
				"type": cniBridge, "bridge": bridgeName, "isGateway": true, "ipMasq": false, "hairpinMode": true,
				// Pods reach the node and cluster IPs through the bridge; the guard table
				// keeps them from going further.
				"ipam": map[string]any{"type": "host-local", "dataDir": c.nodeDir("cni-ipam"),
					"ranges": []any{[]any{map[string]any{"subnet": PodCIDR}}},
					"routes": []any{map[string]any{"dst": "0.0.0.0/0"}}},
			}},
		},
		"kubelet.yaml": map[string]any{
			"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
			// This machine runs cgroup v1, which kubelets since 1.35 refuse unless told.
			"failCgroupV1": false, "cgroupDriver": "cgroupfs", "cgroupRoot": cgroupRoot, "failSwapOn": false,
			"containerRuntimeEndpoint": "unix://" + c.containerdSocket(),
			"address":                  NodeIP, "port": p(8), "readOnlyPort": 0,
			"healthzBindAddress": "127.0.0.1", "healthzPort": p(9),
			"authentication": map[string]any{
				"anonymous": map[string]any{"enabled": false}, "webhook": map[string]any{"enabled": true},
				"x509": map[string]any{"clientCAFile": c.CAFile()},
			},
			"authorization": map[string]any{"mode": "Webhook"},
			// Pods resolve through the cluster DNS (deployDNS), never the machine's resolver.
			"resolvConf": "", "clusterDNS": []string{DNSServiceIP}, "clusterDomain": ClusterDomain,
			"podLogsDir":      c.nodeDir("pod-logs"),
			"volumePluginDir": c.nodeDir("volume-plugins"),
			// A developer's disk may be nearly full: evict only when nothing is left, and
			// never collect the images the tests pushed.
			"evictionHard": map[string]string{"memory.available": "100Mi", "nodefs.available": "1%",
				"nodefs.inodesFree": "1%", "imagefs.available": "1%"},
			"imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
			"serializeImagePulls": false,
		},
		"kube-proxy.yaml": map[string]any{
			"apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration",
			"mode":             "nftables",
			"clientConnection": map[string]any{"kubeconfig": c.Kubeconfig()},
			"hostnameOverride": NodeName, "bindAddress": NodeIP,
			"healthzBindAddress": fmt.Sprintf("127.0.0.1:%d", p(10)), "metricsBindAddress": fmt.Sprintf("127.0.0.1:%d", p(11)),
			"clusterCIDR": PodCIDR, "nodePortAddresses": []string{NodeIP + "/32"},
			// Leave the machine's conntrack settings alone.
			"conntrack": map[string]any{"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s", "tcpCloseWaitTimeout": "0s"},
		},
	}
	for name, content := range files {
		data, err := yaml.Marshal(content)
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, ".conflist") {
			data, err = yaml.YAMLToJSON(data)
			if err != nil {
				return err
			}
		}
		if err := os.WriteFile(c.nodeDir(name), data, 0o600); err != nil {
			return err
		}
	}
	return os.WriteFile(c.nodeDir("containerd.toml"), []byte(c.containerdConfig()), 0o600)
}

// writeRegistryPassword draws the private registry's password, once per state directory, and
// writes the registry's htpasswd file (bcrypt, the only hash it reads) for it; it returns the
// file's path.
func (c *Cluster) writeRegistryPassword() (string, error) {
	path := c.nodeDir(RegistryPrivate + ".password")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(path, []byte(rand.Text()), 0o600); err != nil {
			return "", err
		}
	}
	_, password, err := c.PrivateRegistryCredentials()
	if err != nil {
		return "", err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", err
	}
	htpasswd := c.nodeDir(RegistryPrivate + ".htpasswd")
	return htpasswd, os.WriteFile(htpasswd, []byte(PrivateRegistryUser+":"+string(hash)+"\n"), 0o600)
}

// containerdConfig keeps containerd's files, sockets and runc's state in the state directory.
// restrict_oom_score_adj: lowering a process's oom_score_adj is denied on some machines
// (VMs, nested containers), where every sandbox would fail with runc's "can't get final
// child's PID from pipe: EOF".
func (c *Cluster) containerdConfig() string {
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q

[grpc]
  address = %[3]q
[debug]
  address = ""
[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = %[4]q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[5]q
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = %[6]q
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[7]q
    conf_dir = %[8]q
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors.%[9]q]
    endpoint = ["http://%[9]s"]
  [plugins."io.containerd.grpc.v1.cri".registry.configs.%[10]q.tls]
    ca_file = %[11]q
  [plugins."io.containerd.grpc.v1.cri".registry.configs.%[12]q.tls]
    ca_file = %[11]q
`, c.nodeDir("containerd"), c.nodeDir("containerd-state"), c.containerdSocket(), c.nodeDir("opt"),
		c.PauseImage(), c.nodeDir("runc"), cniBinDir, c.nodeDir("cni"), c.RegistryHost(),
		c.SecureRegistryHost(), c.CAFile(), c.PrivateRegistryHost()) + c.mirrorsConfig()
}

func (c *Cluster) mirrorsConfig() string {
	var config strings.Builder
	for _, host := range c.Mirrors {
		fmt.Fprintf(&config, "  [plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.%q]\n    endpoint = [\"http://%s\"]\n", host, c.RegistryHost())
	}
	return config.String()
}

// makeCgroupRoot creates the pods' parent cgroup in every hierarchy, with the machine's CPUs
// and memory nodes for cpuset, which a new cpuset cgroup does not inherit.
func makeCgroupRoot() error {
	for _, hierarchy := range cgroupHierarchies(false) {
		dir := filepath.Join(hierarchy, cgroupRoot)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if filepath.Base(hierarchy) == "cpuset" {
			for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
				value, err := os.ReadFile(filepath.Join(hierarchy, f))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, f), value, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cgroupHierarchies are the cgroup hierarchies mounted under /sys/fs/cgroup: the v1 ones,
// and with unified the v2 one of a hybrid setup, where runc also makes the pods' cgroups.
func cgroupHierarchies(unified bool) []string {
	dirs, _ := filepath.Glob("/sys/fs/cgroup/*")
	return slices.DeleteFunc(dirs, func(d string) bool {
		fi, err := os.Lstat(d)
		return err != nil || !fi.IsDir() || (!unified && filepath.Base(d) == "unified")
	})
}

// nodeCommand is a real node's component's command line and environment.
func (c *Cluster) nodeCommand(name string) (path string, args, env []string) {
	switch name {
	case Registry, RegistryTLS, RegistryPrivate:
		return "docker-registry", []string{"serve", c.nodeDir(name + ".yaml")}, nil
	case Containerd:
		return "containerd", []string{"--config", c.nodeDir("containerd.toml"), "--log-level", "warn"}, nil
	case Kubelet:
		// The kubelet adds iptables chains for other components' sake (kube-proxy's iptables
		// mode) when it finds iptables; without it on its PATH it leaves the tables alone.
		return filepath.Join(c.BinDir, Kubelet), []string{
			"--config=" + c.nodeDir("kubelet.yaml"), "--kubeconfig=" + c.Kubeconfig(),
			"--hostname-override=" + NodeName, "--node-ip=" + NodeIP,
			"--root-dir=" + c.nodeDir("kubelet"), "--cert-dir=" + c.nodeDir("kubelet-pki"),
		}, []string{"PATH=/usr/bin:/bin"}
	case KubeProxy:
		return filepath.Join(c.BinDir, KubeProxy), []string{"--config=" + c.nodeDir("kube-proxy.yaml")}, nil
	}
	return "", nil, nil
}

// nodeUp starts the real node: its network, the registry with the pause image in it,
// containerd, the kubelet and kube-proxy. The control plane is already serving.
func (c *Cluster) nodeUp(ctx context.Context) error {
	ca, err := os.ReadFile(c.CAFile())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.RegistryCertDir(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(c.RegistryCAFile(), ca, 0o644); err != nil {
		return err
	}
	for _, name := range NodeComponents {
		if c.pid(name) > 0 {
			continue
		}
		c.logf("starting %s", name)
		path, args, env := c.nodeCommand(name)
		if err := c.StartProcess(name, path, args, env); err != nil {
			return err
		}
		switch name {
		case RegistryTLS:
			if err := c.pushPauseImage(ctx); err != nil {
				return fmt.Errorf("building the pause image: %w", err)
			}
		case Containerd:
			if err := c.waitContainerd(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitContainerd waits until containerd serves its socket.
func (c *Cluster) waitContainerd(ctx context.Context) error {
	return waitFile(ctx, c.containerdSocket(), func() error {
		if c.pid(Containerd) == 0 {
			return c.exited(Containerd)
		}
		return nil
	})
}

func waitFile(ctx context.Context, path string, alive func() error) error {
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if err := alive(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// nodeDown stops the real node and removes all it made outside the state directory: the
// pods (through the runtime, so that CNI releases their addresses and network namespaces),
// containerd's shims, mounts, cgroups, interfaces and nftables tables.
func (c *Cluster) nodeDown() error {
	var errs []error
	for _, name := range []string{KubeProxy, Kubelet} {
		errs = append(errs, c.Stop(name))
	}
	// A cluster that ended without Down (a killed test) left pods whose network only the
	// runtime tears down well: start its containerd again for that.
	if _, err := os.Stat(c.nodeDir("containerd.toml")); err == nil && c.pid(Containerd) == 0 {
		path, args, env := c.nodeCommand(Containerd)
		errs = append(errs, c.StartProcess(Containerd, path, args, env))
	}
	if c.pid(Containerd) > 0 {
		errs = append(errs, c.removePods())
	}
	errs = append(errs, c.Stop(Containerd), c.Stop(RegistryPrivate), c.Stop(RegistryTLS), c.Stop(Registry))
	c.killLeftovers()
	errs = append(errs, removePodNetworks())
	errs = append(errs, mounts.Unmount(c.Dir))
	errs = append(errs, removeCgroups())
	// The node's interfaces, and the guard's and kube-proxy's nftables tables, where they exist.
	for _, link := range []string{nodeInterface, bridgeName} {
		if exec.Command("ip", "link", "show", link).Run() == nil {
			errs = append(errs, run("ip", "link", "del", link))
		}
	}
	for _, table := range []struct{ family, name string }{{"ip", guardTable}, {"ip", "kube-proxy"}, {"ip6", "kube-proxy"}} {
		if exec.Command("nft", "list", "table", table.family, table.name).Run() == nil {
			errs = append(errs, run("nft", "delete", "table", table.family, table.name))
		}
	}
	// containerd's shims keep their sockets there, whatever containerd's state directory:
	// remove those nobody listens on any more, then the directories if that empties them
	// (another containerd may use them).
	sockets, _ := filepath.Glob("/run/containerd/s/*")
	for _, s := range sockets {
		if conn, err := net.Dial("unix", s); err == nil {
			conn.Close()
		} else {
			_ = os.Remove(s)
		}
	}
	for _, d := range []string{"/run/containerd/s", "/run/containerd"} {
		_ = os.Remove(d)
	}
	if forward, err := os.ReadFile(c.nodeDir("ip_forward")); err == nil {
		errs = append(errs, os.WriteFile("/proc/sys/net/ipv4/ip_forward", forward, 0o644))
	}
	if owner, err := os.ReadFile(nodeOwner); err == nil && string(owner) == c.Dir {
		errs = append(errs, os.Remove(nodeOwner))
	}
	return errors.Join(errs...)
}

// removePods stops and removes every pod sandbox through the CRI, as the kubelet would.
func (c *Cluster) removePods() error {
	conn, err := grpc.NewClient("unix://"+c.containerdSocket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cri := runtimeapi.NewRuntimeServiceClient(conn)
	var sandboxes *runtimeapi.ListPodSandboxResponse
	// A containerd just started again serves once it has loaded its state.
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		sandboxes, err = cri.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("listing the pods: %w", err)
	}
	var errs []error
	for _, s := range sandboxes.Items {
		if _, err := cri.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: s.Id}); err != nil {
			errs = append(errs, fmt.Errorf("stopping pod %s: %w", s.Metadata.Name, err))
		}
		if _, err := cri.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: s.Id}); err != nil {
			errs = append(errs, fmt.Errorf("removing pod %s: %w", s.Metadata.Name, err))
		}
	}
	return errors.Join(errs...)
}

// killLeftovers kills what removePods could not stop: processes still in the pods' cgroups
// and containerd shims of this cluster.
func (c *Cluster) killLeftovers() {
	for _, hierarchy := range cgroupHierarchies(true) {
		_ = filepath.WalkDir(filepath.Join(hierarchy, cgroupRoot), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			procs, _ := os.ReadFile(path)
			for _, f := range strings.Fields(string(procs)) {
				if pid, err := strconv.Atoi(f); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return nil
		})
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), "containerd-shim") || !strings.Contains(string(cmdline), c.Dir) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// removePodNetworks deletes the network namespaces of pods on the bridge that the runtime
// could not tear down: containerd keeps them in /run/netns, whatever its state directory.
func removePodNetworks() error {
	names, _ := os.ReadDir("/run/netns")
	prefix := strings.TrimSuffix(PodCIDR, "0/24")
	var errs []error
	for _, n := range names {
		addrs, err := exec.Command("ip", "-n", n.Name(), "-4", "-o", "addr", "show").Output()
		if err == nil && strings.Contains(string(addrs), " "+prefix) {
			errs = append(errs, run("ip", "netns", "delete", n.Name()))
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes the pods' cgroups, deepest first; a cgroup is removed with rmdir.
func removeCgroups() error {
	var errs []error
	for _, hierarchy := range cgroupHierarchies(true) {
		var dirs []string
		_ = filepath.WalkDir(filepath.Join(hierarchy, cgroupRoot), func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for _, d := range slices.Backward(dirs) {
			if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}

func run(args ...string) error {
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// prepareNode checks the machine, claims its real node, and sets up what the control plane
// needs from the node before it starts: the node's address, on which kube-apiserver listens.
func (c *Cluster) prepareNode() error {
	if err := c.nodePrerequisites(); err != nil {
		return err
	}
	if err := os.MkdirAll(c.nodeDir(), 0o700); err != nil {
		return err
	}
	if err := c.claimNode(); err != nil {
		return err
	}
	if err := c.nodeNetworkUp(); err != nil {
		return err
	}
	if err := makeCgroupRoot(); err != nil {
		return fmt.Errorf("creating the pods' cgroup %s: %w", cgroupRoot, err)
	}
	return c.writeNodeConfig()
}

// pushPauseImage builds ./pause and pushes it, as the only file of an image, to the registry.
func (c *Cluster) pushPauseImage(ctx context.Context) error {
	bin := c.nodeDir("pause")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "github.com/cmft/demo-operator/hack/cluster/pause")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w: %s", err, out)
	}
	b := &imagebuild.Builder{}
	const local = "localhost/demo-operator-local/pause:local"
	if _, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local, Entrypoint: []string{"/pause"},
		Files: []imagebuild.File{{Path: "/pause", Source: bin}}}); err != nil {
		return err
	}
	// The registry has just started: retry until it listens.
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if c.pid(RegistryTLS) == 0 {
			return false, c.exited(RegistryTLS)
		}
		return c.PushImage(ctx, b, local, c.PauseImage()) == nil, nil
	})
}
