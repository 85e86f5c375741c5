#!/usr/bin/env bash
# Copies the CRD and the RBAC rules that `make manifests` generates, the alert rules and the
# dashboard into the Helm chart, whose templates render them from files/: the chart never holds a
# hand-edited copy.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
files="$root/charts/demo-operator/files"

rm -rf "$files/crds" "$files/rbac" "$files/restraint" "$files/prometheus" "$files/grafana"
mkdir -p "$files/crds" "$files/rbac" "$files/restraint" "$files/prometheus" "$files/grafana"
cp "$root"/config/crd/bases/*.yaml "$files/crds/"
cp "$root/config/rbac/role.yaml" "$root/config/rbac/leader_election_role.yaml" \
  "$root/config/rbac/metrics_auth_role.yaml" "$root/config/rbac/metrics_reader_role.yaml" \
  "$root"/config/rbac/demoapplication_*_role.yaml "$files/rbac/"
# Each controller's rules alone, for a release that turns the other off.
cp "$root/config/pod-labeler-only/role.yaml" "$files/rbac/pod-labeler-only.yaml"
cp "$root/config/demoapplication-only/role.yaml" "$files/rbac/demoapplication-only.yaml"
# The read of Secrets, granted only with Secret-driven rollouts.
cp "$root/config/config-rollout-secrets/role.yaml" "$files/rbac/config-rollout-secrets.yaml"
cp "$root/config/restraint/policy.yaml" "$files/restraint/"
cp "$root/config/prometheus/rules.yaml" "$files/prometheus/"
cp "$root/config/grafana/demo-operator.json" "$files/grafana/"
