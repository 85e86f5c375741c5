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
	"fmt"
	"os"
	"path/filepath"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
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
