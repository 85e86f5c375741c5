//go:build node

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

package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/devtools/imagebuild"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

// loadRate is the requests per second each stream of the load sends, whatever the answers
// take: each request goes out on its own.
const loadRate = 20

// clientTimeout is how long a request of the load may take, as a caller's timeout, not a
// proxy's: an answer that comes within it is served, and counts as slow past slowAnswer.
const clientTimeout, slowAnswer = 10 * time.Second, time.Second

// TestZeroLossRolloutAndScaleDown: under a steady load through the app's Service (its cluster
// IP, through kube-proxy) and through its Ingress (Skipper), each on kept-alive connections and
// on a new connection per request, an image change rolled out over 3 replicas and a scale-down
// to 1 lose no request with the operator's default preStop pause. podname does nothing on
// SIGTERM (Go's default ends it at once): the pause alone lets the endpoints and Skipper drop a
// stopping pod first. The same app with the pause turned off (preStop sleep 0) loses requests,
// side by side, so the count is known to see a loss. The pods and Skipper request CPU, as in
// production: BestEffort pods starve on a busy node. make bench-zero-loss writes the figures.
func TestZeroLossRolloutAndScaleDown(t *testing.T) {
	installOperator(t)
	createSkipperClass(t)
	nextImage := pushNextAppImage(t)
	figures := &zeroLossFigures{}
	t.Cleanup(func() { figures.write(t) })
	for _, preStop := range []bool{true, false} {
		t.Run(map[bool]string{true: "default preStop", false: "preStop off"}[preStop], func(t *testing.T) {
			t.Parallel()
			run := rolloutUnderLoad(t, nextImage, preStop)
			figures.add(run)
			lost := run.failed()
			if preStop {
				if lost != 0 {
					t.Errorf("%d requests lost with the default preStop:\n%s", lost, run.table())
				}
				return
			}
			if lost == 0 {
				t.Errorf("no request lost with preStop off: the load cannot show a loss\n%s", run.table())
			}
		})
	}
}

// pushNextAppImage pushes podname's image again, made different by a label, as a new release
// to roll out.
func pushNextAppImage(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	b := &imagebuild.Builder{}
	local, image := "localhost/demo-operator-node/podname:next", cluster.RegistryHost()+"/podname:next"
	_, err := b.Assemble(ctx, imagebuild.ImageSpec{Name: local, Base: appLocalImage, Labels: map[string]string{"release": "next"}})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	NewWithT(t).Expect(cluster.PushImage(ctx, b, local, image)).To(Succeed())
	return image
}

