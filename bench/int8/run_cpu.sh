#!/usr/bin/env bash
# int8 on the CPU: an InternVL3-1B-shaped random checkpoint (made once under BUILD_DIR/bench by
# make_checkpoint.py, 1.9 GB), float32 against float32 + int8. Each configuration once alone in a
# fresh process (load and run memory), then both in one process (speed ratio and accuracy).
#   bench/int8/run_cpu.sh [BUILD_DIR] [TOKENS=32]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
TOKENS="${2:-32}"
BIN="$BUILD/docsift_bench_int8"
[ -x "$BIN" ] || { echo "no $BIN; build first (scripts/setup.sh)" >&2; exit 2; }
MODEL="$BUILD/bench/internvl3-1b-random-int8"
[ -f "$MODEL/config.json" ] || "$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/int8/make_checkpoint.py" "$MODEL" --shape 1b
cd "$ROOT"
for only in reference int8; do
  echo "== $only alone"
  "$BIN" "$MODEL" --device cpu --tokens "$TOKENS" --only "$only"
done
echo "== both"
"$BIN" "$MODEL" --device cpu --tokens "$TOKENS"
