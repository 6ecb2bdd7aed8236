#!/usr/bin/env bash
# The device checks docs/gpu.md describes, in as few calls as possible: each call
# starts a bare machine, so everything is built, run and logged by this script, in order of what
# matters most, each step under its own time limit so that a slow or broken step costs only itself.
# Made for a machine that has PyTorch, CMake, ninja and the CUDA toolkit; docsift's Debian
# libraries come from the kit (bench/gpu/kit.sh pack, carried as .gpu).
#   OUT=DIR bench/gpu/session.sh A [SECONDS=540]    build; the suite in the background (cores 4+);
#                                                    decode on the 8B shape with docsift's kernels,
#                                                    without them, float16; int8; the offloaded
#                                                    cache; pages per hour (int8, 50 pages)
#   OUT=DIR bench/gpu/session.sh B [SECONDS=200]    on the same warm machine: what A left,
#                                                    transformers' decode, the offloaded tier's
#                                                    pages, the fused norm alone
#   OUT=DIR [CTEST_REGEX=RE] [BG_TARGET=T] bench/gpu/session.sh C
#                                                    a fresh machine after a kernel change: A's
#                                                    build and decode figures, transformers', every
#                                                    family reading samples/ (families.sh), the
#                                                    suite's cases matching RE, pages per hour
# OUT gets summary.txt (each step's status and the figures), logs.tgz (every log), gpu.json
# (decode against transformers), pages_*.json (bench/gpu/pages.sh).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$PWD/gpu-out}"
W=/tmp/docsift-gpu
mkdir -p "$OUT" "$W"
PHASE="${1:-A}"
DEADLINE=$(( $(date +%s) + ${2:-540} ))
S="$OUT/summary.txt"
BIN="${BIN:-$ROOT/build-gpu}"  # BIN and SKIP_BUILD=1: a dry run against another build
CKPT="${CKPT:-/tmp/internvl3-8b-random}"
DEVICE="${DEVICE:-cuda:0}"  # a dry run of the script's plumbing on a machine without a GPU: DEVICE=cpu
# The GPU steps' host work on cores 0-3, away from the background build (16-core machine).
PIN=""; [ "$(nproc)" -ge 8 ] && PIN="taskset -c 0-3"
export ROOT W OUT BIN CKPT DEVICE PIN

say() { echo "$*" | tee -a "$S"; }
pack() { tar -C "$W" -czf "$OUT/logs.tgz" --exclude='*.safetensors' . 2>/dev/null; }
# step NAME MAX_SECONDS COMMAND: runs COMMAND (a bash string) under min(MAX, time left), its output
# in W/NAME.log, the last TAIL lines into the summary.
step() {
  local name="$1" max="$2" cmd="$3" left t0 rc
  left=$(( DEADLINE - $(date +%s) - 5 ))
  [ "$left" -lt "$max" ] && max="$left"
  if [ "$max" -lt 15 ]; then say "== SKIP $name: no time left"; return 1; fi
  t0=$(date +%s)
  timeout -k 5 "$max" bash -c "$cmd" > "$W/$name.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] && touch "$W/$name.ok"
  say "== $([ "$rc" = 0 ] && echo OK || echo "FAIL rc=$rc") $name ($(( $(date +%s) - t0 )) s of $max)"
  tail -n "${TAIL:-12}" "$W/$name.log" | cut -c1-400 >> "$S"
  pack
  return "$rc"
}

say "== phase $PHASE: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GB"
IMG="$ROOT/tests/fixtures/internvl/images/one_tile.png"
DEC="$PIN \"$BIN/docsift_bench_decode\" \"$CKPT\" --device \"$DEVICE\" --image \"$IMG\" --tiles 1"
INT8="$PIN \"$BIN/docsift_bench_int8\" \"$CKPT\" --device $DEVICE --dtype float16 --tiles 13 --tokens 32 --budget-gb 16 --json \"$W/int8_gpu.json\""

