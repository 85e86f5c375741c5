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

package framework

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/localcluster"
)

// upWithManager starts c while it builds the manager (main.go) into dir, and returns the
// manager binary's path.
func upWithManager(ctx context.Context, c *localcluster.Cluster, dir string) (string, error) {
	bin := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", bin, "github.com/cmft/demo-operator")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Start(); err != nil {
		return "", err
	}
	upErr := c.Up(ctx)
	if err := build.Wait(); err != nil {
		return "", fmt.Errorf("building the manager: %w", err)
	}
	return bin, upErr
}

// PrintLogs writes to w the last lines of the logs of c's processes named names.
func PrintLogs(w io.Writer, c *localcluster.Cluster, lines int, names ...string) {
	for _, name := range names {
		fmt.Fprintf(w, "%s log:\n%s\n", name, c.LogTail(name, lines))
	}
}

// LogsOnFailure logs, when t fails, the last lines of the logs of c's processes named names.
func LogsOnFailure(t *testing.T, c *localcluster.Cluster, lines int, names ...string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, name := range names {
			t.Logf("%s log:\n%s", name, c.LogTail(name, lines))
		}
	})
}

// StartManager runs the manager binary bin as c's process name until the test ends, with
// kubeconfig and env, and no metrics or probe servers, so that several can run side by side;
// the tail of its log is printed if the test fails.
func StartManager(t *testing.T, c *localcluster.Cluster, name, bin, kubeconfig string, env []string, args ...string) {
	t.Helper()
	args = append([]string{"--kubeconfig=" + kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0"}, args...)
	if err := c.StartProcess(name, bin, args, env); err != nil {
		t.Fatal(err)
	}
	LogsOnFailure(t, c, 40, name)
	t.Cleanup(func() {
		if err := c.Stop(name); err != nil {
			t.Error(err)
		}
	})
}

// ExpectManagerPods waits until the manager Deployment's pods, n of them, run image on the
// real node, Ready by their probes, and returns them.
func ExpectManagerPods(t *testing.T, k8s client.Client, namespace, deployment, image string, n int, timeout time.Duration) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	NewWithT(t).Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: deployment}, d)).To(Succeed())
		pods = ReadyPods(g, k8s, namespace, d.Spec.Selector.MatchLabels)
		g.Expect(pods).To(HaveLen(n), func() string {
			return "Ready manager pods; all of them: " + DescribePods(k8s, namespace, d.Spec.Selector.MatchLabels)
		})
		for _, p := range pods {
			g.Expect(p.Spec.NodeName).To(Equal(localcluster.NodeName))
			g.Expect(p.Status.ContainerStatuses).To(HaveLen(1))
			// The pod's, not the status': the node reports an image by the first name it pulled it as.
			g.Expect(p.Spec.Containers[0].Image).To(Equal(image))
			g.Expect(p.Status.ContainerStatuses[0].State.Running).NotTo(BeNil())
			g.Expect(p.Status.ContainerStatuses[0].Ready).To(BeTrue())
			g.Expect(p.Spec.Containers[0].ReadinessProbe).NotTo(BeNil())
			g.Expect(p.Spec.Containers[0].LivenessProbe).NotTo(BeNil())
		}
	}, timeout, 250*time.Millisecond).Should(Succeed())
	return pods
}

// DescribePods says, for a failure's message, what each pod matching labels shows: phase,
// conditions and containers' states, so that a pod that never gets Ready says why.
func DescribePods(k8s client.Client, namespace string, labels map[string]string) string {
	pods := &corev1.PodList{}
	if err := k8s.List(context.Background(), pods, client.InNamespace(namespace), client.MatchingLabels(labels)); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, p := range pods.Items {
		fmt.Fprintf(&b, "\n%s on %q: %s", p.Name, p.Spec.NodeName, p.Status.Phase)
		for _, c := range p.Status.Conditions {
			fmt.Fprintf(&b, "; %s=%s %s %s", c.Type, c.Status, c.Reason, c.Message)
		}
		for _, c := range p.Status.ContainerStatuses {
			fmt.Fprintf(&b, "; container %s ready=%t restarts=%d %+v last %+v", c.Name, c.Ready, c.RestartCount, c.State, c.LastTerminationState)
		}
	}
	return b.String()
}
