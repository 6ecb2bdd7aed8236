#!/bin/bash
# The OCR engine (no model weights) on real documents and on our own, in one script:
#   - 200 real scanned receipts (../shared/data/sroie-train, ICDAR 2019 SROIE training split),
#     scored by bench/ocr/score.py: TOTAL to the cent, INVOICE_DATE the same day, SUPPLIER's words;
#   - 427 more receipts of that split (bench/ocr/get_receipts.sh fetches them), a check on rules
#     fitted to the 200 (bench/ocr/README.md says how far they were looked at), scored the same way;
#   - 19 real born-digital invoice PDFs in 4 languages (bench/ocr/get_invoices.sh fetches them),
#     read from their text layer, scored the same way;
#   - samples/ (which the first rules were written against) and an unseen synthetic set with scan
#     noise (bench/ocr/make_unseen.py), scored by docsift eval;
# each with pages per second and peak RSS on this machine; then the receipts read with one thread
# (ocr.threads=1) and, when it is installed, Tesseract's own CLI on the same receipts as the
# reference for speed. Needs a built docsift and the Python venv (scripts/pyenv.sh).
#   bench/ocr/run.sh                 RECEIPTS=dir INVOICES=dir to read other copies
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${DOCSIFT:-$ROOT/build/docsift}
OUT=${OUT:-$ROOT/build/bench/ocr}
RECEIPTS=${RECEIPTS:-$ROOT/../shared/data/sroie-train}
INVOICES=${INVOICES:-$ROOT/.deps/invoices}
RECEIPTS_UNSEEN=${RECEIPTS_UNSEEN:-$ROOT/.deps/receipts-unseen}
UNSEEN=$OUT/unseen
rm -rf "$OUT" && mkdir -p "$OUT"
"$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/ocr/make_unseen.py" "$UNSEEN" 30 >/dev/null
invoices=yes  # fetched once; without a network the invoice runs are skipped and said so
[ -d "$INVOICES" ] || INVOICES="$INVOICES" "$ROOT/bench/ocr/get_invoices.sh" || invoices=no
unseen_receipts=yes  # fetched once, checked every run
RECEIPTS_UNSEEN="$RECEIPTS_UNSEEN" "$ROOT/bench/ocr/get_receipts.sh" >/dev/null || unseen_receipts=no

pages() { "$ROOT/scripts/summary_value.py" "$1/summary.json" images.pages; }
# run NAME DIR ARGS...: one timed docsift run into $OUT/NAME; prints "seconds peak_rss_MiB pages".
run() {
  local name=$1 dir=$2
  shift 2
  /usr/bin/time -f '%e %M' -o "$OUT/$name.time" "$BIN" run "$dir" --out "$OUT/$name" --quiet "$@" 2>"$OUT/$name.stderr" || true
  local secs kb
  read -r secs kb <"$OUT/$name.time"
  echo "$secs $((kb / 1024)) $(pages "$OUT/$name")"
}
# report LABEL SCORES...: the run's speed line, then its per-field scores.
report() {
  local label=$1 secs mib pages
  read -r secs mib pages
  printf '\n%s: %s pages in %s s, %.2f pages/s, peak RSS %s MiB\n' "$label" "$pages" "$secs" \
    "$(echo "$pages / $secs" | bc -l)" "$mib"
}
score() { python3 "$ROOT/bench/ocr/score.py" "$@" | sed 's/^/  /'; }

run receipts "$RECEIPTS" --set input.accept_truncated=true | report "receipts (real, 200)"
score receipts "$OUT/receipts/predictions.csv" "$RECEIPTS"
echo "  lines on stderr: $(wc -l <"$OUT/receipts.stderr")"
if [ $unseen_receipts = no ]; then
  echo "(the 427 more receipts could not be fetched or checked: skipped)"
else
  run receipts-unseen "$RECEIPTS_UNSEEN" --set input.accept_truncated=true |
    report "receipts (real, 427 more of the training split)"
  score receipts "$OUT/receipts-unseen/predictions.csv" "$RECEIPTS_UNSEEN"
