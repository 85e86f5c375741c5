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

package client_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
	"github.com/cmft/demo-operator/internal/test/testenv"
	paasv1ac "github.com/cmft/demo-operator/pkg/generated/applyconfiguration/api/v1"
	"github.com/cmft/demo-operator/pkg/generated/informers/externalversions"
)

func TestClientsetCreateGetListWatch(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	apps := clientset.PaasV1().DemoApplications(testenv.NewNamespace(t, k8s, "client-"))

	w, err := apps.Watch(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	defer w.Stop()

	created, err := apps.Create(ctx, builder.DemoApplication("", "web", builder.Ports()), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	// The API server applies the CRD's defaults, so the typed object round-trips them.
	g.Expect(created.Spec.Replica).To(HaveValue(BeEquivalentTo(2)))

	got, err := apps.Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.UID).To(Equal(created.UID))
	g.Expect(got.Spec.Image).To(Equal("nginx:1.27"))

	list, err := apps.List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(list.Items).To(ConsistOf(HaveField("Name", "web")))

	expectEvent(g, w, watch.Added, "web")
	g.Expect(apps.Delete(ctx, "web", metav1.DeleteOptions{})).To(Succeed())
	expectEvent(g, w, watch.Deleted, "web")

	_, err = apps.Get(ctx, "web", metav1.GetOptions{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "get after delete: %v", err)
}

// expectEvent waits for the next event of w and checks its type and object.
func expectEvent(g *WithT, w watch.Interface, eventType watch.EventType, name string) {
	var ev watch.Event
	g.Eventually(w.ResultChan(), 10*time.Second).Should(Receive(&ev))
	g.Expect(ev.Type).To(Equal(eventType))
	g.Expect(ev.Object).To(BeAssignableToTypeOf(&paasv1.DemoApplication{}))
	g.Expect(ev.Object.(*paasv1.DemoApplication).Name).To(Equal(name))
}

func TestInformerAndLister(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	ns := testenv.NewNamespace(t, k8s, "client-")
	apps := clientset.PaasV1().DemoApplications(ns)

	g.Expect(apps.Create(ctx, builder.DemoApplication("", "before-start", builder.Ports()), metav1.CreateOptions{})).Error().NotTo(HaveOccurred())

	factory := externalversions.NewSharedInformerFactoryWithOptions(clientset, 0, externalversions.WithNamespace(ns))
	// Lister registers the informer with the factory, so it must come before Start.
	lister := factory.Paas().V1().DemoApplications().Lister()
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel()
	for typ, synced := range factory.WaitForCacheSync(ctx.Done()) {
		g.Expect(synced).To(BeTrue(), "cache of %v synced", typ)
	}

	g.Expect(apps.Create(ctx, builder.DemoApplication("", "after-start", builder.Ports()), metav1.CreateOptions{})).Error().NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
		list, err := lister.DemoApplications(ns).List(labels.Everything())
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(list).To(ConsistOf(HaveField("Name", "before-start"), HaveField("Name", "after-start")))
	}, 10*time.Second).Should(Succeed())

	got, err := lister.DemoApplications(ns).Get("after-start")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Spec.Image).To(Equal("nginx:1.27"))

	g.Expect(apps.Delete(ctx, "before-start", metav1.DeleteOptions{})).To(Succeed())
	g.Eventually(func(g Gomega) {
		_, err := lister.DemoApplications(ns).Get("before-start")
		// The lister's NotFound names the group and resource, through paasv1.Resource.
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "lister get after delete: %v", err)
		g.Expect(err).To(MatchError(ContainSubstring("demoapplication.paas.cmft.com")))
	}, 10*time.Second).Should(Succeed())
}

func TestApplyConfigurationTakesOwnership(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	apps := clientset.PaasV1().DemoApplications(testenv.NewNamespace(t, k8s, "client-"))

	desired := paasv1ac.DemoApplication("web", "").
		WithSpec(paasv1ac.DemoApplicationSpec().
			WithImage("nginx:1.27").
			WithReplica(3).
			WithPorts(paasv1ac.DemoApplicationPort().WithName("http").WithPort(80)))
	applied, err := apps.Apply(ctx, desired, metav1.ApplyOptions{FieldManager: "portal"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(applied.Spec.Replica).To(HaveValue(BeEquivalentTo(3)))
	g.Expect(applied.Spec.Ports).To(ConsistOf(HaveField("Port", BeEquivalentTo(80))))
	g.Expect(managedFields(applied, "portal")).To(And(
		ContainSubstring(`"f:image"`), ContainSubstring(`"f:replica"`), ContainSubstring(`"f:ports"`)))

	// Another manager cannot take a field portal owns without forcing...
	_, err = apps.Apply(ctx, paasv1ac.DemoApplication("web", "").
		WithSpec(paasv1ac.DemoApplicationSpec().WithImage("nginx:1.27").WithReplica(5)),
		metav1.ApplyOptions{FieldManager: "cli"})
	g.Expect(apierrors.IsConflict(err)).To(BeTrue(), "apply of an owned field without force: %v", err)

	// ...and with force it moves that field, and only that one, to itself.
	forced, err := apps.Apply(ctx, paasv1ac.DemoApplication("web", "").
		WithSpec(paasv1ac.DemoApplicationSpec().WithReplica(5)),
		metav1.ApplyOptions{FieldManager: "cli", Force: true})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(forced.Spec.Replica).To(HaveValue(BeEquivalentTo(5)))
	g.Expect(managedFields(forced, "cli")).To(ContainSubstring(`"f:replica"`))
	g.Expect(managedFields(forced, "portal")).To(And(
		ContainSubstring(`"f:image"`), Not(ContainSubstring(`"f:replica"`))))

	// Status goes through its own subresource and field set, as an operator would write it.
	status, err := apps.ApplyStatus(ctx, paasv1ac.DemoApplication("web", "").
		WithStatus(paasv1ac.DemoApplicationStatus().WithObservedGeneration(forced.Generation).WithReplicas(5)),
		metav1.ApplyOptions{FieldManager: "operator", Force: true})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(status.Status.Replicas).To(BeEquivalentTo(5))
	g.Expect(status.Spec.Replica).To(HaveValue(BeEquivalentTo(5)))
	g.Expect(managedFields(status, "operator")).To(And(
		ContainSubstring(`"f:status"`), ContainSubstring(`"f:replicas"`), Not(ContainSubstring(`"f:spec"`))))
}

// managedFields returns the fields manager owns in obj through server-side apply, as JSON,
// or "" when it owns none.
func managedFields(obj metav1.Object, manager string) string {
	for _, entry := range obj.GetManagedFields() {
		if entry.Manager == manager && entry.Operation == metav1.ManagedFieldsOperationApply && entry.FieldsV1 != nil {
			return entry.FieldsV1.GetRawString()
		}
	}
	return ""
}