if [ "$PHASE" != B ]; then
  say "== $(python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' 2>&1)"
  # The 8B-shaped checkpoint (15.9 GB, random values drawn on the GPU) is written while the build runs.
  if [ -f "$CKPT/config.json" ]; then echo "rc=0 (already there)" > "$W/checkpoint.log"; else
    ( python3 "$ROOT/bench/int8/make_checkpoint.py" "$CKPT" --shape 8b > "$W/checkpoint.log" 2>&1; echo "rc=$?" >> "$W/checkpoint.log" ) &
  fi

  # 1. The kit and the build, for sm_90: first what the GPU steps run, then the rest (the suite,
  #    the fuzz replays, the other benches) in the background on cores 4+, while the GPU steps
  #    run on cores 0-3 (their host time is what decode measures).
  if [ -z "${SKIP_BUILD:-}" ]; then
    TAIL=4 step build 300 'source "$ROOT/bench/gpu/kit.sh" && KIT_KEEP_GOING=1 kit_build docsift_cli docsift_bench_decode docsift_bench_int8'
    # Then the suite, on the same cores, once the timed steps are done (timed.done): its GPU cases
    # on the card beside the int8 step disturbed that step's float16 run on 2026-11-27. Two
    # LibTorch threads per test (8 tests at once with their own thread pools oversubscribed 16
    # cores into 120 s timeouts on cases that take 7 s alone, 2026-11-26).
    ( source "$ROOT/bench/gpu/kit.sh" && kit_env && taskset -c 4-$(( $(nproc) - 1 )) nice -n 10 \
        cmake --build "$BIN" --target "${BG_TARGET:-all}" -j "$(( $(nproc) - 4 ))" -- -k 0 > "$W/build-rest.log" 2>&1
      echo "rc=$?" >> "$W/build-rest.log"
      while [ ! -f "$W/timed.done" ]; do sleep 2; done
      OMP_NUM_THREADS=2 taskset -c 4-$(( $(nproc) - 1 )) ctest --test-dir "$BIN" -j "$(( ($(nproc) - 4) / 2 ))" --timeout 150 \
        --output-on-failure ${CTEST_REGEX:+-R "$CTEST_REGEX"} > "$W/ctest-full.log" 2>&1; echo "rc=$?" >> "$W/ctest-full.log" ) &
  else
    echo "rc=0 (SKIP_BUILD)" > "$W/build-rest.log"; echo "rc=0 (SKIP_BUILD: suite not run)" > "$W/ctest-full.log"
  fi
fi
source "$ROOT/bench/gpu/kit.sh"
kit_unpack && kit_env

# Waits for the background suite (started after the build, phase A) and reports it.
ctest_report() {
  TAIL=30 step ctest "$1" 'while ! grep -q "^rc=" "$W/ctest-full.log" 2>/dev/null; do sleep 2; done
    grep -E "\*\*\*|Failed|tests passed|tests failed|Total Test time|^rc=" "$W/ctest-full.log" | head -40
    grep -hoE "docsift-skip\] .*" "$BIN"/Testing/Temporary/LastTest.log | sort | uniq -c | head -20
    grep -hE "MESSAGE|max abs|GB/s|CHECK ok" "$BIN"/Testing/Temporary/LastTest.log | grep -iE "cuda|gpu|graph|H100|H200|kernel" | head -20
    grep -q "^rc=0" "$W/ctest-full.log"'
}
PAGES="$PIN bash \"$ROOT/bench/gpu/pages.sh\" \"$BIN/docsift\" \"$CKPT\" \"$W\""

