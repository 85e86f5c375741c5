//go:build olm

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

package olm

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/internal/devtools/olm"
	"github.com/cmft/demo-operator/internal/test/framework"
	"github.com/cmft/demo-operator/internal/test/testenv"
)

const bundleDir = "../../bundle"

// TestBundleInstallModes installs bundle/ the way `operator-sdk run bundle` does, once for
// each install mode its CSV supports: a catalog of that one bundle (here served by opm from
// the bundle directory, with its manifests embedded and no bundle image to unpack), an
// OperatorGroup for the mode, a Subscription and its InstallPlan approved. Then OLM's
// ServiceAccount runs the manager with the namespaces OLM targets.
//
// Applying the CSV alone is not enough on OLM: the CSV stays Pending until its ServiceAccount
// and permissions exist, and only an InstallPlan creates those from the CSV.
func TestBundleInstallModes(t *testing.T) {
	csv := bundleCSV(t, bundleDir)
	catalogDir := filepath.Join(t.TempDir(), "catalog")
	if err := olm.GenerateCatalog(olm.CatalogOptions{BundleDir: bundleDir, CatalogDir: filepath.Join(catalogDir, "bundle"),
		BundleImage: "ghcr.io/cmft/demo-operator-bundle:v" + csv.Spec.Version.String()}); err != nil {
		t.Fatal(err)
	}
	catalogDir = withoutBundleImages(t, catalogDir)
	pkg := loadPackage(t, catalogDir)
	// Each mode's CSV provides the CRD to the namespaces it targets; OLM refuses two
	// OperatorGroups that provide one API to the same namespace, and AllNamespaces overlaps
	// every other, so the modes run one after the other.
	for _, mode := range csv.Spec.InstallModes {
		if !mode.Supported {
			continue
		}
		t.Run(string(mode.Type), func(t *testing.T) { installInMode(t, csv, pkg.Name, catalogDir, mode.Type) })
	}
}

func installInMode(t *testing.T, bundle *operatorsv1alpha1.ClusterServiceVersion, pkg, catalogDir string, mode operatorsv1alpha1.InstallModeType) {
	g := NewWithT(t)
	framework.LogsOnFailure(t, cluster, 30, "olm-operator", "catalog-operator")
	operatorNS := testenv.NewNamespace(t, k8s, "olm-operator-", testenv.ControllersRun)
	// watched gets the workloads the manager must serve; the others are targets too.
	var targets []string
	var watched string
	switch mode {
	case operatorsv1alpha1.InstallModeTypeOwnNamespace:
		targets = []string{operatorNS}
	case operatorsv1alpha1.InstallModeTypeSingleNamespace:
		targets = []string{testenv.NewNamespace(t, k8s, "olm-target-", testenv.ControllersRun)}
	case operatorsv1alpha1.InstallModeTypeMultiNamespace:
		targets = []string{testenv.NewNamespace(t, k8s, "olm-target-", testenv.ControllersRun), testenv.NewNamespace(t, k8s, "olm-target-", testenv.ControllersRun)}
	case operatorsv1alpha1.InstallModeTypeAllNamespaces:
	default:
		t.Fatalf("unknown install mode %s", mode)
	}
	if len(targets) > 0 {
		watched = targets[len(targets)-1]
	} else {
		watched = testenv.NewNamespace(t, k8s, "olm-any-", testenv.ControllersRun)
	}
	steps.CreateOperatorGroup(t, operatorNS, targets...)
	source := serveCatalog(t, operatorNS, catalogDir)
	sub := subscribe(t, operatorNS, source, operatorNS, pkg, "", "")
	steps.Approve(t, operatorNS, bundle.Name)
	csv := steps.WaitSucceeded(t, operatorNS, bundle.Name)

	deploy := steps.OperatorDeployment(NewWithT(t), csv)
	if len(targets) > 0 {
		g.Expect(strings.Split(targetNamespaces(deploy), ",")).To(ConsistOf(targets))
	} else {
		g.Expect(targetNamespaces(deploy)).To(BeEmpty())
	}
	sa := serviceAccountOf(csv)
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: sa}, &corev1.ServiceAccount{})).To(Succeed())
	roles, clusterRoles := &rbacv1.RoleList{}, &rbacv1.ClusterRoleList{}
	g.Expect(k8s.List(context.Background(), roles, ownedByCSV(csv))).To(Succeed())
	g.Expect(k8s.List(context.Background(), clusterRoles, ownedByCSV(csv))).To(Succeed())
	g.Expect(len(roles.Items) + len(clusterRoles.Items)).To(BeNumerically(">=", 2))
	t.Logf("OLM made Deployment %s (olm.targetNamespaces=%q), ServiceAccount %s, %d Roles, %d ClusterRoles",
		deploy.Name, targetNamespaces(deploy), sa, len(roles.Items), len(clusterRoles.Items))

	// What the CSV asks, and nothing more: leases where the manager runs, its controllers' rules
	// everywhere, and no deleting of Deployments, which it leaves to the garbage collector.
	g.Expect(can(t, operatorNS, sa, "create", "coordination.k8s.io", "leases", operatorNS)).To(BeTrue())
	g.Expect(can(t, operatorNS, sa, "patch", "", "pods", watched)).To(BeTrue())
	g.Expect(can(t, operatorNS, sa, "create", "apps", "deployments", watched)).To(BeTrue())
	g.Expect(can(t, operatorNS, sa, "delete", "apps", "deployments", watched)).To(BeFalse())
	g.Expect(can(t, operatorNS, sa, "create", "", "secrets", watched)).To(BeFalse())

	startManagerAs(t, "manager-"+operatorNS, operatorNS, sa, []string{"WATCH_NAMESPACE=" + targetNamespaces(deploy)})
	steps.ExpectServed(t, createDemoApp(t, watched, "web"))
	expectPodLabeled(t, watched)
	if len(targets) > 0 {
		expectIgnored(t, createDemoApp(t, testenv.NewNamespace(t, k8s, "olm-unwatched-", testenv.ControllersRun), "web"))
	}
	uninstall(t, sub, csv)
}

// TestCSVAppliedAlone shows why TestBundleInstallModes goes through an InstallPlan: a CSV
// applied by hand, with its OperatorGroup and CRD in place, stays Pending, because OLM's olm
// operator only checks the ServiceAccount and permissions the CSV names, and nothing but an
// InstallPlan's steps creates them.
func TestCSVAppliedAlone(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8s, "olm-csv-alone-", testenv.ControllersRun)
	steps.CreateOperatorGroup(t, ns, ns)
	csv := bundleCSV(t, bundleDir)
	csv.Namespace = ns
	if err := k8s.Create(ctx, csv); err != nil {
		t.Fatal(err)
	}
	sa := serviceAccountOf(csv)
	NewWithT(t).Consistently(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(csv), csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Or(BeEmpty(), Equal(operatorsv1alpha1.CSVPhasePending)))
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: sa}, &corev1.ServiceAccount{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "OLM created ServiceAccount %s: %v", sa, err)
	}, 10*time.Second, 250*time.Millisecond).Should(Succeed())
	g := NewWithT(t)
	g.Expect(csv.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonRequirementsNotMet))
	g.Expect(csv.Status.RequirementStatus).To(ContainElement(And(
		HaveField("Kind", "ServiceAccount"), HaveField("Name", sa),
		HaveField("Status", operatorsv1alpha1.RequirementStatusReasonNotPresent))))
	t.Logf("CSV %s stays %s: %s", csv.Name, csv.Status.Phase, csv.Status.Message)
	if err := k8s.Delete(ctx, csv); err != nil {
		t.Fatal(err)
	}
}
