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

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// apiRequests reads the API server's own count of the requests it served
// (apiserver_request_total), by verb and resource, e.g. "GET deployments" or "PATCH
// demoapplications/status". Unlike the children's client-side counts it holds reads too, and
// every client's requests: a run's figure is the difference of two readings, set beside a
// baseline whose requests are all the bench's.
func (b *Bench) apiRequests(ctx context.Context) (map[string]float64, error) {
	raw, err := b.clientset.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, m := range families["apiserver_request_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		key := labels["verb"] + " " + labels["resource"]
		if sub := labels["subresource"]; sub != "" {
			key += "/" + sub
		}
		out[key] += m.GetCounter().GetValue()
	}
	return out, nil
}

// requestsPerApp is the requests served between two readings of apiRequests, per app.
func requestsPerApp(before, after map[string]float64, apps int) map[string]float64 {
	out := map[string]float64{}
	for key, n := range after {
		if d := n - before[key]; d > 0 {
			out[key] = d / float64(apps)
		}
	}
	return out
}

// profileAPIServer starts, with -profile, a CPU profile of kube-apiserver over the next
// seconds, named after the role measured, beside the children's profiles, and returns what
// waits for it: the window must hold the whole run and end before the next begins, so that
// the roles' profiles compare (go tool pprof -diff_base); an idle tail adds no samples.
func (b *Bench) profileAPIServer(ctx context.Context, role string, seconds int) (wait func()) {
	if !b.cfg.Profile {
		return func() {}
	}
	b.seq++
	path := filepath.Join(b.dir, fmt.Sprintf("%03d-kube-apiserver-%s.cpu.pprof", b.seq, role))
	done := make(chan struct{})
	go func() {
		defer close(done)
		raw, err := b.clientset.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", fmt.Sprint(seconds)).DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(path, raw, 0o644)
		}
		if err != nil {
			b.logf("profiling kube-apiserver: %v", err)
		}
	}()
	return func() { <-done }
}

// ClusterState is what a convergence run starts on, so that what earlier runs leave behind
// shows: the objects stored, etcd's history and size, and the control plane's idle work.
type ClusterState struct {
	// Objects counts the stored objects of the resources a convergence run writes, in every
	// namespace (with no controller-manager, nothing but the bench deletes them).
	Objects map[string]int `json:"objects"`
	// EtcdRevision is etcd's revision: every write since it started, whatever was deleted.
	EtcdRevision int64 `json:"etcdRevision"`
	// EtcdDBBytes and EtcdDBInUseBytes are etcd's database file and the part of it in use:
	// history is kept until compacted, and a file only shrinks when defragmented.
	EtcdDBBytes      float64 `json:"etcdDBBytes"`
	EtcdDBInUseBytes float64 `json:"etcdDBInUseBytes"`
	// IdleCores is kube-apiserver's and etcd's CPU use, in cores, over idleWindow before the run.
	IdleCores float64 `json:"idleCores"`
}

// idleWindow is how long the control plane's idle CPU is sampled before each run.
const idleWindow = 2 * time.Second

// resourceNamespaces is the namespaces resource, also the segment of an API path that a
// namespace's name follows.
const resourceNamespaces = "namespaces"

// countedResources are what a convergence run creates, directly or through the API server
// (a Service's cluster IP is an IPAddress object; a manager's Lease and Events).
var countedResources = []schema.GroupVersionResource{
	{Group: "paas.cmft.com", Version: "v1", Resource: "demoapplications"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Version: "v1", Resource: "services"},
	{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "secrets"},
	{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses"},
	{Version: "v1", Resource: "events"},
	{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
	{Version: "v1", Resource: resourceNamespaces},
}

func (s ClusterState) String() string {
	objects := make([]string, 0, len(countedResources))
	for _, gvr := range countedResources {
		objects = append(objects, fmt.Sprintf("%s %d", gvr.Resource, s.Objects[gvr.Resource]))
	}
	return fmt.Sprintf("%s; etcd revision %d, db %.1f MB (%.1f MB in use); idle %.2f cores",
		strings.Join(objects, ", "), s.EtcdRevision, s.EtcdDBBytes/1e6, s.EtcdDBInUseBytes/1e6, s.IdleCores)
}

// clusterState measures the state a run starts on.
func (b *Bench) clusterState(ctx context.Context) (ClusterState, error) {
	var st ClusterState
	var err error
	if st.Objects, err = b.objectCounts(ctx); err != nil {
		return st, err
	}
	if st.EtcdRevision, st.EtcdDBBytes, st.EtcdDBInUseBytes, err = b.etcdStatus(ctx); err != nil {
		return st, err
	}
	before, err := b.serverCPUSeconds()
	if err != nil {
		return st, err
	}
	time.Sleep(idleWindow)
	after, err := b.serverCPUSeconds()
	st.IdleCores = (after - before) / idleWindow.Seconds()
	return st, err
}

// objectCounts counts the stored objects of countedResources, in every namespace.
func (b *Bench) objectCounts(ctx context.Context) (map[string]int, error) {
	counts := map[string]int{}
	for _, gvr := range countedResources {
		// One item and the count of the rest: the API server answers without sending them all.
		list, err := b.metadata.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return nil, err
		}
		n := len(list.Items)
		if list.RemainingItemCount != nil {
			n += int(*list.RemainingItemCount)
		}
		counts[gvr.Resource] = n
	}
	return counts, nil
}

// compactEtcd compacts etcd's history up to its current revision and defragments its
// database, so that a run does not pay for the history of the runs before it: kube-apiserver
// compacts only every 5 minutes, and only a defragmentation gives the freed pages back.
func (b *Bench) compactEtcd(ctx context.Context) error {
	rev, _, _, err := b.etcdStatus(ctx)
	if err != nil {
		return err
	}
	// physical: return once the compaction is applied to the database, not only scheduled.
	if _, err := b.etcd(ctx, http.MethodPost, "/v3/kv/compaction",
		map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}); err != nil {
		return err
	}
	_, err = b.etcd(ctx, http.MethodPost, "/v3/maintenance/defragment", map[string]any{})
	return err
}

// etcd calls etcd's gRPC gateway (/v3/…), which takes and returns JSON (int64 as strings), so
// that the bench needs no etcd client module.
func (b *Bench) etcd(ctx context.Context, method, path string, body any) ([]byte, error) {
	var in io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		in = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.env.ControlPlane.Etcd.URL.JoinPath(path).String(), in)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("etcd %s %s: %s: %s", method, path, resp.Status, out)
	}
	return out, err
}

// etcdStatus is etcd's revision and its database's size and the part of it in use, from its
// maintenance status.
func (b *Bench) etcdStatus(ctx context.Context) (revision int64, db, inUse float64, err error) {
	raw, err := b.etcd(ctx, http.MethodPost, "/v3/maintenance/status", map[string]any{})
	if err != nil {
		return 0, 0, 0, err
	}
	var status struct {
		Header struct {
			Revision int64 `json:"revision,string"`
		} `json:"header"`
		DBSize      float64 `json:"dbSize,string"`
		DBSizeInUse float64 `json:"dbSizeInUse,string"`
	}
	err = json.Unmarshal(raw, &status)
	return status.Header.Revision, status.DBSize, status.DBSizeInUse, err
}
