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
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Channel is the one channel of the catalog RunBundle serves, operator-sdk's name for it.
const Channel = "operator-sdk-run-bundle"

// NewCatalog is the file-based catalog of one rendered bundle: its package, whose default
// channel is Channel, and Channel with the bundle as its only entry.
func NewCatalog(bundle declcfg.Bundle) (*declcfg.DeclarativeConfig, error) {
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: bundle.Package, DefaultChannel: Channel}},
		Channels: []declcfg.Channel{{Schema: declcfg.SchemaChannel, Package: bundle.Package, Name: Channel,
			Entries: []declcfg.ChannelEntry{{Name: bundle.Name}}}},
		Bundles: []declcfg.Bundle{bundle},
	}
	return cfg, validate(cfg)
}

// AddHead adds bundle to cfg (a catalog of NewCatalog) as the new head of Channel, replacing
// the current head, as `operator-sdk run bundle-upgrade` does.
func AddHead(cfg *declcfg.DeclarativeConfig, bundle declcfg.Bundle) error {
	if len(cfg.Channels) != 1 || cfg.Channels[0].Name != Channel {
		return fmt.Errorf("the catalog is not one of run bundle: want the one channel %s", Channel)
	}
	channel := &cfg.Channels[0]
	if bundle.Package != channel.Package {
		return fmt.Errorf("bundle %s is of package %s, the catalog serves %s", bundle.Name, bundle.Package, channel.Package)
	}
	if slices.ContainsFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == bundle.Name }) {
		return fmt.Errorf("bundle %s is already in the catalog", bundle.Name)
	}
	head, err := Head(cfg)
	if err != nil {
		return err
	}
	channel.Entries = append(channel.Entries, declcfg.ChannelEntry{Name: bundle.Name, Replaces: head})
	cfg.Bundles = append(cfg.Bundles, bundle)
	return validate(cfg)
}

// Head is the head of Channel, the one channel of a catalog of NewCatalog.
func Head(cfg *declcfg.DeclarativeConfig) (string, error) {
	if len(cfg.Channels) != 1 {
		return "", fmt.Errorf("the catalog has %d channels, want 1", len(cfg.Channels))
	}
	h := heads(cfg.Channels[0].Entries)
	if len(h) != 1 {
		return "", fmt.Errorf("channel %s has heads %v, want one", cfg.Channels[0].Name, h)
	}
	return h[0], nil
}

// validate checks cfg as opm serve would load it.
func validate(cfg *declcfg.DeclarativeConfig) error {
	m, err := declcfg.ConvertToModel(*cfg)
	if err != nil {
		return err
	}
	return m.Validate()
}

// marshalCatalog is cfg as catalog.yaml, as `opm render` writes it.
func marshalCatalog(cfg *declcfg.DeclarativeConfig) (string, error) {
	var out bytes.Buffer
	if err := declcfg.WriteYAML(*cfg, &out); err != nil {
		return "", err
	}
	return out.String(), nil
}

// unmarshalCatalog reads catalog.yaml back.
func unmarshalCatalog(data string) (*declcfg.DeclarativeConfig, error) {
	return declcfg.LoadReader(strings.NewReader(data))
}

// InstallMode is operator-sdk's --install-mode: AllNamespaces, OwnNamespace,
// SingleNamespace=<ns> or MultiNamespace=<ns>,<ns>...; empty lets the CSV choose.
type InstallMode struct {
	Type operatorsv1alpha1.InstallModeType
	// Namespaces are the targets of SingleNamespace and MultiNamespace.
	Namespaces []string
}

func (m InstallMode) String() string {
	if len(m.Namespaces) == 0 {
		return string(m.Type)
	}
	return string(m.Type) + "=" + strings.Join(m.Namespaces, ",")
}

// ParseInstallMode reads the --install-mode flag.
func ParseInstallMode(s string) (InstallMode, error) {
	typ, targets, hasTargets := strings.Cut(s, "=")
	m := InstallMode{Type: operatorsv1alpha1.InstallModeType(typ)}
	if hasTargets {
		m.Namespaces = strings.Split(targets, ",")
	}
	switch m.Type {
	case "", operatorsv1alpha1.InstallModeTypeAllNamespaces, operatorsv1alpha1.InstallModeTypeOwnNamespace:
		if hasTargets {
			return InstallMode{}, fmt.Errorf("install mode %s takes no namespaces", typ)
		}
	case operatorsv1alpha1.InstallModeTypeSingleNamespace:
		if len(m.Namespaces) != 1 || m.Namespaces[0] == "" {
			return InstallMode{}, fmt.Errorf("install mode SingleNamespace needs one namespace: SingleNamespace=<namespace>")
		}
	case operatorsv1alpha1.InstallModeTypeMultiNamespace:
		if len(m.Namespaces) < 2 || slices.Contains(m.Namespaces, "") {
			return InstallMode{}, fmt.Errorf("install mode MultiNamespace needs two namespaces or more: MultiNamespace=<ns>,<ns>")
		}
	default:
		return InstallMode{}, fmt.Errorf("unknown install mode %q: want AllNamespaces, OwnNamespace, SingleNamespace=<ns> or MultiNamespace=<ns>,<ns>", typ)
	}
	return m, nil
}

