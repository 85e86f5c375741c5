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
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The restraint check: the ValidatingAdmissionPolicies of config/restraint bind the manager's
// ServiceAccount by name, so a policy installed for another name, or none at all (OLM installs
// none, the chart's restraint.enabled=false), leaves the manager unrestrained without a word.
// At start-up the manager tries, dry run, a write each policy of its enabled controllers must
// refuse, and says what it found in a metric, its log and, when unrestrained, a Warning Event
// on its ServiceAccount.

// The values of restraintEnforced.
const (
	restraintUnknown = -1
	restraintAbsent  = 0
	restraintInForce = 1
)

const (
	// ReasonUnrestrained is the reason of the Event that says the manager is unrestrained.
	ReasonUnrestrained = "Unrestrained"
	restraintProbeName = "demo-operator-restraint-probe"
	// restraintCheckLimit bounds the check's retries while the API server cannot answer.
	restraintCheckLimit = 2 * time.Minute
)

// restraintEnforced says whether the API server restrains the manager.
var restraintEnforced = prometheus.NewGauge(prometheus.GaugeOpts{Name: "demo_operator_restraint_enforced", Help: restraintHelp})

const restraintHelp = "1 when the API server refused the manager the dry-run writes its restraint policies forbid (checked at start-up), " +
	"0 when it admitted one: no restraint policy is installed for the manager's identity; -1 until the check ends, or when it could not tell."

func init() {
	restraintEnforced.Set(restraintUnknown)
	metrics.Registry.MustRegister(restraintEnforced)
}

// restraintCheck is the manager's runnable that checks, on every replica, leader or not, that
// the API server restrains it.
type restraintCheck struct {
	client   client.Client
	recorder events.EventRecorder
	log      logr.Logger
	// objects and pods say which policies to probe: those of the enabled controllers, the
	// only ones whose writes RBAC lets through to admission.
	objects, pods bool
	// namespace is where to probe when not the ServiceAccount's own: the first watched one.
	namespace string
}

// NeedLeaderElection is false: a follower holds the same token, and its metric is scraped too.
func (c *restraintCheck) NeedLeaderElection() bool { return false }

// Start runs the check once, retrying while the API server cannot answer, and returns: a
// failed check is reported, never fatal.
func (c *restraintCheck) Start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, restraintCheckLimit)
	defer cancel()
	var verdict restraintVerdict
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		verdict, err = c.check(ctx)
		if err != nil {
			c.log.V(1).Info("restraint check failed, retrying", "error", err.Error())
		}
		return err == nil, nil
	})
	if err != nil {
		c.log.Error(err, "could not tell whether the API server restrains the manager")
		return nil
	}
	c.report(verdict)
	return nil
}

// restraintVerdict is what the probes found.
type restraintVerdict struct {
	// account is the manager's ServiceAccount, nil when it runs as another kind of user.
	account *types.NamespacedName
	// admitted names the policies whose forbidden write the API server admitted.
	admitted []string
	// probed counts the policies probed.
	probed int
}

// check asks the API server who the manager is, then makes each probe's write.
func (c *restraintCheck) check(ctx context.Context) (restraintVerdict, error) {
	var v restraintVerdict
	review := &authenticationv1.SelfSubjectReview{}
	if err := c.client.Create(ctx, review); err != nil {
		return v, fmt.Errorf("asking the API server who the manager is: %w", err)
	}
	ns, name, err := serviceaccount.SplitUsername(review.Status.UserInfo.Username)
	if err != nil {
		// A user's kubeconfig (make run): the policies bind the ServiceAccount alone.
		return v, nil
	}
	v.account = &types.NamespacedName{Namespace: ns, Name: name}
	probeNS := ns
	if c.namespace != "" {
		probeNS = c.namespace
	}
	probes := map[string]func(context.Context) (bool, error){}
	if c.objects {
		probes["restraint-objects"] = func(ctx context.Context) (bool, error) { return c.probeObjects(ctx, probeNS) }
	}
	if c.pods {
		probes["restraint-pods"] = func(ctx context.Context) (bool, error) { return c.probePods(ctx, ns) }
	}
	for policy, probe := range probes {
		ran, err := probe(ctx)
		if err != nil && !refusedByPolicy(err) {
			return v, fmt.Errorf("probing %s: %w", policy, err)
		}
		if !ran {
			continue
		}
		v.probed++
		if err == nil {
			v.admitted = append(v.admitted, policy)
		}
	}
	return v, nil
}

// probeObjects creates, dry run, a Service neither labelled nor controlled as the operator's
// are: restraint-objects refuses it.
func (c *restraintCheck) probeObjects(ctx context.Context, namespace string) (bool, error) {
	return true, c.client.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: restraintProbeName},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}, client.DryRunAll)
}

// probePods annotates, dry run, the manager's own pod (named by its hostname, as a pod's is
// unless its spec says otherwise): restraint-pods refuses any change but the pod-name label.
// Outside a pod there is none to probe.
func (c *restraintCheck) probePods(ctx context.Context, namespace string) (bool, error) {
	hostname, err := os.Hostname()
	if err != nil {
		return false, nil
	}
	// Patched without a read: the manager caches pods as metadata, and a typed read would
	// start a cache of whole pods.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: hostname}}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+restraintProbeName+`":"true"}}}`))
	if err := c.client.Patch(ctx, pod, patch, client.DryRunAll); apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return true, err
	}
	return true, nil
}

// refusedByPolicy tells a refusal by a ValidatingAdmissionPolicy from RBAC's, or any other.
func refusedByPolicy(err error) bool {
	return (apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) && strings.Contains(err.Error(), "ValidatingAdmissionPolicy")
}

// report sets the metric and says the verdict in the log, and in an Event when unrestrained.
func (c *restraintCheck) report(v restraintVerdict) {
	switch {
	case v.account == nil:
		restraintEnforced.Set(restraintAbsent)
		c.log.Error(errors.New("the manager does not run as a ServiceAccount"),
			"the API server does not restrain the manager: its restraint policies bind the operator's ServiceAccount alone")
	case v.probed == 0:
		restraintEnforced.Set(restraintUnknown)
		c.log.Info("could not probe the restraint: no write of the enabled controllers to try", "serviceAccount", v.account.String())
	case len(v.admitted) > 0:
		restraintEnforced.Set(restraintAbsent)
		msg := fmt.Sprintf("The API server admitted dry-run writes that the restraint policies %s refuse to %s: "+
			"no restraint is installed for this ServiceAccount, whose token can then do whatever its RBAC allows. "+
			"Install config/restraint (make deploy), the chart with restraint.enabled=true, or, with OLM, the policies as docs/operate/security.md says.",
			strings.Join(v.admitted, " and "), v.account)
		c.log.Error(errors.New("unrestrained"), msg, "serviceAccount", v.account.String())
		account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: v.account.Namespace, Name: v.account.Name}}
		c.recorder.Eventf(account, nil, corev1.EventTypeWarning, ReasonUnrestrained, "CheckRestraint", msg)
	default:
		restraintEnforced.Set(restraintInForce)
		c.log.Info("the API server restrains the manager", "serviceAccount", v.account.String(), "policies", v.probed)
	}
}