// rolloutUnderLoad runs an app of 3 replicas, with the default preStop or none, puts it under
// load, rolls out nextImage, scales it down to 1 and returns the load's counts.
func rolloutUnderLoad(t *testing.T, nextImage string, preStop bool) *loadRun {
	g := NewWithT(t)
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8s, "e2e-zero-loss-", testenv.ControllersRun)
	skipper := startSkipper(t, ns)
	const host = "shop.example.test"
	app := builder.DemoApplication(ns, "shop", builder.Image(appImage), builder.Replicas(3), builder.Ports(builder.Port("http", 80, 8080)))
	app.Spec.ReadinessProbe = &paasv1.Probe{HTTPGet: &paasv1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)},
		PeriodSeconds: 1, FailureThreshold: 3}
	app.Spec.Ingress = &paasv1.Ingress{ClassName: "skipper", Hosts: []string{host}}
	app.Spec.Resources = &paasv1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("16Mi")}}
	if !preStop {
		app.Spec.Lifecycle = &paasv1.Lifecycle{PreStop: &paasv1.LifecycleHandler{Sleep: &paasv1.SleepAction{Seconds: 0}}}
	}
	g.Expect(k8s.Create(ctx, app)).To(Succeed())
	expectServing(t, app, 3)
	g.Eventually(func(g Gomega) {
		status, body := viaIngress(g, skipper, host)
		g.Expect(status).To(Equal(http.StatusOK), body)
	}, time.Minute, 200*time.Millisecond).Should(Succeed())
	pod := framework.ReadyPods(g, k8s, ns, podsOf(app))[0]
	g.Expect(pod.Spec.Containers[0].Lifecycle != nil && pod.Spec.Containers[0].Lifecycle.PreStop != nil).To(Equal(preStop),
		"the pod's lifecycle: %+v", pod.Spec.Containers[0].Lifecycle)

	run := &loadRun{App: map[bool]string{true: "default preStop", false: "preStop off"}[preStop]}
	if l := pod.Spec.Containers[0].Lifecycle; l != nil && l.PreStop != nil && l.PreStop.Sleep != nil {
		run.PreStopSeconds = l.PreStop.Sleep.Seconds
	}
	service := serviceURL(g, app, "/")
	events := watchPodsAndEndpoints(t, ns)
	load := run.start(app.Name, []loadTarget{
		{Name: "cluster IP, kept alive", URL: service, KeepAlive: true},
		{Name: "cluster IP, new connection", URL: service},
		{Name: "Ingress, kept alive", URL: "http://" + skipper + "/", Host: host, KeepAlive: true},
		{Name: "Ingress, new connection", URL: "http://" + skipper + "/", Host: host},
	})
	defer load.stop()
	time.Sleep(2 * time.Second)

	run.phase("rollout")
	updateApp(g, app, func(app *paasv1.DemoApplication) { app.Spec.Image = nextImage })
	expectPodsGone(t, app, 3, func(p corev1.Pod) bool { return p.Spec.Containers[0].Image == nextImage })
	time.Sleep(2 * time.Second)

	run.phase("scale-down 3 to 1")
	updateApp(g, app, func(app *paasv1.DemoApplication) { app.Spec.Replica = ptr.To[int32](1) })
	expectPodsGone(t, app, 1, func(corev1.Pod) bool { return true })
	time.Sleep(2 * time.Second)
	load.stop()
	t.Logf("%s: %s\n%s", run.App, run.summary(), run.table())
	if preStop && run.failed() > 0 {
		t.Logf("%s: the first failed requests:\n%s\nthe pods and endpoints meanwhile:\n%s", run.App,
			strings.Join(run.failures, "\n"), strings.Join(events.lines(), "\n"))
		logs, err := cs.CoreV1().Pods(ns).GetLogs("skipper", &corev1.PodLogOptions{}).DoRaw(ctx)
		t.Logf("Skipper's log but its 200s (%v):\n%s", err, notOK(logs))
	}
	return run
}

// expectPodsGone waits until app's Deployment has rolled out and exactly n pods of app are
// left, all Ready and all kept by keep: the others, stopped and deleted.
func expectPodsGone(t *testing.T, app *paasv1.DemoApplication, n int, keep func(corev1.Pod) bool) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(app), d)).To(Succeed())
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.UpdatedReplicas).To(BeEquivalentTo(n))
		g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(n))
		pods := &corev1.PodList{}
		g.Expect(k8s.List(context.Background(), pods, client.InNamespace(app.Namespace), client.MatchingLabels(podsOf(app)))).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(n), func() string { return framework.DescribePods(k8s, app.Namespace, d.Spec.Selector.MatchLabels) })
		for _, p := range pods.Items {
			g.Expect(keep(p)).To(BeTrue(), p.Name)
		}
	}, 3*time.Minute, 250*time.Millisecond).Should(Succeed())
}

// loadTarget is one stream of the load: a URL, the Host it asks for, and whether its requests
// share kept-alive connections or each opens its own.
type loadTarget struct {
	Name      string
	URL, Host string
	KeepAlive bool
}

