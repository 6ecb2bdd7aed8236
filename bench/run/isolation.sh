#!/usr/bin/env bash
# The cost of worker isolation: `docsift run` in process against `--isolate worker`, without
# recycling and recycling every R images, over N images (copies of samples/), CPU float32. Prints
# the process wall time per image and the ratio to in process, from one run each.
#   bench/run/isolation.sh [MODEL_DIR] [N_IMAGES] [RECYCLE_EVERY...]
# Default: the tiny fixture (model time is tiny, so the ratio is an upper bound on the overhead),
# 60 images, recycling every 10 and every 50. Pass a 1B-shaped checkpoint
# (bench/generate/make_checkpoint.py) for the ratio a real model sees.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODEL="${1:-$ROOT/tests/fixtures/internvl/hf}"
N="${2:-60}"
shift $(( $# > 2 ? 2 : $# )) || true
RECYCLE=("${@:-10 50}")
read -r -a RECYCLE <<< "${RECYCLE[*]}"
BIN="${BIN:-$ROOT/build/docsift}"
NEW="${MAX_NEW_TOKENS:-16}"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/images"
i=0
while [ "$i" -lt "$N" ]; do
  for f in "$ROOT"/samples/*.png; do
    [ "$i" -lt "$N" ] || break
    cp "$f" "$WORK/images/$(printf 'page_%04d.png' "$i")"
    i=$((i + 1))
  done
done
run() {  # name, extra args...
  local name="$1"; shift
  local start end
  start=$(date +%s.%N)
  "$BIN" run "$WORK/images" --model "$MODEL" --device cpu --set model.dtype=float32 --set model.max_tiles=2 \
    --set generation.max_new_tokens="$NEW" --set extraction.fields="$ROOT/configs/fields/business-documents.yaml" \
    --quiet --out "$WORK/out-$name" "$@"
  end=$(date +%s.%N)
  echo "$name $(python3 -c "print($end - $start)")"
}
{
  run in_process
  run worker --isolate worker
  for r in "${RECYCLE[@]}"; do run "worker_recycle_$r" --isolate worker --set memory.worker.recycle_after_images="$r"; done
} > "$WORK/times"
python3 - "$WORK/times" "$N" "$MODEL" "$WORK" <<'PY'
import json, sys
times = dict((l.split()[0], float(l.split()[1])) for l in open(sys.argv[1]))
n = int(sys.argv[2])
base = times["in_process"]
print(f"{n} images, model {sys.argv[3]}, CPU float32; process wall time (start-up, model load and every image)")
print(f"{'run':<24}{'s total':>10}{'s / image':>11}{'ratio':>8}{'workers':>9}{'recycles':>10}")
for name, t in times.items():
    iso = json.load(open(f"{sys.argv[4]}/out-{name}/summary.json")).get("isolation", {})
    print(f"{name:<24}{t:>10.2f}{t / n:>11.3f}{t / base:>8.3f}{iso.get('workers_started', '-'):>9}{iso.get('recycles', '-'):>10}")
PY