fi
if [ $invoices = no ]; then
  echo "(the invoices could not be fetched: skipped)"
else
  run invoices "$INVOICES" | report "invoices (real, born-digital PDFs)"
  # documents.csv: a file of several pages as one document (docs/run.md, "Documents of several pages").
  score invoices "$OUT/invoices/documents.csv" "$ROOT/bench/ocr/invoices/truth.csv"
  # Each page's latest record (bench/confidence/refit.py): a page may be journaled again.
  echo "  pages read from the text layer: $(python3 -c 'import sys; sys.path.insert(0, sys.argv[2])
from refit import latest_records
print(sum(r.get("text_source") == "pdf" for r in latest_records(sys.argv[1]).values()))' \
    "$OUT/invoices/results.jsonl" "$ROOT/bench/confidence") of $(pages "$OUT/invoices")"
fi
run samples "$ROOT/samples" | report "samples/ (synthetic, 20)"
"$BIN" eval "$OUT/samples/predictions.csv" "$ROOT/samples/ground_truth.csv" | sed 's/^/  /'
run unseen "$UNSEEN" | report "unseen layout with scan noise (synthetic, 30)"
"$BIN" eval "$OUT/unseen/predictions.csv" "$UNSEEN/ground_truth.csv" | grep -E '^(SUPPLIER|INVOICE_DATE|TOTAL|overall) ' | sed 's/^/  /'

# The runs above use the defaults: where scripts/setup.sh converted PP-OCRv4's recognizer
# (.deps/ppocr) and the build has LibTorch, it reads the values' boxes again (ocr.recognizer: auto).
# Then the same sets with Tesseract alone, for its cost and gain.
if [ "$("$BIN" config | sed -n 's/^  recognizer: //p')" = both ]; then
  run receipts-alone "$RECEIPTS" --set ocr.recognizer=tesseract --set input.accept_truncated=true |
    report "receipts, ocr.recognizer=tesseract"
  score receipts "$OUT/receipts-alone/predictions.csv" "$RECEIPTS"
  if [ $unseen_receipts = yes ]; then
    run receipts-unseen-alone "$RECEIPTS_UNSEEN" --set ocr.recognizer=tesseract --set input.accept_truncated=true |
      report "receipts (427 more), ocr.recognizer=tesseract"
    score receipts "$OUT/receipts-unseen-alone/predictions.csv" "$RECEIPTS_UNSEEN"
  fi
  run samples-alone "$ROOT/samples" --set ocr.recognizer=tesseract | report "samples/, ocr.recognizer=tesseract"
  "$BIN" eval "$OUT/samples-alone/predictions.csv" "$ROOT/samples/ground_truth.csv" | grep -E '^(SUPPLIER|INVOICE_DATE|TOTAL|overall) ' | sed 's/^/  /'
  run unseen-alone "$UNSEEN" --set ocr.recognizer=tesseract | report "unseen layout, ocr.recognizer=tesseract"
  "$BIN" eval "$OUT/unseen-alone/predictions.csv" "$UNSEEN/ground_truth.csv" | grep -E '^(SUPPLIER|INVOICE_DATE|TOTAL|overall) ' | sed 's/^/  /'
else
  echo "(the defaults read with Tesseract alone here: no second recognizer to compare)"
fi

run receipts-1thread "$RECEIPTS" --set ocr.threads=1 --set input.accept_truncated=true | report "receipts, ocr.threads=1"
score receipts "$OUT/receipts-1thread/predictions.csv" "$RECEIPTS"
if command -v tesseract >/dev/null; then
  start=$(date +%s.%N)
  for f in "$RECEIPTS"/*.jpg; do OMP_THREAD_LIMIT=1 tesseract "$f" - --psm 6 >/dev/null 2>&1 || true; done
  secs=$(echo "$(date +%s.%N) - $start" | bc -l)
  n=$(ls "$RECEIPTS"/*.jpg | wc -l)
  printf '\ntesseract CLI (--psm 6, one process per page, text only): %s pages in %.1f s, %.2f pages/s\n' "$n" "$secs" \
    "$(echo "$n / $secs" | bc -l)"
fi