// loadCount is what a stream's requests of one phase met. Retried counts requests the client
// sent again, on a new connection, after a kept-alive one was closed under them: Go's
// Transport does so for a GET (idempotent, as HTTP allows) that got no answer byte.
type loadCount struct {
	Sent, OK, Retried, Slow int
	Failed                  map[string]int
	Slowest                 time.Duration
}

// loadRun is the load on one app: its counts by phase and stream.
type loadRun struct {
	App            string
	PreStopSeconds int64
	Rate           int
	Targets        []string
	mu             sync.Mutex
	current        string
	Phases         []string
	Started        map[string]time.Time
	Ended          time.Time
	Counts         map[string]map[string]*loadCount
	failures       []string // the first failed requests: when, which stream, why
}

// load is a running load, stopped by stop.
type load struct {
	cancel context.CancelFunc
	wg     *sync.WaitGroup
	once   sync.Once
	run    *loadRun
}

func (l *load) stop() {
	l.once.Do(func() {
		l.run.mu.Lock()
		l.run.Ended = time.Now()
		l.run.mu.Unlock()
		l.cancel()
		l.wg.Wait()
	})
}

// start sends loadRate requests a second to each target, in phase "steady" until phase names
// another, each answer checked to be one of app's pods' names.
func (r *loadRun) start(app string, targets []loadTarget) *load {
	r.Rate, r.Counts, r.Started = loadRate, map[string]map[string]*loadCount{}, map[string]time.Time{}
	r.phase("steady")
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{cancel: cancel, wg: &sync.WaitGroup{}, run: r}
	for _, target := range targets {
		r.Targets = append(r.Targets, target.Name)
		c := &http.Client{Timeout: clientTimeout, Transport: &http.Transport{DisableKeepAlives: !target.KeepAlive, MaxIdleConnsPerHost: 8}}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			tick := time.NewTicker(time.Second / loadRate)
			defer tick.Stop()
			var requests sync.WaitGroup
			defer requests.Wait()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				phase := r.sent(target.Name)
				requests.Add(1)
				go func() {
					defer requests.Done()
					start := time.Now()
					attempts, err := call(c, target, app)
					r.record(phase, target.Name, attempts, time.Since(start), err)
				}()
			}
		}()
	}
	return l
}

// call sends one GET to target and returns how many connections it took and why it failed.
func call(c *http.Client, target loadTarget, app string) (int, error) {
	var attempts atomic.Int32
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { attempts.Add(1) }})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.URL, nil)
	if err != nil {
		return 0, err
	}
	req.Host = target.Host
	resp, err := c.Do(req)
	if err != nil {
		return int(attempts.Load()), err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return int(attempts.Load()), err
	case resp.StatusCode != http.StatusOK:
		return int(attempts.Load()), fmt.Errorf("HTTP %d", resp.StatusCode)
	case !strings.HasPrefix(string(body), app+"-"):
		return int(attempts.Load()), fmt.Errorf("answered %q", body)
	}
	return int(attempts.Load()), nil
}

// errorKind names what err is, for the counts: a refused or reset connection, a timeout, an
// unreachable host, a connection closed before the answer, an HTTP status, else err.
func errorKind(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to host"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "closed before the answer"
	case strings.HasPrefix(err.Error(), "HTTP "):
		return err.Error()
	}
	return err.Error()
}

// phase starts a phase: the requests sent from now on count in it.
func (r *loadRun) phase(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.current = name
	r.Phases = append(r.Phases, name)
	r.Started[name] = time.Now()
	r.Counts[name] = map[string]*loadCount{}
}

// sent counts a request of target sent in the current phase, and returns the phase.
func (r *loadRun) sent(target string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.Counts[r.current][target]
	if c == nil {
		c = &loadCount{Failed: map[string]int{}}
		r.Counts[r.current][target] = c
	}
	c.Sent++
	return r.current
}

