#!/bin/bash
# The OCR engine's speed against bare Tesseract on the same pages, as a ratio measured in one run:
# Tesseract's own CLI at its best on 2 cores (one thread per process, two processes at a time,
# --psm 6 as docsift reads a block, text only), then `docsift run` with its defaults (the full
# build: the second recognizer on) and with Tesseract alone. Nothing else should be running.
#   bench/ocr/speed.sh [PAGES_DIR]      # default: ../shared/data/sroie-train (200 receipts)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PAGES=${1:-$ROOT/../shared/data/sroie-train}
BIN=${DOCSIFT:-$ROOT/build/docsift}
command -v tesseract >/dev/null || { echo "speed.sh: no tesseract CLI to compare with (apt install tesseract-ocr)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$(find "$PAGES" -maxdepth 1 -name '*.jpg' | wc -l)
seconds() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $start" | bc -l; }
bare=$(seconds sh -c "find '$PAGES' -maxdepth 1 -name '*.jpg' -print0 | OMP_THREAD_LIMIT=1 xargs -0 -n 1 -P 2 -I{} tesseract {} - --psm 6")
default=$(seconds "$BIN" run "$PAGES" --out "$tmp/default" --quiet --set input.accept_truncated=true)
alone=$(seconds "$BIN" run "$PAGES" --out "$tmp/alone" --quiet --set input.accept_truncated=true --set ocr.recognizer=tesseract)
printf 'pages %s\ntesseract CLI, 2 at a time, 1 thread each: %.1f s\n' "$n" "$bare"
printf 'docsift run, defaults (%s): %.1f s, %.2f× the CLI\n' "$("$BIN" config | sed -n 's/^  recognizer: //p')" "$default" "$(echo "$default / $bare" | bc -l)"
printf 'docsift run, ocr.recognizer=tesseract: %.1f s, %.2f× the CLI\n' "$alone" "$(echo "$alone / $bare" | bc -l)"
