#!/bin/bash
# The OCR engine's speed against bare Tesseract on the same pages, as a ratio measured in one run:
# Tesseract's own CLI at its best on 2 cores (one thread per process, two processes at a time,
# --psm 6 as docsift reads a block, text only), then `docsift run` with its defaults (the full
# build: the second recognizer on) and with Tesseract alone. Nothing else should be running.
# ROUNDS=N runs the CLI and the defaults N times in turn (Tesseract alone once), each round's ratio
# printed and their median last: one round's ratio moves by a few hundredths from run to run with
# the machine (bench/ocr/README.md: 1.21x to 1.32x over the runs of recent builds), so the bar is held
# against the median of several, not against one.
#   bench/ocr/speed.sh [PAGES_DIR]      # default: ../shared/data/sroie-train (200 receipts)
#   ROUNDS=3 bench/ocr/speed.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PAGES=${1:-$ROOT/../shared/data/sroie-train}
BIN=${DOCSIFT:-$ROOT/build/docsift}
command -v tesseract >/dev/null || { echo "speed.sh: no tesseract CLI to compare with (apt install tesseract-ocr)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$(find "$PAGES" -maxdepth 1 -name '*.jpg' | wc -l)
seconds() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $start" | bc -l; }
rounds=${ROUNDS:-1}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "speed.sh: ROUNDS=$rounds is not a count from 1 to 99" >&2; exit 2; }
cli() { seconds sh -c "find '$PAGES' -maxdepth 1 -name '*.jpg' -print0 | OMP_THREAD_LIMIT=1 xargs -0 -n 1 -P 2 -I{} tesseract {} - --psm 6"; }
defaults() { rm -rf "$tmp/default"; seconds "$BIN" run "$PAGES" --out "$tmp/default" --quiet --set input.accept_truncated=true; }
ratio() { echo "$1 / $2" | bc -l; }
bare=$(cli)
default=$(defaults)
alone=$(seconds "$BIN" run "$PAGES" --out "$tmp/alone" --quiet --set input.accept_truncated=true --set ocr.recognizer=tesseract)
printf 'pages %s\ntesseract CLI, 2 at a time, 1 thread each: %.1f s\n' "$n" "$bare"
printf 'docsift run, defaults (%s): %.1f s, %.2f× the CLI\n' "$("$BIN" config | sed -n 's/^  recognizer: //p')" "$default" "$(ratio "$default" "$bare")"
printf 'docsift run, ocr.recognizer=tesseract: %.1f s, %.2f× the CLI\n' "$alone" "$(ratio "$alone" "$bare")"
if ((rounds > 1)); then
  ratios=("$(ratio "$default" "$bare")")
  for ((i = 2; i <= rounds; i++)); do
    bare=$(cli)
    default=$(defaults)
    ratios+=("$(ratio "$default" "$bare")")
    printf 'round %d: tesseract CLI %.1f s, defaults %.1f s, %.2f× the CLI\n' "$i" "$bare" "$default" "${ratios[-1]}"
  done
  printf 'median of %d rounds: %.2f× the CLI\n' "$rounds" "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')"
fi
