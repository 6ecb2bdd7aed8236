#!/usr/bin/env bash
# bench/rows/run.sh: docsift's line items on the 200 hand-labelled SROIE receipts, scored by
# `docsift eval` against bench/rows/sroie_rows.jsonl (the 100 the row reader is developed on) and
# bench/rows/sroie_rows_heldout.jsonl (100 held out from its tuning), each apart (README.md beside
# this file).
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
dev=$root/bench/rows/sroie_rows.jsonl
held_out=$root/bench/rows/sroie_rows_heldout.jsonl
out=${OUT:-$(mktemp -d /tmp/rows-run.XXXXXX)}

imgs=$(mktemp -d /tmp/rows-imgs.XXXXXX)
trap 'rm -rf "$imgs"' EXIT
cat "$dev" "$held_out" | grep -o '"image_file": "[^"]*"' | cut -d'"' -f4 | while read -r f; do
  [ -f "$receipts/$f" ] || { echo "rows/run.sh: $receipts/$f is not there" >&2; exit 2; }
  ln -s "$receipts/$f" "$imgs/$f"
done

# 199.jpg is a damaged JPEG: read what decodes, as every receipt bench does.
"$docsift" run "$imgs" --follow-links --set input.accept_truncated=true --out "$out" "$@"
# The truth gives rows only, so the fields block eval prints scores every field as N/A: ignore it.
# eval scores only the pages its truth names, so each file is scored apart.
echo "== development (sroie_rows.jsonl)"
"$docsift" eval "$out/results.jsonl" "$dev" --report "$out/rows-eval.json"
echo "== held out (sroie_rows_heldout.jsonl)"
"$docsift" eval "$out/results.jsonl" "$held_out" --report "$out/rows-eval-heldout.json"
echo "rows/run.sh: run in $out, reports $out/rows-eval.json and $out/rows-eval-heldout.json"