// resolveInstallMode checks that the CSV supports mode in namespace, or, when mode is empty,
// picks AllNamespaces if the CSV supports it and OwnNamespace otherwise, as operator-sdk does.
func resolveInstallMode(csv *operatorsv1alpha1.ClusterServiceVersion, mode InstallMode, namespace string) (InstallMode, error) {
	supports := func(t operatorsv1alpha1.InstallModeType) bool {
		return slices.ContainsFunc(csv.Spec.InstallModes, func(m operatorsv1alpha1.InstallMode) bool { return m.Type == t && m.Supported })
	}
	if mode.Type == "" {
		mode.Type = operatorsv1alpha1.InstallModeTypeOwnNamespace
		if supports(operatorsv1alpha1.InstallModeTypeAllNamespaces) {
			mode.Type = operatorsv1alpha1.InstallModeTypeAllNamespaces
		}
	}
	typ := mode.Type
	// A single target that is the operator's own namespace is OwnNamespace to OLM.
	if typ == operatorsv1alpha1.InstallModeTypeSingleNamespace && mode.Namespaces[0] == namespace {
		typ = operatorsv1alpha1.InstallModeTypeOwnNamespace
	}
	if !supports(typ) {
		return InstallMode{}, fmt.Errorf("%s does not support install mode %s", csv.Name, typ)
	}
	return mode, nil
}

// operatorGroupTargets are the target namespaces of the OperatorGroup for mode, the operator
// running in namespace: none (all namespaces) for AllNamespaces.
func operatorGroupTargets(mode InstallMode, namespace string) []string {
	switch mode.Type {
	case operatorsv1alpha1.InstallModeTypeOwnNamespace:
		return []string{namespace}
	case operatorsv1alpha1.InstallModeTypeSingleNamespace, operatorsv1alpha1.InstallModeTypeMultiNamespace:
		return mode.Namespaces
	}
	return nil
}

// injectedBundle is an entry of the CatalogSource's injected-bundles annotation, in
// operator-sdk's format.
type injectedBundle struct {
	ImageTag string `json:"imageTag"`
	Mode     string `json:"mode"`
}

// appendInjected adds image to the injected-bundles annotation's value.
func appendInjected(annotation, image string) (string, error) {
	var bundles []injectedBundle
	if annotation != "" {
		if err := json.Unmarshal([]byte(annotation), &bundles); err != nil {
			return "", fmt.Errorf("annotation %s: %w", AnnotationInjectedBundles, err)
		}
	}
	out, err := json.Marshal(append(bundles, injectedBundle{ImageTag: image, Mode: "replaces"}))
	return string(out), err
}

// registryPod runs `opm serve` of the index image on the ConfigMap's catalog for source,
// with a securityContext the restricted Pod Security Standard admits.
func registryPod(source *operatorsv1alpha1.CatalogSource, configMap, indexImage string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: source.Namespace, GenerateName: source.Name + "-", Labels: maps.Clone(source.Labels)},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "registry-grpc", Image: indexImage,
				// opm serve without --cache-dir builds its cache afresh in /tmp at each start.
				Command: []string{"/bin/opm", "serve", "/configs", "--port", strconv.Itoa(grpcPort)},
				Ports:   []corev1.ContainerPort{{Name: "grpc", ContainerPort: grpcPort}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
					Exec: &corev1.ExecAction{Command: []string{"grpc_health_probe", "-addr=:" + strconv.Itoa(grpcPort)}}}},
				// The file alone: opm would read the ConfigMap volume's ..data directory as a catalog too.
				VolumeMounts: []corev1.VolumeMount{{Name: "catalog", MountPath: "/configs/" + catalogFile, SubPath: catalogFile},
					{Name: "tmp", MountPath: "/tmp"}},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
			Volumes: []corev1.Volume{
				{Name: "catalog", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
}
