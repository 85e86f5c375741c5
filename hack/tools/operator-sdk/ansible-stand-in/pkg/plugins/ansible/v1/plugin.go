// Package v1 is a STAND-IN for the ansible plugin of
// github.com/operator-framework/ansible-operator-plugins (see ../../../../go.mod): a plugin that
// names itself and the project version it supports and scaffolds nothing. It must support a
// project version, since the CLI refuses to start with a plugin that supports none.
package v1

import (
	"sigs.k8s.io/kubebuilder/v4/pkg/config"
	cfgv3 "sigs.k8s.io/kubebuilder/v4/pkg/config/v3"
	"sigs.k8s.io/kubebuilder/v4/pkg/plugin"
)

// Plugin is the stand-in of the ansible plugin, under the real one's name and version.
type Plugin struct{}

var _ plugin.Plugin = Plugin{}

// Name is the real plugin's name: base.ansible.sdk.operatorframework.io.
func (Plugin) Name() string { return "base.ansible.sdk.operatorframework.io" }

// Version is the real plugin's version, v1.
func (Plugin) Version() plugin.Version { return plugin.Version{Number: 1} }

// SupportedProjectVersions is project version 3, as for every plugin of the CLI.
func (Plugin) SupportedProjectVersions() []config.Version { return []config.Version{cfgv3.Version} }