func (r *loadRun) record(phase, target string, attempts int, took time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.Counts[phase][target]
	if attempts > 1 {
		c.Retried++
	}
	c.Slowest = max(c.Slowest, took)
	if took > slowAnswer {
		c.Slow++
	}
	if err != nil {
		c.Failed[errorKind(err)]++
		if len(r.failures) < 100 {
			r.failures = append(r.failures, fmt.Sprintf("%s %s, %s, after %s: %v", time.Now().Format("15:04:05.000"), phase, target,
				took.Round(time.Millisecond), err))
		}
		return
	}
	c.OK++
}

// failed is the number of requests that failed, in every phase and stream.
func (r *loadRun) failed() int {
	_, _, failed := r.totals()
	return failed
}

// totals are the requests sent, answered and failed, in every phase and stream.
func (r *loadRun) totals() (sent, ok, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, byTarget := range r.Counts {
		for _, c := range byTarget {
			sent, ok = sent+c.Sent, ok+c.OK
			for _, k := range c.Failed {
				failed += k
			}
		}
	}
	return sent, ok, failed
}

// summary is the totals, the load's rate and its duration.
func (r *loadRun) summary() string {
	sent, ok, failed := r.totals()
	duration := r.Ended.Sub(r.Started[r.Phases[0]])
	return fmt.Sprintf("%d requests sent over %.1f s (%d streams of %d a second, %.0f a second in all): %d ok, %d failed",
		sent, duration.Seconds(), len(r.Targets), r.Rate, float64(sent)/duration.Seconds(), ok, failed)
}

// table is the counts as a Markdown table: a row by phase and stream.
func (r *loadRun) table() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	b.WriteString("| phase | duration | stream | sent | ok | failed | by kind | retried on a new connection | slow (> 1 s) | slowest |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n")
	for i, phase := range r.Phases {
		end := r.Ended
		if i+1 < len(r.Phases) {
			end = r.Started[r.Phases[i+1]]
		}
		for _, target := range r.Targets {
			c := r.Counts[phase][target]
			if c == nil {
				continue
			}
			failed, kinds := 0, make([]string, 0, len(c.Failed))
			for _, kind := range slices.Sorted(maps.Keys(c.Failed)) {
				failed += c.Failed[kind]
				kinds = append(kinds, fmt.Sprintf("%s: %d", kind, c.Failed[kind]))
			}
			fmt.Fprintf(&b, "| %s | %.1f s | %s | %d | %d | %d | %s | %d | %d | %.2f s |\n", phase, end.Sub(r.Started[phase]).Seconds(), target,
				c.Sent, c.OK, failed, strings.Join(kinds, ", "), c.Retried, c.Slow, c.Slowest.Seconds())
		}
	}
	return b.String()
}

// zeroLossFigures are the runs of TestZeroLossRolloutAndScaleDown, as
// bench/RESULTS-zero-loss.md lists them.
type zeroLossFigures struct {
	mu   sync.Mutex
	runs []*loadRun
}

func (f *zeroLossFigures) add(r *loadRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, r)
}

// zeroLossResults is what bench/results-zero-loss.json holds.
type zeroLossResults struct {
	Date     string            `json:"date"`
	Commit   string            `json:"commit"`
	Machine  string            `json:"machine"`
	Versions map[string]string `json:"versions"`
	Passed   bool              `json:"testPassed"`
	Runs     []*loadRun        `json:"runs"`
}

// write writes the figures to $ZERO_LOSS_RESULTS, when set, as results-zero-loss.json and
// RESULTS-zero-loss.md.
func (f *zeroLossFigures) write(t *testing.T) {
	dir := os.Getenv("ZERO_LOSS_RESULTS")
	if dir == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	slices.SortFunc(f.runs, func(a, b *loadRun) int { return strings.Compare(a.App, b.App) })
	r := zeroLossResults{Date: time.Now().UTC().Format(time.RFC3339), Commit: commit(), Machine: machine(), Versions: nodeVersions(),
		Passed: !t.Failed(), Runs: f.runs}
	writeFigures(t, dir, "zero-loss", r, r.markdown())
}

