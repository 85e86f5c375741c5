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

package demoapplication

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/controllers/wellknown"
)

// DefaultsAnnotation on a Deployment names the defaults its pod template was built with. A
// Deployment an earlier operator built has none: it keeps the template that operator gave it
// until a change rolls its pods anyway, so that upgrading the operator restarts no pod.
const DefaultsAnnotation = "paas.cmft.com/defaults"

// defaultsVersion names this operator's defaults: a pause before the main container stops
// (preStop), the hash of the configuration the pods read (ConfigHashAnnotation), and a
// disruption budget for an app of more than one pod.
const defaultsVersion = "2"

// withDefaults settles whether desired, the app's Deployment as this operator builds it,
// carries this operator's defaults. It does, and says so in DefaultsAnnotation, unless live
// (the app's Deployment, nil when it has none) was built before them and its template would
// otherwise not change: then desired keeps live's template, and the app gets the defaults
// with its next rollout.
func withDefaults(app *paasv1.DemoApplication, live *appsv1.Deployment, desired *appsv1ac.DeploymentApplyConfiguration) (before bool, err error) {
	if live != nil && metav1.IsControlledBy(live, app) && live.Annotations[DefaultsAnnotation] != defaultsVersion {
		owned, err := appsv1ac.ExtractDeployment(live, wellknown.FieldManager)
		if err != nil {
			return false, err
		}
		template := withoutDefaults(&app.Spec, desired.Spec.Template)
		if owned.Spec != nil && equality.Semantic.DeepEqual(owned.Spec.Template, template) {
			desired.Spec.Template = template
			return true, nil
		}
	}
	desired.WithAnnotations(map[string]string{DefaultsAnnotation: defaultsVersion})
	return false, nil
}

// withoutDefaults returns a copy of template without the defaults of defaultsVersion that
// spec does not ask for itself: the main container's default pause and the config hash.
func withoutDefaults(spec *paasv1.DemoApplicationSpec, template *corev1ac.PodTemplateSpecApplyConfiguration) *corev1ac.PodTemplateSpecApplyConfiguration {
	out := *template
	if template.ObjectMetaApplyConfiguration != nil {
		meta := *template.ObjectMetaApplyConfiguration
		meta.Annotations = maps.Clone(meta.Annotations)
		delete(meta.Annotations, ConfigHashAnnotation)
		if len(meta.Annotations) == 0 {
			meta.Annotations = nil
		}
		out.ObjectMetaApplyConfiguration = &meta
	}
	if spec.Lifecycle == nil || spec.Lifecycle.PreStop == nil {
		podSpec := *template.Spec
		podSpec.Containers = slices.Clone(podSpec.Containers)
		for i := range podSpec.Containers {
			if name := podSpec.Containers[i].Name; name != nil && *name == ContainerName {
				podSpec.Containers[i].Lifecycle = nil
			}
		}
		out.Spec = &podSpec
	}
	return &out
}
