#!/usr/bin/env bash
# Tokenizer benchmark: docsift against the `tokenizers` Python binding (single thread), same
# corpus, same process conditions, both vocabularies. Prints MB/s for each and the ratio, and
# fails (exit 1) if the two disagree on a single id (token count + checksum over ~12 MB).
#   bench/tokenizer/run.sh [BUILD_DIR]      (default: build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
BENCH_BIN="$BUILD/docsift_bench_tokenizer"
if [ ! -x "$BENCH_BIN" ]; then
  echo "no $BENCH_BIN; build it: cmake --build $BUILD --target docsift_bench_tokenizer" >&2
  exit 2
fi
"$ROOT/scripts/pyenv.sh"
PY="$ROOT/scripts/pyenv.sh python3"
CORPUS="$BUILD/bench/tokenizer-corpus.jsonl"
mkdir -p "$(dirname "$CORPUS")"
[ -s "$CORPUS" ] || $PY "$ROOT/bench/tokenizer/make_corpus.py" "$CORPUS"

TOKENIZERS=()
for name in llama3 qwen2; do
  path="$ROOT/../shared/tokenizers/$name/tokenizer.json"
  if [ -f "$path" ]; then TOKENIZERS+=("$path"); else echo "skipping $name: $path is absent" >&2; fi
done
if [ "${#TOKENIZERS[@]}" -eq 0 ]; then
  echo "no real vocabularies; using the tiny test tokenizers" >&2
  TOKENIZERS=("$ROOT/tests/fixtures/tokenizers/tiny-llama/tokenizer.json" "$ROOT/tests/fixtures/tokenizers/tiny-qwen/tokenizer.json")
fi

status=0
printf '%-12s %10s %12s %14s %8s %8s  %s\n' vocabulary MB tokens "docsift MB/s" "ref MB/s" ratio "ids identical"
for tok in "${TOKENIZERS[@]}"; do
  ours="$("$BENCH_BIN" --tokenizer "$tok" --corpus "$CORPUS" --repeat 3)"
  ref="$($PY "$ROOT/bench/tokenizer/reference.py" --tokenizer "$tok" --corpus "$CORPUS" --repeat 3)"
  line="$(python3 - "$ours" "$ref" "$(basename "$(dirname "$tok")")" <<'PY'
import json, sys
ours, ref, name = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
same = ours["tokens"] == ref["tokens"] and ours["checksum"] == ref["checksum"]
print(f'{name:<12} {ours["bytes"] / 1e6:>10.1f} {ours["tokens"]:>12} {ours["mb_per_s"]:>14.2f} {ref["mb_per_s"]:>8.2f} '
      f'{ours["mb_per_s"] / ref["mb_per_s"]:>7.2f}x  {"yes" if same else "NO"} '
      f'(load {ours["load_seconds"]:.2f} s vs {ref["load_seconds"]:.2f} s; {ref["impl"]})')
sys.exit(0 if same else 1)
PY
)" || status=1
  echo "$line"
done
exit "$status"
