#!/usr/bin/env bash
# Fuzzes the untrusted-input parsers with libFuzzer for a bounded time each.
#   scripts/fuzz.sh [SECONDS] [safetensors|tokenizer|exif|ocr|all]    (default 60, all)
# safetensors: the header parser. tokenizer: tokenizer.json loading, and encode/decode/stream
# of arbitrary text with the tiny test tokenizer.
# Builds with clang into build-fuzz/ (installs clang and its runtime if missing), seeds a corpus
# per target, and exits non-zero if the fuzzer finds a crash; crash inputs are left in fuzz-out/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_TO_RUN="${1:-60}"
WHICH="${2:-all}"
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

echo "==> building the fuzz targets (clang, ASan + UBSan + libFuzzer)"
cmake -S "$ROOT" -B "$BUILD" -DDOCSIFT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target fuzz_safetensors_header fuzz_tokenizer fuzz_exif fuzz_ocr_values

mkdir -p "$OUT/corpus" "$OUT/tokenizer-corpus" "$OUT/exif-corpus" "$OUT/ocr-corpus" "$OUT/crashes"
printf 'Total RM 9,90 28-12-17 18: 52' >"$OUT/ocr-corpus/receipt"
printf "Rechnungssumme brutto 1.005,55 EUR 11. M\xc3\xa4rz 2014 CHF 2'606.35 1 210,00 K\xc4\x8d" >"$OUT/ocr-corpus/invoice"
# The EXIF parser starts from the fixture images that carry an orientation.
cp "$ROOT"/tests/fixtures/images/exif_* "$OUT/exif-corpus/" 2>/dev/null || true
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

python3 - "$OUT/tokenizer-corpus" <<'PY'
import json, os, sys
out = sys.argv[1]
texts = ["Tax Invoice\nABN 51 824 753 556\nTotal: $1,234.56", "<|im_start|>user\n<img><IMG_CONTEXT></img>\nQ<|im_end|>",
         "café e\u0301 東京 😀👍🏽\t\r\n  x ABN y <LS> a<RS>  b [FIELD]", "DON'T we'll   \u00a0\u3000\u0085"]
for i, t in enumerate(texts):
    open(os.path.join(out, f"text{i}"), "wb").write(b"\x01" + t.encode())
tok = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "\u0120": 3}, "merges": ["a b"]},
       "normalizer": {"type": "NFC"},
       "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
           {"type": "Split", "pattern": {"Regex": "\\s+|\\p{L}+"}, "behavior": "Isolated", "invert": False},
           {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]},
       "decoder": {"type": "ByteLevel"},
       "added_tokens": [{"id": 4, "content": "<s>", "special": True, "lstrip": False, "rstrip": False,
                         "single_word": False, "normalized": False}]}
open(os.path.join(out, "json0"), "wb").write(b"\x00" + json.dumps(tok).encode())
PY

status=0
cd "$OUT"
run_target() {  # name corpus
  echo "==> fuzzing $1 for ${SECONDS_TO_RUN}s"
  "$BUILD/tests/fuzz/$1" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 \
    -max_len=8192 -artifact_prefix="$OUT/crashes/$1-" -print_final_stats=1 "$2" || status=1
}
case "$WHICH" in
  safetensors) run_target fuzz_safetensors_header "$OUT/corpus" ;;
  tokenizer) run_target fuzz_tokenizer "$OUT/tokenizer-corpus" ;;
  exif) run_target fuzz_exif "$OUT/exif-corpus" ;;
  ocr) run_target fuzz_ocr_values "$OUT/ocr-corpus" ;;
  all) run_target fuzz_safetensors_header "$OUT/corpus"; run_target fuzz_tokenizer "$OUT/tokenizer-corpus"
       run_target fuzz_exif "$OUT/exif-corpus"; run_target fuzz_ocr_values "$OUT/ocr-corpus" ;;
  *) echo "unknown target '$WHICH' (safetensors, tokenizer, exif, ocr or all)" >&2; exit 2 ;;
esac
exit "$status"
