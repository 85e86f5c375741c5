#!/usr/bin/env bash
# Copies the CRD and the RBAC rules that `make manifests` generates, the alert rules and the
# dashboard into the Helm chart, whose templates render them from files/: the chart never holds a
# hand-edited copy. Only changed files are replaced (hack/sync-files.sh): a helm install reading
# the chart meanwhile never finds files/ empty.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
files="$root/charts/demo-operator/files"
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT

mkdir -p "$new/crds" "$new/rbac" "$new/restraint" "$new/prometheus" "$new/grafana"
cp "$root"/config/crd/bases/*.yaml "$new/crds/"
cp "$root/config/rbac/role.yaml" "$root/config/rbac/leader_election_role.yaml" \
  "$root/config/rbac/metrics_auth_role.yaml" "$root/config/rbac/metrics_reader_role.yaml" \
  "$root"/config/rbac/demoapplication_*_role.yaml "$new/rbac/"
# Each controller's rules alone, for a release that turns the other off.
cp "$root/config/pod-labeler-only/role.yaml" "$new/rbac/pod-labeler-only.yaml"
cp "$root/config/demoapplication-only/role.yaml" "$new/rbac/demoapplication-only.yaml"
# The read of Secrets, granted only with Secret-driven rollouts.
cp "$root/config/config-rollout-secrets/role.yaml" "$new/rbac/config-rollout-secrets.yaml"
cp "$root/config/restraint/policy.yaml" "$new/restraint/"
cp "$root/config/prometheus/rules.yaml" "$new/prometheus/"
cp "$root/config/grafana/demo-operator.json" "$new/grafana/"
for dir in crds rbac restraint prometheus grafana; do
  "$root/hack/sync-files.sh" --delete "$new/$dir" "$files/$dir"
done
