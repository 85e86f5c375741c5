#!/usr/bin/env bash
# Builds the control-plane binaries from the Go module proxy (release downloads are not
# reachable everywhere this project runs) and caches them under bin/, keyed by version.
# Prints the directory that holds them, ready for KUBEBUILDER_ASSETS.
#
#   hack/control-plane.sh            kube-apiserver + etcd (what envtest needs) and kubectl, which
#                                    test/install runs as users install with it, and the
#                                    chart's test image runs
#   hack/control-plane.sh --all      also kube-controller-manager and kube-scheduler
#   hack/control-plane.sh --cluster  --all plus kwok, which runs the local cluster's nodes
#   hack/control-plane.sh --node     --cluster plus the real node's kubelet and kube-proxy, and
#                                    CoreDNS, which serves its cluster DNS
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/hack/lib/modules.sh"
kube_version=$(module_version "$root/hack/tools/kube" k8s.io/kubernetes)
etcd_version=$(module_version "$root/hack/tools/etcd" go.etcd.io/etcd/server/v3)
dir="$root/bin/k8s/${kube_version#v}-$(go env GOOS)-$(go env GOARCH)"

mode=${1:-}
resolved "kubernetes=$kube_version" "etcd=$etcd_version" \
  "kwok=$(module_version "$root/hack/tools/kube" sigs.k8s.io/kwok)" \
  "coredns=$(module_version "$root/hack/tools/kube" github.com/coredns/coredns)" && exit 0
kube_cmds=(kube-apiserver kubectl)
[[ "$mode" == "--all" || "$mode" == "--cluster" || "$mode" == "--node" ]] && kube_cmds+=(kube-controller-manager kube-scheduler)
[[ "$mode" == "--node" ]] && kube_cmds+=(kubelet kube-proxy)

mkdir -p "$dir"
minor=${kube_version#v1.}; minor=${minor%%.*}
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kube_version \
 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
 -X k8s.io/component-base/version.gitTreeState=clean"

missing=()
for cmd in "${kube_cmds[@]}"; do
  [[ -x "$dir/$cmd" ]] || missing+=("$cmd")
done
if (( ${#missing[@]} )); then
  echo "building ${missing[*]} $kube_version (first time only, several minutes)" >&2
  # One go build for them all links each binary while the next packages compile.
  tmp=$(mktemp -d "$dir/build.XXXXXX")
  (cd "$root/hack/tools/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${missing[@]/#/k8s.io/kubernetes/cmd/}")
  for cmd in "${missing[@]}"; do mv "$tmp/$cmd" "$dir/$cmd"; done
  rmdir "$tmp"
fi

if [[ ! -x "$dir/etcd" || "$(cat "$dir/etcd.version" 2>/dev/null)" != "$etcd_version" ]]; then
  echo "building etcd $etcd_version (first time only)" >&2
  (cd "$root/hack/tools/etcd" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/etcd.tmp" ./cmd/etcd)
  mv "$dir/etcd.tmp" "$dir/etcd"
  echo "$etcd_version" > "$dir/etcd.version"
fi

if [[ "$mode" == "--cluster" || "$mode" == "--node" ]]; then
  kwok_version=$(module_version "$root/hack/tools/kube" sigs.k8s.io/kwok)
  if [[ ! -x "$dir/kwok" || "$(cat "$dir/kwok.version" 2>/dev/null)" != "$kwok_version" ]]; then
    echo "building kwok $kwok_version (first time only)" >&2
    (cd "$root/hack/tools/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/kwok.tmp" sigs.k8s.io/kwok/cmd/kwok)
    mv "$dir/kwok.tmp" "$dir/kwok"
    echo "$kwok_version" > "$dir/kwok.version"
  fi
fi

if [[ "$mode" == "--node" ]]; then
  coredns_version=$(module_version "$root/hack/tools/kube" github.com/coredns/coredns)
  if [[ ! -x "$dir/coredns" || "$(cat "$dir/coredns.version" 2>/dev/null)" != "$coredns_version" ]]; then
    echo "building CoreDNS $coredns_version (first time only)" >&2
    (cd "$root/hack/tools/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/coredns.tmp" ./cmd/coredns)
    mv "$dir/coredns.tmp" "$dir/coredns"
    echo "$coredns_version" > "$dir/coredns.version"
  fi
fi

echo "$dir"
