#!/bin/bash
# The OCR engine: accuracy on samples/ (which its rules were written against) and on an unseen set
# (another layout, other label wordings, scan noise: bench/ocr/make_unseen.py), with and without
# deskewing; then pages per second and peak RSS on this machine next to the tiny test VLM on the
# CPU, in the same script. Needs a built docsift and the Python venv (scripts/pyenv.sh).
#   bench/ocr/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${DOCSIFT:-$ROOT/build/docsift}
OUT=${OUT:-$ROOT/build/bench/ocr}
UNSEEN=$OUT/unseen
rm -rf "$OUT" && mkdir -p "$OUT"
"$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/ocr/make_unseen.py" "$UNSEEN" 30 >/dev/null

# run NAME DIR ARGS...: one docsift run, timed; prints "accuracy seconds peak_rss_MiB pages".
run() {
  local name=$1 dir=$2
  shift 2
  /usr/bin/time -f '%e %M' -o "$OUT/$name.time" "$BIN" run "$dir" --out "$OUT/$name" --quiet "$@"
  local acc pages
  acc=$("$BIN" eval "$OUT/$name/predictions.csv" "$dir/ground_truth.csv" | awk '/^overall/ {print $2}')
  pages=$(wc -l <"$OUT/$name/results.jsonl")
  read -r secs kb <"$OUT/$name.time"
  echo "$acc $secs $((kb / 1024)) $pages"
}

printf '%-34s %9s %9s %9s %12s\n' "run" "accuracy" "seconds" "pages/s" "peak RSS MiB"
row() {
  local label=$1 acc secs mib pages
  read -r acc secs mib pages
  printf '%-34s %9s %9s %9.2f %12s\n' "$label" "$acc" "$secs" "$(echo "$pages / $secs" | bc -l)" "$mib"
  echo "$pages / $secs" | bc -l >"$OUT/$2.rate"
}
run ocr-samples "$ROOT/samples" | row "ocr, samples/ (20)" ocr
run ocr-unseen "$UNSEEN" | row "ocr, unseen (30)" ocr-unseen
run ocr-samples-nodeskew "$ROOT/samples" --set ocr.deskew=false | row "ocr without deskew, samples/" x1
run ocr-unseen-nodeskew "$UNSEEN" --set ocr.deskew=false | row "ocr without deskew, unseen" x2
run vlm-samples "$ROOT/samples" --model "$ROOT/tests/fixtures/internvl/hf" --device cpu --set model.dtype=float32 |
  row "tiny VLM (random weights), samples/" vlm
printf '\nOCR pages/s over the tiny VLM'"'"'s on samples/: %.2fx\n' "$(echo "$(cat "$OUT/ocr.rate") / $(cat "$OUT/vlm.rate")" | bc -l)"
