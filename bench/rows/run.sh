#!/usr/bin/env bash
# bench/rows/run.sh: docsift's line items on the 100 hand-labelled SROIE receipts, scored by
# `docsift eval` against bench/rows/sroie_rows.jsonl (README.md beside this file).
#
#   bench/rows/run.sh                 # the default reading (ocr.recognizer: auto)
#   bench/rows/run.sh --set ocr.recognizer=tesseract
#
# Extra arguments go to `docsift run`. RECEIPTS=dir reads another copy of the receipts,
# OUT=dir keeps the run there (a fresh temporary folder otherwise), DOCSIFT=path another binary.
# The images are linked from a temporary folder, never copied into the project.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
receipts=${RECEIPTS:-$root/../shared/data/sroie-train}
docsift=${DOCSIFT:-$root/build/docsift}
truth=$root/bench/rows/sroie_rows.jsonl
out=${OUT:-$(mktemp -d /tmp/rows-run.XXXXXX)}

imgs=$(mktemp -d /tmp/rows-imgs.XXXXXX)
trap 'rm -rf "$imgs"' EXIT
grep -o '"image_file": "[^"]*"' "$truth" | cut -d'"' -f4 | while read -r f; do
  [ -f "$receipts/$f" ] || { echo "rows/run.sh: $receipts/$f is not there" >&2; exit 2; }
  ln -s "$receipts/$f" "$imgs/$f"
done

# 199.jpg is a damaged JPEG: read what decodes, as every receipt bench does.
"$docsift" run "$imgs" --follow-links --set input.accept_truncated=true --out "$out" "$@"
# The truth gives rows only, so the fields block eval prints scores every field as N/A: ignore it.
"$docsift" eval "$out/results.jsonl" "$truth" --report "$out/rows-eval.json"
echo "rows/run.sh: run in $out, report $out/rows-eval.json"