func (r zeroLossResults) markdown() string {
	var b strings.Builder
	b.WriteString("# Requests lost in a rollout and a scale-down, on the real node\n\n")
	b.WriteString("Written by `make bench-zero-loss` " +
		"(test/e2e/node/rollout_test.go, which make test-node runs too); do not edit.\n\n")
	fmt.Fprintf(&b, "- date: %s; commit %s\n- machine: %s\n- versions: %s\n", r.Date, r.Commit, r.Machine, versions(r.Versions))
	if !r.Passed {
		b.WriteString("- the test failed (its log says which check)\n")
	}
	b.WriteString("- the app: podname (test/e2e/node/podname), 3 replicas requesting 20m CPU, " +
		"a readiness probe on /ready every second (unready after 3 failures); " +
		"on SIGTERM it does nothing of its own (Go's default ends it at once)\n")
	b.WriteString("- the change: an image change rolled out (maxSurge 1, maxUnavailable 0: the Deployment's defaults at 3 replicas), " +
		"then replica 3 to 1; each phase lasts until the Deployment has rolled out and the stopped pods are deleted, and 2 s more\n")
	fmt.Fprintf(&b, "- the load: a Go client, %d GET requests a second per stream, each sent on its own whatever the others take "+
		"(%s timeout, a caller's), 4 streams: the Service's cluster IP (kube-proxy) and the Ingress (Skipper, requesting 200m CPU, "+
		"polling the API every 3 s, its default), "+
		"each on kept-alive connections and on a new connection per request; an answer counts as ok when it is 200 with a pod's name; "+
		"slow: answered ok after more than %s\n", loadRate, clientTimeout, slowAnswer)
	b.WriteString("- retried: a GET that Go's Transport sent again on a new connection because a kept-alive one closed before " +
		"any answer byte (HTTP lets a client retry an idempotent request so); counted ok when the retry was\n")
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "\n## %s (preStop sleep %d s)\n\n", run.App, run.PreStopSeconds)
		b.WriteString(run.summary() + "\n\n")
		b.WriteString(run.table())
	}
	return b.String()
}

// timeline is what a watch saw, line by line, each with its time.
type timeline struct {
	mu sync.Mutex
	l  []string
}

func (d *timeline) add(f string, a ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.l = append(d.l, time.Now().Format("15:04:05.000")+" "+fmt.Sprintf(f, a...))
}

func (d *timeline) lines() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.l)
}

// watchPodsAndEndpoints records the changes of ns's pods and EndpointSlices until t ends.
func watchPodsAndEndpoints(t *testing.T, ns string) *timeline {
	d := &timeline{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pw, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ew, err := cs.DiscoveryV1().EndpointSlices(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev := range pw.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			ready := false
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady {
					ready = c.Status == corev1.ConditionTrue
				}
			}
			d.add("pod %s %s ip=%s phase=%s ready=%v deleting=%v", ev.Type, p.Name, p.Status.PodIP, p.Status.Phase, ready, p.DeletionTimestamp != nil)
		}
	}()
	go func() {
		for ev := range ew.ResultChan() {
			s, ok := ev.Object.(*discoveryv1.EndpointSlice)
			if !ok {
				continue
			}
			eps := make([]string, 0, len(s.Endpoints))
			for _, e := range s.Endpoints {
				eps = append(eps, fmt.Sprintf("%v(r=%v,t=%v)", e.Addresses, ptr.Deref(e.Conditions.Ready, false), ptr.Deref(e.Conditions.Terminating, false)))
			}
			d.add("slice %s %s %v", ev.Type, s.Name, eps)
		}
	}()
	return d
}

// notOK is Skipper's log without its access log's lines of requests answered 200.
func notOK(log []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(log)) {
		if !strings.Contains(line, `" 200 `) {
			b.WriteString(line)
		}
	}
	return b.String()
}
