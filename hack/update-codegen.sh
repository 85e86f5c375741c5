#!/usr/bin/env bash
# Generates the typed client of the DemoApplication API from api/v1 into pkg/generated:
# apply configurations, clientset, listers and informers. The generators are called
# directly (not through code-generator's kube_codegen.sh) because kube_codegen.sh expects
# an api/<group>/<version> layout, while this kubebuilder project keeps api/<version>.
#
#   hack/update-codegen.sh            regenerate pkg/generated
#   hack/update-codegen.sh DIR        write the same tree into DIR instead (staleness test)
#
# The generators come from bin/ (make codegen-tools builds them at the versions pinned in
# hack/tools/kube/go.mod); CODEGEN_BIN overrides that directory.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CODEGEN_BIN:-$root/bin}
out_dir=${1:-$root/pkg/generated}
module=github.com/cmft/demo-operator
out_pkg=$module/pkg/generated
input=$module/api/v1
header=$root/hack/boilerplate.go.txt

cd "$root"
# Start from an empty tree, so a type or version that goes away leaves no stale files.
rm -rf "$out_dir"
mkdir -p "$out_dir"

"$bin/applyconfiguration-gen" \
  --go-header-file "$header" \
  --output-dir "$out_dir/applyconfiguration" \
  --output-pkg "$out_pkg/applyconfiguration" \
  "$input"

"$bin/client-gen" \
  --go-header-file "$header" \
  --output-dir "$out_dir/clientset" \
  --output-pkg "$out_pkg/clientset" \
  --clientset-name versioned \
  --apply-configuration-package "$out_pkg/applyconfiguration" \
  --input-base "" \
  --input "$input"

"$bin/lister-gen" \
  --go-header-file "$header" \
  --output-dir "$out_dir/listers" \
  --output-pkg "$out_pkg/listers" \
  "$input"

"$bin/informer-gen" \
  --go-header-file "$header" \
  --output-dir "$out_dir/informers" \
  --output-pkg "$out_pkg/informers" \
  --versioned-clientset-package "$out_pkg/clientset/versioned" \
  --listers-package "$out_pkg/listers" \
  "$input"
