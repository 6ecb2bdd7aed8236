#!/usr/bin/env bash
# Fuzzes the untrusted-input parsers with libFuzzer for a bounded time each.
#   scripts/fuzz.sh [SECONDS] [safetensors|tokenizer|exif|ocr|config|journal|files|model_files|image_header|image_pages|pdf|model_config|
#                    safetensors_index|generation_config|tokenizer_files|file_list|eval_files|metrics|lock_file|image_decode|known_names|recognizer_graph|calibration|all]
#   (default 60, all; RUNS=N stops a target after N executions instead, whichever comes first)
# safetensors: the header parser. tokenizer: tokenizer.json loading, and encode/decode/stream
# of arbitrary text with the tiny test tokenizer. exif: the orientation parser. ocr: the OCR
# engine's value finders. config: config files and --set. journal: journal records, summary.json
# and the worker protocol. files: OCR rules files and CSVs. model_files: tokenizer_config.json and the
# chat templates. image_header: the header checks before decoding. image_pages: each TIFF page's and a
# WebP's declared size, before decoding. pdf: Poppler loading, text and
# rendering, in libFuzzer's fork mode (a Poppler crash is recorded and the campaign goes on).
# model_config: each family's config.json. safetensors_index: model.safetensors.index.json.
# generation_config: generation_config.json's eos_token_id.
# tokenizer_files: a slow tokenizer's vocab.json, merges.txt and added_tokens.json. file_list: a
# --files-from list. eval_files: eval's JSONL truth and --baseline report. metrics: the previous
# metrics file read back. lock_file: the output lock file's text. image_decode: image files through
# OpenCV's decoders (every TIFF page), as a run reads them. known_names: a list of known sellers
# (ocr.known_sellers) and a value to find in it. recognizer_graph: the second recognizer's graph file
# (recognizer.json, ocr.recognizer_model). calibration: an OCR calibration file (ocr.calibration) and a
# threshold file (a config whose review.fields name fields).
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
TARGETS=(safetensors_header tokenizer exif ocr_values config journal files model_files image_header image_pages pdf model_config
         safetensors_index generation_config tokenizer_files file_list eval_files metrics lock_file image_decode known_names recognizer_graph
         calibration)
case "$WHICH" in
  safetensors) run=(safetensors_header) ;;
  tokenizer | exif | config | journal | files | model_files | image_header | image_pages | pdf | model_config | \
  safetensors_index | generation_config | tokenizer_files | file_list | eval_files | metrics | lock_file | image_decode | known_names | recognizer_graph | \
  calibration) run=("$WHICH") ;;
  ocr) run=(ocr_values) ;;
  all) run=("${TARGETS[@]}") ;;
  *) echo "unknown target '$WHICH' (safetensors, tokenizer, exif, ocr, config, journal, files, model_files, image_header, image_pages, pdf, model_config, safetensors_index, generation_config, tokenizer_files, file_list, eval_files, metrics, lock_file, image_decode, known_names, recognizer_graph, calibration or all)" >&2; exit 2 ;;
esac
# Only the targets to be run are built.
cmake --build "$BUILD" -j "$(nproc)" --target "${run[@]/#/fuzz_}"

# Each target starts from its seeds in tests/fuzz/corpus/<target>/ (committed, small; CTest replays
# them on every build), copied so that what the fuzzer adds stays out of the repository. EXIF
# starts from the fixture images that carry an orientation.
mkdir -p "$OUT/crashes"
for target in "${run[@]}"; do
  mkdir -p "$OUT/$target-corpus"
  if [[ $target == exif ]]; then
    cp "$ROOT"/tests/fixtures/images/exif_* "$OUT/$target-corpus/" 2>/dev/null || true
  else
    cp "$ROOT/tests/fuzz/corpus/$target"/* "$OUT/$target-corpus/"
  fi
done

status=0
cd "$OUT"
run_target() {  # name corpus
  echo "==> fuzzing $1 for ${SECONDS_TO_RUN}s"
  local extra=()
  [[ -n "${RUNS:-}" ]] && extra+=(-runs="$RUNS")
  [[ $1 == fuzz_pdf ]] && extra+=(-fork=1 -ignore_crashes=1)
  # fontconfig's process-lifetime cache is not a leak of ours (tests/fuzz/lsan.supp).
  export LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp"
  "$BUILD/tests/fuzz/$1" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 \
    -max_len=8192 -artifact_prefix="$OUT/crashes/$1-" -print_final_stats=1 "${extra[@]}" "$2" || status=1
}
for target in "${run[@]}"; do run_target "fuzz_$target" "$OUT/$target-corpus"; done
exit "$status"