# The decode figures on the 8B shape, A's and C's: the card's read bandwidth; docsift with its
# defaults (CUDA graphs, the fused norm, the decode kernels), with none of its kernels (cuBLAS and
# LibTorch's ops), in float16; then int8 (float16 against float16 + int8, each layer's GEMV against
# cuBLAS, a 13-tile page under a 16 GiB budget) and the offloaded cache.
decode_figures() {
  TAIL=30 step version 30 '"$BIN/docsift" --version'
  step checkpoint_wait 200 'while ! grep -q "^rc=" "$W/checkpoint.log"; do sleep 2; done; tail -2 "$W/checkpoint.log"; grep -q "^rc=0" "$W/checkpoint.log"'
  TAIL=3 step bandwidth 40 '$PIN python3 "$ROOT/bench/gpu/bandwidth.py"'
  TAIL=6 step decode_bf16 90 "$DEC --dtype bfloat16 --tokens 64 --profile-steps 3 --json \"$W/decode_bf16.json\""
  TAIL=6 step decode_bf16_libtorch 90 "$DEC --dtype bfloat16 --tokens 64 --profile-steps 3 --no-fused-norm --no-decode-kernels --json \"$W/decode_bf16_libtorch.json\""
  TAIL=6 step decode_fp16 90 "$DEC --dtype float16 --tokens 64 --profile-steps 3 --json \"$W/decode_fp16.json\""
  [ "$PHASE" = C ] && TAIL=6 step decode_bf16_norm_only 60 "$NORM_ONLY"
  TAIL=60 step decode_summary 20 "$SUMMARY"
  TAIL=30 step int8 200 "$INT8"
  TAIL=6 step decode_offloaded 60 "$DEC --dtype bfloat16 --tokens 32 --profile-steps 2 --cache offloaded --json \"$W/decode_offloaded.json\""
}
NORM_ONLY="$DEC --dtype bfloat16 --tokens 64 --profile-steps 3 --no-decode-kernels --json \"$W/decode_bf16_norm_only.json\""
# gpu.json: bench/generate/results/gpu.json with this session as its latest (copy it back).
SUMMARY='python3 "$ROOT/bench/gpu/summarize.py" "$W" "$OUT/gpu.json" "$ROOT/bench/generate/results/gpu.json"'
REFERENCE="PYTHONUNBUFFERED=1 $PIN python3 \"$ROOT/bench/generate/reference_gpu.py\" --model \"$CKPT\" --image \"$IMG\" --device cuda --dtype bfloat16 --max-new-tokens 64 > \"$W/reference_bf16.json\"; rc=\$?; cat \"$W/reference_bf16.json\"; exit \$rc"
# Every family's fixture reads samples/ on the device, through the whole program.
FAMILIES='$PIN bash "$ROOT/bench/gpu/families.sh" "$BIN/docsift" "$W" "$DEVICE"'
PAGES_INT8="MAX_NEW=96 $PAGES 50 int8; rc=\$?; cp \"$W/pages_int8.json\" \"$OUT/\" 2>/dev/null; exit \$rc"

if [ "$PHASE" = A ]; then
  decode_figures
  touch "$W/timed.done"  # the background suite may start
  TAIL=60 step decode_summary 20 "$SUMMARY"
  ctest_report 200  # built and run in the background since the build
  TAIL=40 step pages_int8 200 "$PAGES_INT8"
elif [ "$PHASE" = C ]; then
  # A fresh machine after a change to the kernels: A's figures, transformers', every family on
  # samples/, then the suite's cases that match CTEST_REGEX, then pages per hour.
  decode_figures
  TAIL=6 step reference_bf16 120 "$REFERENCE"
  TAIL=60 step decode_summary 20 "$SUMMARY"
  TAIL=8 step families 90 "$FAMILIES"
  touch "$W/timed.done"
  ctest_report 200
  TAIL=40 step pages_int8 200 "$PAGES_INT8"
else
  touch "$W/timed.done"
  [ -f "$W/ctest.ok" ] || ctest_report 60
  [ -f "$W/int8.ok" ] || TAIL=30 step int8 150 "$INT8"
  TAIL=6 step reference_bf16 120 "$REFERENCE"
  TAIL=6 step decode_bf16_norm_only 60 "$NORM_ONLY"
  TAIL=60 step decode_summary 20 "$SUMMARY"
  TAIL=40 step pages_offloaded 150 "BUDGET_GB=24 MAX_NEW=96 $PAGES 10 offloaded; rc=\$?; cp \"$W/pages_offloaded.json\" \"$OUT/\" 2>/dev/null; exit \$rc"
fi
pack
say "== phase $PHASE done with $(( DEADLINE - $(date +%s) )) s to spare"
