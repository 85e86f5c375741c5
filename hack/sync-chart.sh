#!/usr/bin/env bash
# Copies the CRD and the RBAC rules that `make manifests` generates into the Helm chart, whose
# templates render them from files/: the chart never holds a hand-edited copy.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
files="$root/charts/demo-operator/files"

rm -rf "$files/crds" "$files/rbac"
mkdir -p "$files/crds" "$files/rbac"
cp "$root"/config/crd/bases/*.yaml "$files/crds/"
cp "$root/config/rbac/role.yaml" "$root/config/rbac/leader_election_role.yaml" \
  "$root/config/rbac/metrics_auth_role.yaml" "$root/config/rbac/metrics_reader_role.yaml" \
  "$root"/config/rbac/demoapplication_*_role.yaml "$files/rbac/"
