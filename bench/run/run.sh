#!/usr/bin/env bash
# docsift's own per-image overhead in `docsift run` (scan, image decode, preprocessing, prompt,
# journal append + fsync, CSV row append, cleanup) against the model's time (vision + prefill +
# decode), on samples/ (20 documents), both read from the run's own results.jsonl and wall clock.
#   [MAX_TILES=6] bench/run/run.sh [MODEL_DIR] [MAX_NEW_TOKENS]
# Default model: the tiny fixture (model time is then small, so the overhead share is an upper
# bound); pass a real or 1B-shaped checkpoint (bench/generate/make_checkpoint.py) for a real ratio.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODEL="${1:-$ROOT/tests/fixtures/internvl/hf}"
NEW="${2:-32}"
BIN="${BIN:-$ROOT/build/docsift}"
OUT="$(mktemp -d)"; trap 'rm -rf "$OUT"' EXIT
start=$(date +%s.%N)
"$BIN" run "$ROOT/samples" --model "$MODEL" --device cpu --set model.dtype=float32 --set model.max_tiles="${MAX_TILES:-6}" \
  --set generation.max_new_tokens="$NEW" --set extraction.fields="$ROOT/configs/fields/business-documents.yaml" \
  --quiet --out "$OUT"
end=$(date +%s.%N)
python3 - "$OUT/results.jsonl" "$start" "$end" "$MODEL" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
wall = float(sys.argv[3]) - float(sys.argv[2])
def mean(xs): return sum(xs) / len(xs)
model = [r["timings_s"]["vision"] + r["timings_s"]["prefill"] + r["timings_s"]["decode"] for r in records]
total = [r["timings_s"]["total"] for r in records]
decode = [r["timings_s"]["decode_image"] for r in records]
pre = [r["timings_s"]["preprocess"] for r in records]
cleanup = [r["memory"]["seconds"] for r in records]
# Image 1 also loads the model (the ladder's first tier does), so it is left out of the means.
overhead = [t - m for t, m in zip(total, model)][1:]
model, decode, pre, cleanup = model[1:], decode[1:], pre[1:], cleanup[1:]
print(f"{len(records)} images (means over images 2..{len(records)}; image 1 includes the model load), "
      f"model {sys.argv[4]}, CPU float32")
print(f"{'per image, ms':<34}{'mean':>10}")
for name, xs in [("image decode", decode), ("preprocess + prompt", pre), ("cleanup", cleanup),
                 ("all docsift overhead", overhead), ("model (vision+prefill+decode)", model)]:
    print(f"{name:<34}{mean(xs) * 1000:>10.1f}")
print(f"overhead / model time: {sum(overhead) / sum(model):.3f}")
print(f"process wall {wall:.2f} s, of which in images {sum(total):.2f} s (the rest: start-up, scan, model load)")
PY
