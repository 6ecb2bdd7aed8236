#!/bin/bash
# The layer rule holds for the real tree, and an upward include breaks the build's check:
#   tests/layers_test.sh BUILD_DIR SOURCE_DIR
# A copy of lib/docsift gets `#include "docsift/batch/run.h"` in a file of model/; the check that
# every build runs first (scripts/check_layers.sh, with the build's own layer table) must refuse it
# and name the file, the line and the layer.
set -euo pipefail
build=$1 source=$2
table=$build/lib/layers.txt
check=$source/scripts/check_layers.sh
"$check" "$table" "$source/lib/docsift"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$source/lib/docsift" "$tmp/docsift"
victim=$tmp/docsift/model/decoder.cpp
[[ -f $victim ]] || { echo "FAIL: $victim is missing; pick another model/ file" >&2; exit 1; }
printf '#include "docsift/batch/run.h"\n' >>"$victim"
line=$(wc -l <"$victim")
if "$check" "$table" "$tmp/docsift" 2>"$tmp/err"; then
  echo "FAIL: an include of batch/ in model/ passed the layer check" >&2
  exit 1
fi
grep -q "model/decoder.cpp:$line: layer 'model' may not include docsift/batch/run.h" "$tmp/err" || {
  echo "FAIL: unexpected message:" >&2
  cat "$tmp/err" >&2
  exit 1
}
echo "ok: the real tree passes; model/ including batch/ is refused: $(cat "$tmp/err")"

# docs/architecture.md's picture names, for every layer, exactly the layers the build lets it use.
doc=$source/docs/architecture.md
words() { printf '%s\n' $1 | sort | tr '\n' ' '; }  # a list of names, sorted, one space apart
picture=$(awk '/^```$/ { inside = !inside; next } inside' "$doc" |
  awk '/^[a-z]/ { if (row) print row; row = $0; next } /^ +[a-z]/ { row = row " " $0 } END { if (row) print row }')
while IFS= read -r line; do
  layer=${line%%:*}
  want=$(words "${line#*:}")
  row=$(grep -E "^$layer " <<<"$picture" || true)
  [[ -n $row ]] || { echo "FAIL: docs/architecture.md's picture has no row for layer '$layer'" >&2; exit 1; }
  got=$(words "$(sed 's/.*→//; s/([^)]*)//g; s/nothing//; s/,/ /g' <<<"$row")")
  if [[ $got != "$want" ]]; then
    echo "FAIL: docs/architecture.md says $layer uses [$got]; lib/CMakeLists.txt says [$want]" >&2
    exit 1
  fi
done <"$table"
echo "ok: docs/architecture.md's picture matches the layer table ($(grep -c . "$table") layers)"
