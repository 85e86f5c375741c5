// STAND-IN, not the real module. The Go module proxy refuses
// github.com/operator-framework/ansible-operator-plugins, which operator-sdk's CLI imports only
// to register the ansible plugin (internal/cmd/operator-sdk/cli/cli.go). The tools module
// ../go.mod replaces it by this one so that the CLI builds; `operator-sdk init --plugins
// ansible` is the only thing lost, and this project is a Go operator.
module github.com/operator-framework/ansible-operator-plugins

go 1.26.0

require sigs.k8s.io/kubebuilder/v4 v4.6.0

require (
	github.com/gobuffalo/flect v1.0.3 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/spf13/afero v1.14.0 // indirect
	github.com/spf13/pflag v1.0.6 // indirect
	golang.org/x/mod v0.24.0 // indirect
	golang.org/x/sync v0.14.0 // indirect
	golang.org/x/text v0.25.0 // indirect
	golang.org/x/tools v0.33.0 // indirect
	sigs.k8s.io/yaml v1.4.0 // indirect
)
