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

package manager

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// TestLeaderElectionUnderShippedRole runs the manager as the operator's ServiceAccount with
// the shipped RBAC alone (config/rbac's ClusterRole and leader-election Role) on a real API
// server: it wins its Lease, renews it and lets it go; the Role gives the token no other
// Lease, and neither does it lifted to a ClusterRole, as OLM does in AllNamespaces mode.
func TestLeaderElectionUnderShippedRole(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	env, cfg, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	operatorCfg, err := testenv.AsOperator(ctx, cfg)
	g.Expect(err).NotTo(HaveOccurred())
	operator, err := client.New(operatorCfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())

	role := &rbacv1.Role{}
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "rbac", "leader_election_role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.UnmarshalStrict(data, role)).To(Succeed())
	role.Namespace = testenv.OperatorNamespace
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: testenv.OperatorServiceAccount, Namespace: testenv.OperatorNamespace}}
	g.Expect(admin.Create(ctx, role)).To(Succeed())
	g.Expect(admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: role.Namespace},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, Subjects: subjects})).To(Succeed())

	// Someone else's Lease beside the operator's, and the control plane's.
	lease := func(namespace, name string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name + "-holder"), LeaseDurationSeconds: ptr.To[int32](15)}}
	}
	neighbour := lease(testenv.OperatorNamespace, "another-operator.example.com")
	controlPlane := lease("kube-system", "kube-controller-manager")
	g.Expect(admin.Create(ctx, neighbour)).To(Succeed())
	g.Expect(admin.Create(ctx, controlPlane)).To(Succeed())

	opts := DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	opts.LeaderElect, opts.LeaderElectionNS = true, testenv.OperatorNamespace
	mgr, err := New(operatorCfg, opts, func(o *ctrl.Options) { o.Controller.SkipNameValidation = ptr.To(true) })
	g.Expect(err).NotTo(HaveOccurred())
	mgrCtx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- mgr.Start(mgrCtx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			g.Expect(<-done).To(Succeed())
		}
	}
	t.Cleanup(stop)

	t.Run("the manager wins and renews its Lease", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(mgr.Elected(), 30*time.Second).Should(BeClosed())
		own := &coordinationv1.Lease{}
		key := client.ObjectKey{Namespace: testenv.OperatorNamespace, Name: DefaultLeaderElectionID}
		g.Expect(admin.Get(ctx, key, own)).To(Succeed())
		g.Expect(ptr.Deref(own.Spec.HolderIdentity, "")).NotTo(BeEmpty())
		first := own.Spec.RenewTime.DeepCopy()
		g.Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, key, own)).To(Succeed())
			g.Expect(own.Spec.RenewTime.After(first.Time)).To(BeTrue())
		}, 3*opts.RetryPeriod+5*time.Second).Should(Succeed(), "the leader did not renew its Lease")
	})

	// refused expects err to be the RBAC authorizer's refusal.
	refused := func(g Gomega, what string, err error) {
		g.ExpectWithOffset(1, apierrors.IsForbidden(err)).To(BeTrue(), "%s: not refused: %v", what, err)
		g.ExpectWithOffset(1, err.Error()).To(ContainSubstring("cannot"))
	}
	t.Run("the Role grants no other Lease", func(t *testing.T) {
		g := NewWithT(t)
		for _, other := range []*coordinationv1.Lease{neighbour, controlPlane} {
			refused(g, "get "+other.Name, operator.Get(ctx, client.ObjectKeyFromObject(other), &coordinationv1.Lease{}))
			taken := other.DeepCopy()
			taken.Spec.HolderIdentity = ptr.To("demo-operator")
			refused(g, "update "+other.Name, operator.Update(ctx, taken))
			refused(g, "patch "+other.Name, operator.Patch(ctx, taken, client.MergeFrom(other)))
			refused(g, "delete "+other.Name, operator.Delete(ctx, other))
		}
		refused(g, "list", operator.List(ctx, &coordinationv1.LeaseList{}, client.InNamespace(testenv.OperatorNamespace)))
		own := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: testenv.OperatorNamespace, Name: DefaultLeaderElectionID}}
		refused(g, "delete its own", operator.Delete(ctx, own))
	})

	t.Run("lifted to a ClusterRole, as OLM does in AllNamespaces mode, it grants no control-plane Lease", func(t *testing.T) {
		g := NewWithT(t)
		lifted := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "lifted-leader-election"}, Rules: role.Rules}
		g.Expect(admin.Create(ctx, lifted)).To(Succeed())
		g.Expect(admin.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: lifted.Name},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: lifted.Name}, Subjects: subjects})).To(Succeed())
		// A Lease of the operator's name elsewhere is now its, as the binding says: wait for that.
		g.Eventually(func() error {
			return client.IgnoreNotFound(operator.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: DefaultLeaderElectionID}, &coordinationv1.Lease{}))
		}, 10*time.Second).Should(Succeed())
		refused(g, "get", operator.Get(ctx, client.ObjectKeyFromObject(controlPlane), &coordinationv1.Lease{}))
		taken := controlPlane.DeepCopy()
		taken.Spec.HolderIdentity = ptr.To("demo-operator")
		refused(g, "update", operator.Update(ctx, taken))
		refused(g, "delete", operator.Delete(ctx, controlPlane))
		refused(g, "list", operator.List(ctx, &coordinationv1.LeaseList{}))
	})

	t.Run("the manager lets its Lease go when it stops", func(t *testing.T) {
		g := NewWithT(t)
		stop()
		own := &coordinationv1.Lease{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: testenv.OperatorNamespace, Name: DefaultLeaderElectionID}, own)).To(Succeed())
		g.Expect(ptr.Deref(own.Spec.HolderIdentity, "")).To(BeEmpty())
	})
}
