#!/usr/bin/env bash
# Fuzzes the safetensors header parser with libFuzzer for a bounded time.
#   scripts/fuzz.sh [SECONDS]    (default 60)
# Builds with clang into build-fuzz/ (installs clang and its runtime if missing), seeds a corpus
# with valid and near-valid headers, and exits non-zero if the fuzzer finds a crash; crash
# inputs are left in fuzz-out/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_TO_RUN="${1:-60}"
BUILD="$ROOT/build-fuzz"
OUT="$ROOT/fuzz-out"

if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "==> installing clang and libclang-rt (libFuzzer)"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd=sudo
  $sudo_cmd apt-get update -q
  $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang libclang-rt-dev || \
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang libclang-rt-14-dev
fi
dpkg-query -W -f='${Status}' nlohmann-json3-dev 2>/dev/null | grep -q "install ok installed" || "$ROOT/scripts/setup.sh"

echo "==> building the fuzz target (clang, ASan + UBSan + libFuzzer)"
cmake -S "$ROOT" -B "$BUILD" -DDOCSIFT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target fuzz_safetensors_header

mkdir -p "$OUT/corpus" "$OUT/crashes"
python3 - "$OUT/corpus" <<'PY'
import json, struct, sys, os
out = sys.argv[1]
def write(name, header, data=b""):
    h = json.dumps(header).encode()
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)
write("valid", {"__metadata__": {"format": "pt"},
                "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
                "b": {"dtype": "BF16", "shape": [4], "data_offsets": [24, 32]}}, bytes(32))
write("scalar", {"s": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}}, bytes(8))
write("overlap", {"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                  "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}}, bytes(6))
write("short", {"a": {"dtype": "F16", "shape": [8], "data_offsets": [0, 16]}}, bytes(3))
PY

echo "==> fuzzing for ${SECONDS_TO_RUN}s"
cd "$OUT"
"$BUILD/tests/fuzz/fuzz_safetensors_header" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 \
  -max_len=8192 -artifact_prefix="$OUT/crashes/" -print_final_stats=1 "$OUT/corpus"
