#!/usr/bin/env bash
# Builds Operator Lifecycle Manager's binaries (the olm and catalog operators, packageserver, and
# the cpb and copy-content utilities its bundle unpack Jobs and catalog pods run) and
# operator-registry's opm from the Go module proxy (no release downloads, no images) and caches
# them under bin/, keyed by version, next to OLM's CRDs and deploy/ manifests. Prints the
# directory that holds them all, which make olm-up, make test-olm and make test-olm-node pass on
# as OLM_ASSETS.
#
# The versions are those pinned in hack/tools/olm/go.mod and hack/tools/opm/go.mod.
#
#   hack/olm.sh         OLM's binaries, CRDs and manifests, opm and grpc_health_probe
#   hack/olm.sh --opm   only opm and grpc_health_probe, which the local stand-in of opm's image
#                       carries (internal/devtools/imagebuild)
#
# GOARCH cross-compiles them all (static, no cgo) into a directory of that architecture:
# GOARCH=arm64 hack/olm.sh --opm makes the opm stand-in's arm64 image.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/hack/lib/modules.sh"
olm_module=github.com/operator-framework/operator-lifecycle-manager
olm_version=$(module_version "$root/hack/tools/olm" "$olm_module")
opm_version=$(module_version "$root/hack/tools/opm" github.com/operator-framework/operator-registry)
dir="$root/bin/olm/${olm_version#v}-$(go env GOOS)-$(go env GOARCH)"
if [[ -n "${RESOLVE_ONLY:-}" ]]; then
  src=$(module_dir "$root/hack/tools/olm" "$olm_module")
  resolved "olm=$olm_version" "opm=$opm_version" "olm_crds=$src/deploy/chart/crds" && exit 0
fi
mkdir -p "$dir"

# OLM reports OLMVersion in its logs and operator status; its own Makefile stamps it the same way.
olm_ldflags="-s -w -X github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion=$olm_version"
# The binaries OLM's image carries, by their package in OLM's module (its Dockerfile and
# .goreleaser.yml): cpb is what a bundle unpack Job copies into the bundle image to copy the
# bundle out; copy-content serves catalog pods that extract their content.
olm_cmds=(olm:cmd/olm catalog:cmd/catalog package-server:cmd/package-server copy-content:cmd/copy-content cpb:util/cpb)
[[ "${1:-}" == "--opm" ]] && olm_cmds=()
missing=() pkgs=()
for entry in "${olm_cmds[@]}"; do
  cmd=${entry%%:*}
  [[ -x "$dir/$cmd" ]] || { missing+=("$cmd"); pkgs+=("$olm_module/${entry#*:}"); }
done
if (( ${#missing[@]} )); then
  echo "building OLM's ${missing[*]} $olm_version (first time only, several minutes)" >&2
  # One go build for them all, as for the control plane; each binary is named by its package.
  tmp=$(mktemp -d "$dir/build.XXXXXX")
  (cd "$root/hack/tools/olm" && CGO_ENABLED=0 go build -trimpath -tags json1 -ldflags "$olm_ldflags" -o "$tmp/" "${pkgs[@]}")
  for cmd in "${missing[@]}"; do mv "$tmp/$cmd" "$dir/$cmd"; done
  rmdir "$tmp"
fi

# opm serves file-based catalogs only here, so it builds without cgo: its sqlite code (for the
# deprecated sqlite indexes) is never reached. The tags are operator-registry's own.
if [[ ! -x "$dir/opm" || "$(cat "$dir/opm.version" 2>/dev/null)" != "$opm_version" ]]; then
  echo "building opm $opm_version (first time only)" >&2
  (cd "$root/hack/tools/opm" && CGO_ENABLED=0 go build -trimpath -tags json1,containers_image_openpgp \
    -ldflags "-s -w -X github.com/operator-framework/operator-registry/cmd/opm/version.opmVersion=$opm_version" \
    -o "$dir/opm.tmp" github.com/operator-framework/operator-registry/cmd/opm)
  mv "$dir/opm.tmp" "$dir/opm"
  echo "$opm_version" > "$dir/opm.version"
fi

# grpc_health_probe, which opm's image ships for the probes of OLM's catalog pods.
if [[ ! -x "$dir/grpc_health_probe" ]]; then
  echo "building grpc_health_probe (first time only)" >&2
  (cd "$root/hack/tools/opm" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" \
    -o "$dir/grpc_health_probe.tmp" github.com/grpc-ecosystem/grpc-health-probe)
  mv "$dir/grpc_health_probe.tmp" "$dir/grpc_health_probe"
fi

if [[ "${1:-}" == "--opm" ]]; then
  echo "$dir"
  exit 0
fi

# OLM's CRDs, as its Helm chart installs them, and deploy/ with the chart itself and the values
# of OLM's upstream release, which internal/devtools/localolm renders to deploy OLM as pods, from the
# same module version.
if [[ ! -d "$dir/crds" || ! -d "$dir/deploy" ]]; then
  src=$(module_dir "$root/hack/tools/olm" "$olm_module")
fi
if [[ ! -d "$dir/crds" ]]; then
  mkdir -p "$dir/crds.tmp"
  cp "$src"/deploy/chart/crds/*.yaml "$dir/crds.tmp/"
  chmod -R u+w "$dir/crds.tmp"
  mv "$dir/crds.tmp" "$dir/crds"
fi
if [[ ! -d "$dir/deploy" ]]; then
  mkdir -p "$dir/deploy.tmp/upstream"
  cp -R "$src/deploy/chart" "$dir/deploy.tmp/chart"
  cp "$src/deploy/upstream/values.yaml" "$dir/deploy.tmp/upstream/values.yaml"
  chmod -R u+w "$dir/deploy.tmp"
  mv "$dir/deploy.tmp" "$dir/deploy"
fi

echo "$dir"
