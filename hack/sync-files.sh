#!/usr/bin/env bash
# sync-files.sh [--delete] FROM TO: puts into TO each file of FROM whose content differs, by a
# rename, so that a build or a test reading TO meanwhile (make deploy runs make manifests beside
# the image builds) sees the old file or the new, never half of one; an unchanged file keeps its
# time. --delete also removes the files of TO that FROM lacks.
set -euo pipefail

delete=false
if [[ ${1:-} == --delete ]]; then
  delete=true
  shift
fi
from=$1 to=$2

mkdir -p "$to"
for src in "$from"/*; do
  dst="$to/$(basename "$src")"
  cmp -s "$src" "$dst" && continue
  cp "$src" "$dst.$$.tmp"
  mv "$dst.$$.tmp" "$dst"
done
if $delete; then
  for dst in "$to"/*; do
    [[ -e $dst ]] || continue
    [[ -e "$from/$(basename "$dst")" ]] || rm -f "$dst"
  done
fi
