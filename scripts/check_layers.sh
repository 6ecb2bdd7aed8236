#!/bin/bash
# Fails when a file in lib/docsift includes a header from a layer its own layer may not use.
#   scripts/check_layers.sh LAYERS_TXT LIB_DOCSIFT_DIR
# LAYERS_TXT is written by lib/CMakeLists.txt from its docsift_layer() calls, one line per layer:
# "name: uses...". A layer may include its own headers and those of every layer it uses, directly
# or through another (the closure of the USES lists). The folder is the layer; the files directly
# in lib/docsift are "base". The build runs this before compiling any layer (docs/architecture.md).
set -euo pipefail
table=$1
root=${2%/}
[[ -r $table ]] || { echo "check_layers: cannot read the layer table $table" >&2; exit 2; }
[[ -d $root ]] || { echo "check_layers: no folder $root" >&2; exit 2; }

declare -A uses
while IFS= read -r line; do
  [[ -z $line ]] && continue
  uses[${line%%:*}]=${line#*:}
done <"$table"

# The closure of a layer's uses, as " a b c " for word matching.
allowed_of() {
  local -A seen=()
  local stack=("$1") layer dep
  while ((${#stack[@]})); do
    layer=${stack[-1]}
    unset 'stack[-1]'
    [[ -n ${seen[$layer]:-} ]] && continue
    seen[$layer]=1
    for dep in ${uses[$layer]:-}; do stack+=("$dep"); done
  done
  echo " ${!seen[*]} "
}

declare -A allowed
for layer in "${!uses[@]}"; do allowed[$layer]=$(allowed_of "$layer"); done

status=0
while IFS= read -r -d '' file; do
  rel=${file#"$root"/}
  if [[ $rel == */* ]]; then layer=${rel%%/*}; else layer=base; fi
  if [[ -z ${uses[$layer]+set} ]]; then
    echo "$file: folder '$layer' is not a layer in lib/CMakeLists.txt (add a docsift_layer line for it)" >&2
    status=1
    continue
  fi
  while IFS=: read -r lineno header; do
    header=${header#*\"docsift/}
    header=${header%%\"*}
    if [[ $header == */* ]]; then target=${header%%/*}; else target=base; fi
    if [[ ${allowed[$layer]} != *" $target "* ]]; then
      echo "$file:$lineno: layer '$layer' may not include docsift/$header (layer '$target'); '$layer' uses:${uses[$layer]} (docs/architecture.md)" >&2
      status=1
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"docsift/' "$file" | cut -d: -f1,2- | sed 's/:[[:space:]]*#[[:space:]]*include[[:space:]]*/:/')
done < <(find "$root" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \) -print0)
exit $status
