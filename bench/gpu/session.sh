#!/usr/bin/env bash
# Issue 32's device checks in one call (docs/gpu.md): a lease is minutes long and each call
# starts a bare machine, so everything is built, run and logged by this one script, in order of
# what matters most, each step under its own time limit so that a slow or broken step costs only
# itself. Made for a machine that has PyTorch, CMake, ninja and the CUDA toolkit; docsift's
# Debian libraries come from the kit (bench/gpu/kit.sh pack, carried as .gpu).
#   OUT=DIR bench/gpu/session.sh A [SECONDS=570]    build, the program, decode, int8, the suite
#   OUT=DIR bench/gpu/session.sh B [SECONDS=180]    on the same warm machine: what A left, the
#                                                    offloaded cache, isolation, float16 decode
# OUT gets summary.txt (each step's status and the figures), logs.tgz (every log), gpu.json
# (decode against transformers), trace_eager.json.gz (one profiled decode window without CUDA
# graphs, Kineto).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$PWD/gpu-out}"
W=/tmp/docsift-gpu
mkdir -p "$OUT" "$W"
PHASE="${1:-A}"
DEADLINE=$(( $(date +%s) + ${2:-570} ))
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
FIELDS="--set extraction.fields=$ROOT/configs/fields/business-documents.yaml"
SUMMARY_KEYS='import json,sys; s=json.load(open(sys.argv[1])); print({k: s.get(k) for k in ("images","tiers","device","engine","throughput","memory_high_water")})'
ctest_step() {
  TAIL=30 step ctest "$1" 'while ! grep -q "^rc=" "$W/build-rest.log"; do sleep 2; done; tail -3 "$W/build-rest.log"
    # Two LibTorch threads per test: 8 tests at once with their own thread pools oversubscribed
    # 16 cores into 120 s timeouts on cases that take 7 s alone (seen 2026-11-26).
    OMP_NUM_THREADS=2 ctest --test-dir "$BIN" -j 8 --timeout 150 --output-on-failure > "$W/ctest-full.log" 2>&1; rc=$?
    grep -E "\*\*\*|Failed|tests passed|tests failed|Total Test time" "$W/ctest-full.log" | head -40
    grep -hoE "docsift-skip\] .*" "$BIN"/Testing/Temporary/LastTest.log | sort | uniq -c | head -20
    grep -hE "MESSAGE|max abs|GB/s|CHECK ok" "$BIN"/Testing/Temporary/LastTest.log | grep -iE "cuda|gpu|graph|H100|H200" | head -20; exit $rc'
}
INT8="$PIN \"$BIN/docsift_bench_int8\" \"$CKPT\" --device $DEVICE --dtype float16 --tiles 13 --tokens 32 --budget-gb 16 --json \"$W/int8_gpu.json\""

if [ "$PHASE" = A ]; then
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
    ( source "$ROOT/bench/gpu/kit.sh" && kit_env && taskset -c 4-$(( $(nproc) - 1 )) nice -n 10 \
        cmake --build "$BIN" -j "$(( $(nproc) - 4 ))" -- -k 0 > "$W/build-rest.log" 2>&1; echo "rc=$?" >> "$W/build-rest.log" ) &
  else
    echo "rc=0 (SKIP_BUILD)" > "$W/build-rest.log"
  fi
fi
source "$ROOT/bench/gpu/kit.sh"
kit_unpack && kit_env

