#!/usr/bin/env bash
# bench/rows/run.sh: docsift's line items on 300 hand-labelled SROIE receipts, scored by
# `docsift eval` against each truth apart (README.md beside this file):
# bench/rows/sroie_rows.jsonl and sroie_rows_second.jsonl, the 200 development receipts the row
# reader is developed on, and sroie_rows_unseen.jsonl, 100 of the 427 receipts of
# bench/ocr/get_receipts.sh, held out from its tuning.
#
#   bench/rows/run.sh                 # the default reading (ocr.recognizer: auto)
#   bench/rows/run.sh --set ocr.recognizer=tesseract
#
# Extra arguments go to `docsift run`. RECEIPTS=dir reads another copy of the 200,
# RECEIPTS_UNSEEN=dir of the 427 (without them the held-out 100 are skipped, and it says so), OUT=dir keeps the run there (a fresh temporary folder otherwise), DOCSIFT=path another binary.
# The images are linked from a temporary folder, never copied into the project.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
receipts=${RECEIPTS:-$root/../shared/data/sroie-train}
docsift=${DOCSIFT:-$root/build/docsift}
unseen=${RECEIPTS_UNSEEN:-$root/.deps/receipts-unseen}
dev=$root/bench/rows/sroie_rows.jsonl
second=$root/bench/rows/sroie_rows_second.jsonl
held_out=$root/bench/rows/sroie_rows_unseen.jsonl
out=${OUT:-$(mktemp -d /tmp/rows-run.XXXXXX)}

names() { grep -ho '"image_file": "[^"]*"' "$@" | cut -d'"' -f4; }
# The 427 are named as the 200 are (NNN.jpg) but are other receipts: each set its own folder.
imgs=$(mktemp -d /tmp/rows-imgs.XXXXXX)
trap 'rm -rf "$imgs"' EXIT
mkdir "$imgs/dev" "$imgs/unseen"
for f in $(names "$dev" "$second"); do
  [ -f "$receipts/$f" ] || { echo "rows/run.sh: $receipts/$f is not there" >&2; exit 2; }
  ln -s "$receipts/$f" "$imgs/dev/$f"
done
have_unseen=1
for f in $(names "$held_out"); do
  [ -f "$unseen/$f" ] || { have_unseen=0; break; }
  ln -s "$unseen/$f" "$imgs/unseen/$f"
done
if [ "$have_unseen" = 0 ]; then
  rm -rf "$imgs/unseen"
  echo "rows/run.sh: the held-out 100 are skipped: $unseen lacks them (bench/ocr/get_receipts.sh fetches them)" >&2
fi

# 199.jpg is a damaged JPEG: read what decodes, as every receipt bench does.
"$docsift" run "$imgs" --recursive --follow-links --set input.accept_truncated=true --out "$out" "$@"
# The truth gives rows only, so the fields block eval prints scores every field as N/A: ignore it.
# eval scores only the pages its truth names, so each file is scored apart.
# Results name each page by its path under the folder (dev/NNN.jpg); eval matches truth by file name,
# so each set's results are scored apart.
for set in dev unseen; do
  [ -d "$imgs/$set" ] || continue
  grep "\"file\":\"$set/" "$out/results.jsonl" >"$out/results-$set.jsonl" || true
done
echo "== development, the first 100 (sroie_rows.jsonl)"
"$docsift" eval "$out/results-dev.jsonl" "$dev" --report "$out/rows-eval.json"
echo "== development, the second 100 (sroie_rows_second.jsonl)"
"$docsift" eval "$out/results-dev.jsonl" "$second" --report "$out/rows-eval-second.json"
if [ "$have_unseen" = 1 ]; then
  echo "== held out (sroie_rows_unseen.jsonl)"
  "$docsift" eval "$out/results-unseen.jsonl" "$held_out" --report "$out/rows-eval-unseen.json"
fi
echo "rows/run.sh: run in $out, reports $out/rows-eval*.json"
