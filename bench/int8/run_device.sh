#!/usr/bin/env bash
# int8 on a GPU machine that has PyTorch, CMake and the CUDA toolkit but not docsift's Debian
# packages (bench/gpu/kit.sh carries them, packed from .debs). Builds docsift_bench_int8, makes an
# InternVL3-8B-shaped random checkpoint (written while the build runs), and runs the benchmark:
# float16 against float16 + int8 on a 13-tile page, the fused kernel's check and timings against
# cuBLAS, the residual guard's cost, the CUDA context, and a 16 GiB budget run from the plan's tier.
#   bench/int8/run_device.sh [SHAPE=8b] [TILES=13] [TOKENS=64]      output under OUT (default .)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$PWD}"
CKPT=/tmp/internvl3-${1:-8b}-random
( python3 "$ROOT/bench/int8/make_checkpoint.py" "$CKPT" --shape "${1:-8b}" > "$OUT/checkpoint.log" 2>&1 ) &
ckpt_pid=$!
source "$ROOT/bench/gpu/kit.sh"
KIT_TESTS=OFF kit_build docsift_bench_int8 || exit 1
wait "$ckpt_pid" || { cat "$OUT/checkpoint.log"; exit 1; }
tail -1 "$OUT/checkpoint.log"
cd "$ROOT"
"$ROOT/build-gpu/docsift_bench_int8" "$CKPT" --device cuda:0 --dtype float16 --tiles "${2:-13}" --tokens "${3:-64}" \
  --budget-gb 16 --json "$OUT/int8_gpu.json" 2>&1 | tee "$OUT/int8_gpu.txt"
