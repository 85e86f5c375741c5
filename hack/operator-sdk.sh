#!/usr/bin/env bash
# Builds operator-sdk's CLI from the Go module proxy at the version pinned in
# hack/tools/operator-sdk/go.mod, as operator-sdk's own Makefile builds it (CGO_ENABLED=0, the
# containers_image_openpgp tag, the version stamped into internal/version), caches it under bin/
# keyed by version and points bin/operator-sdk at it. Prints the binary's path.
#
#   hack/operator-sdk.sh                  the CLI
#   hack/operator-sdk.sh --scorecard-test the scorecard-test binary of the same module version,
#                                         which the scorecard-test image carries
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/hack/lib/modules.sh"
mod="$root/hack/tools/operator-sdk"
pkg=github.com/operator-framework/operator-sdk
version=$(module_version "$mod" "$pkg")

cmd=operator-sdk main=cmd/operator-sdk
[[ "${1:-}" == "--scorecard-test" ]] && cmd=scorecard-test main=images/scorecard-test
bin="$root/bin/$cmd-$version"
if [[ ! -x "$bin" || -n "${RESOLVE_ONLY:-}" ]]; then
  # The variables and values operator-sdk's Makefile stamps: the release's tag and commit (the
  # module proxy records the commit of the tag), and its Makefile's Kubernetes and image versions.
  download=$(module_download "$mod" "$pkg")
  src=$(json_field Dir <<<"$download")
  commit=$(json_field Hash <<<"$download")
  k8s=$(sed -n 's/^export K8S_VERSION = //p' "$src/Makefile")
  image=$(sed -n 's/^export IMAGE_VERSION = //p' "$src/Makefile")
  resolved "version=$version" "commit=$commit" "kubernetes=$k8s" "image=$image" && exit 0
  echo "building $cmd $version from the Go module proxy (first time only, several minutes)" >&2
  v="$pkg/internal/version"
  (cd "$mod" && CGO_ENABLED=0 go build -trimpath -tags containers_image_openpgp -ldflags "-s -w \
    -X $v.Version=$version -X $v.GitVersion=$version -X $v.GitCommit=$commit \
    -X $v.KubernetesVersion=v$k8s -X $v.ImageVersion=$image" -o "$bin.tmp" "$pkg/$main")
  mv "$bin.tmp" "$bin"
fi
if [[ "$cmd" == operator-sdk ]]; then
  ln -sfn "$cmd-$version" "$root/bin/operator-sdk"
fi
echo "$bin"