if [ "$PHASE" = A ]; then
  # 2. The program: its version (the GPU and the architecture check), then the samples on cuda:0
  #    with the tiny fixtures of both families.
  TAIL=30 step version 30 '"$BIN/docsift" --version'
  TAIL=8 step run_internvl 90 "$PIN \"$BIN/docsift\" run \"$ROOT/samples\" --model \"$ROOT/tests/fixtures/internvl/hf\" --device $DEVICE \
    --set generation.max_new_tokens=40 $FIELDS --out \"$W/run-internvl\" && python3 -c '$SUMMARY_KEYS' \"$W/run-internvl/summary.json\""
  # Should CUDA graphs fail there, the same run without them says whether the rest does.
  [ -f "$W/run_internvl.ok" ] || TAIL=8 step run_internvl_eager 60 "$PIN \"$BIN/docsift\" run \"$ROOT/samples\" --model \"$ROOT/tests/fixtures/internvl/hf\" \
    --device $DEVICE --set generation.cuda_graphs=false --set generation.max_new_tokens=40 $FIELDS --out \"$W/run-internvl-eager\" && python3 -c '$SUMMARY_KEYS' \"$W/run-internvl-eager/summary.json\""
  TAIL=8 step run_mllama 90 "$PIN \"$BIN/docsift\" run \"$ROOT/samples\" --config \"$ROOT/configs/llama32-vision-11b.yaml\" --model \"$ROOT/tests/fixtures/mllama/hub\" \
    --device $DEVICE --set generation.max_new_tokens=40 $FIELDS --out \"$W/run-mllama\" && python3 -c '$SUMMARY_KEYS' \"$W/run-mllama/summary.json\""

  # 3. Decode on the 8B shape: the card's read bandwidth; docsift with CUDA graphs (the default)
  #    and without (every operator from the host; profiled, with a Kineto trace); transformers'
  #    eager decode on the same card and dtype.
  step checkpoint_wait 200 'while ! grep -q "^rc=" "$W/checkpoint.log"; do sleep 2; done; tail -2 "$W/checkpoint.log"; grep -q "^rc=0" "$W/checkpoint.log"'
  TAIL=3 step bandwidth 40 '$PIN python3 "$ROOT/bench/gpu/bandwidth.py"'
  TAIL=6 step decode_bf16 100 "$DEC --dtype bfloat16 --tokens 64 --profile-steps 3 --json \"$W/decode_bf16.json\""
  # The residual add and RMSNorm as one kernel (model.fused_norm), against the run above.
  TAIL=6 step decode_bf16_fused 100 "$DEC --dtype bfloat16 --tokens 64 --profile-steps 3 --fused-norm --json \"$W/decode_bf16_fused.json\""
  TAIL=6 step decode_bf16_eager 100 "$DEC --dtype bfloat16 --tokens 64 --profile-steps 3 --no-graphs --trace \"$W/trace_eager.json\" --json \"$W/decode_bf16_eager.json\"; rc=\$?; gzip -c \"$W/trace_eager.json\" > \"$OUT/trace_eager.json.gz\"; rm -f \"$W/trace_eager.json\"; exit \$rc"
  TAIL=6 step reference_bf16 150 "PYTHONUNBUFFERED=1 $PIN python3 \"$ROOT/bench/generate/reference_gpu.py\" --model \"$CKPT\" --image \"$IMG\" --device cuda --dtype bfloat16 --max-new-tokens 64 > \"$W/reference_bf16.json\"; rc=\$?; cat \"$W/reference_bf16.json\"; exit \$rc"
  TAIL=40 step decode_summary 20 'python3 "$ROOT/bench/gpu/summarize.py" "$W" "$OUT/gpu.json"'

  # 4. The suite, GPU cases included (they skip only without a device).
  ctest_step 200

  # 5. int8 on the 8B shape: float16 against float16 + int8, the guard, the CUDA context, a 13-tile
  #    page under a 16 GiB budget.
  TAIL=30 step int8 200 "$INT8"
else
  [ -f "$W/ctest.ok" ] || ctest_step 150
  [ -f "$W/int8.ok" ] || TAIL=30 step int8 150 "$INT8"
  # The offloaded-cache tier against the standard one (decode_bf16, phase A).
  TAIL=6 step decode_offloaded 60 "$DEC --dtype bfloat16 --tokens 32 --profile-steps 2 --cache offloaded --json \"$W/decode_offloaded.json\""
  # Isolation on the GPU: 50 pages through a CUDA worker recycled every 10, device memory sampled.
  TAIL=20 step isolation 90 '$PIN bash "$ROOT/bench/gpu/isolation.sh" "$BIN/docsift" 50 10'
  TAIL=6 step decode_fp16 60 "$DEC --dtype float16 --tokens 64 --profile-steps 3 --json \"$W/decode_fp16.json\""
  TAIL=40 step decode_summary 20 'python3 "$ROOT/bench/gpu/summarize.py" "$W" "$OUT/gpu.json"'
fi
pack
say "== phase $PHASE done with $(( DEADLINE - $(date +%s) )) s to spare"
