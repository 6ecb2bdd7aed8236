#!/usr/bin/env bash
# Builds and runs bench_memory_gpu on a GPU machine that has PyTorch, CMake and the CUDA toolkit
# but not docsift's Debian packages (bench/gpu/kit.sh carries them, packed from .debs). Output goes to
# OUT (default: the current folder).
#   bench/memory_gpu/run_device.sh [IMAGES=50] [BUDGET_GB=16] [LONG_TOKENS=1024]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$PWD}"
source "$ROOT/bench/gpu/kit.sh"
KIT_TESTS=OFF kit_build docsift_bench_memory_gpu || exit 1

CKPT=/tmp/internvl3-1b-kv14
python3 "$ROOT/bench/generate/make_checkpoint.py" "$CKPT" 14 2>&1 | tail -1
"$ROOT/build-gpu/docsift_bench_memory_gpu" "$CKPT" "${1:-50}" "${2:-16}" "$OUT/memory_gpu.json" "${3:-1024}" 2>&1 \
  | tee "$OUT/memory_gpu.txt"
