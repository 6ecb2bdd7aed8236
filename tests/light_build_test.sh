#!/bin/bash
# The build without LibTorch (-DDOCSIFT_WITH_TORCH=OFF, docs/install.md, "Without LibTorch") against the full build:
#   tests/light_build_test.sh LIGHT_BIN FULL_BIN SOURCE_DIR
# The light binary links no LibTorch, says it reads with Tesseract alone (the full build's default
# adds the second recognizer), reads samples/ with Tesseract into the same predictions, confidence
# and review bytes and the same records and summary (times, timings and memory aside) as the full
# one told to read with Tesseract alone, and refuses a model with one line and exit 2.
set -euo pipefail
light=$1 full=$2 source=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -x $full ]] || fail "$full: no full build to compare with"

if ldd "$light" | grep -E 'libtorch|libc10' >&2; then fail "$light links LibTorch"; fi
"$light" --version | grep -q '^LibTorch none' || fail "--version does not say the build has no LibTorch"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$light" run "$source/samples" --engine ocr --out "$tmp/light" 2>"$tmp/light.log" >/dev/null
grep -q 'Tesseract alone: this build has no LibTorch' "$tmp/light.log" || { head -3 "$tmp/light.log" >&2; fail "the light build does not say it reads with Tesseract alone"; }
"$light" config | grep -q 'recognizer: tesseract' || fail "the light build's ocr.recognizer: auto is not tesseract"
rm -rf "$tmp/light"
"$light" run "$source/samples" --engine ocr --out "$tmp/light" --quiet --set ocr.recognizer=tesseract
"$full" run "$source/samples" --engine ocr --out "$tmp/full" --quiet --set ocr.recognizer=tesseract
for f in predictions.csv confidence.csv review.csv; do
  cmp "$tmp/light/$f" "$tmp/full/$f" || fail "$f differs between the builds"
done
python3 - "$tmp/light" "$tmp/full" <<'PY' || fail "records or summary differ between the builds"
import json, sys
light, full = sys.argv[1], sys.argv[2]
VARY = {"started_at", "finished_at", "timings_s", "memory", "throughput", "memory_high_water"}
def same(a, b):
    return {k: v for k, v in a.items() if k not in VARY} == {k: v for k, v in b.items() if k not in VARY}
records = [[json.loads(line) for line in open(f"{d}/results.jsonl")] for d in (light, full)]
ok = len(records[0]) == len(records[1]) and all(same(a, b) for a, b in zip(*records))
ok = ok and same(json.load(open(f"{light}/summary.json")), json.load(open(f"{full}/summary.json")))
sys.exit(0 if ok else 1)
PY

set +e
"$light" run "$source/samples" --model "$source/tests/fixtures/internvl/hf" --out "$tmp/model" --quiet 2>"$tmp/err"
code=$?
set -e
[[ $code -eq 2 ]] || fail "run --model exited $code, not 2"
[[ $(wc -l <"$tmp/err") -eq 1 ]] && grep -q 'built without LibTorch' "$tmp/err" || { cat "$tmp/err" >&2; fail "run --model: not one line saying why"; }
echo "ok: no LibTorch linked; $(wc -l <"$tmp/light/results.jsonl") pages read as the full build reads them; a model refused: $(cat "$tmp/err")"
