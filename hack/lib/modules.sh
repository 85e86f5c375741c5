# Sourced by the hack/ scripts that build tools from the Go module proxy: what a tools module
# under hack/tools/ pins, read so that it works with an empty module cache (a new machine).

# module_version <tools module dir> <module path>: the version the tools module requires.
# Needs only go.mod files, which `go list -m` downloads itself.
module_version() {
  (cd "$1" && go list -m -f '{{.Version}}' "$2")
}

# module_download <tools module dir> <module path>: `go mod download -json` of the pinned
# version. `go list -m -f '{{.Dir}}'` names no directory until something has downloaded the
# module's source; this downloads it first, so Dir is always set. Asked for path@version, go
# also reports Origin (the commit of the version's tag), which it omits for a bare path.
module_download() {
  (cd "$1" && go mod download -json "$2@$(module_version "$1" "$2")")
}

# json_field <name>: the first string field of that name in the JSON on stdin
# (Dir, Version, or Origin's Hash in module_download's output).
json_field() {
  sed -n "s/^[[:space:]]*\"$1\": \"\([^\"]*\)\".*/\1/p" | head -n 1
}

# module_dir <tools module dir> <module path>: the pinned module's source directory.
module_dir() {
  local dir
  dir=$(module_download "$1" "$2" | json_field Dir)
  [[ -d "$dir" ]] || { echo "no source directory for $2 in $1's module cache" >&2; return 1; }
  echo "$dir"
}

# RESOLVE_ONLY=1 makes a tool script print what it resolved (name=value lines, see resolved)
# and exit before building: test/tools checks each against an empty module cache.
resolved() {
  [[ -n "${RESOLVE_ONLY:-}" ]] || return 1
  printf '%s\n' "$@"
}
