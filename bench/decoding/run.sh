#!/usr/bin/env bash
# keys decoding's figures (bench/decoding/README.md): decode steps per page from the ground truth
# (token_counts.py), then step costs and one page's wall time on the InternVL3-1B-shaped checkpoint
# (bench/generate/make_checkpoint.py, made once under BUILD_DIR/bench) on the CPU, float32.
# The checkpoint is given the real Qwen tokenizer (../shared/tokenizers/qwen2, whose added tokens end
# at 151668 </think>) with InternVL's three image tokens added after them (151669-151671, inside the
# checkpoint's 151,674-row vocabulary), so keys and values take the tokens they take in the real model.
#   bench/decoding/run.sh [BUILD_DIR] [CAP] [REPEATS]      (defaults: build, 8, 5)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
CAP="${2:-8}"
REPEATS="${3:-5}"
BIN="$BUILD/docsift_bench_keys"
[ -x "$BIN" ] || { echo "no $BIN; build first (scripts/setup.sh)" >&2; exit 2; }
QWEN2="$ROOT/../shared/tokenizers/qwen2/tokenizer.json"
[ -f "$QWEN2" ] || { echo "no Qwen2 tokenizer at $QWEN2" >&2; exit 2; }
"$ROOT/scripts/pyenv.sh"

BASE="$BUILD/bench/internvl3-1b-random"
[ -f "$BASE/config.json" ] || "$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/generate/make_checkpoint.py" "$BASE" 2
MODEL="$BUILD/bench/internvl3-1b-qwen2tok"
mkdir -p "$MODEL"
ln -sf "$BASE/model.safetensors" "$MODEL/model.safetensors"
cp "$BASE/generation_config.json" "$MODEL/"
python3 - "$BASE/config.json" "$QWEN2" "$MODEL" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
tok = json.load(open(sys.argv[2]))
last = max(t["id"] for t in tok["added_tokens"])
ids = {"<img>": last + 1, "</img>": last + 2, "<IMG_CONTEXT>": last + 3}
for content, i in ids.items():
    tok["added_tokens"].append({"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
                                "normalized": False, "special": True})
config["image_token_id"] = ids["<IMG_CONTEXT>"]
assert config["text_config"]["vocab_size"] > max(ids.values())
json.dump(config, open(sys.argv[3] + "/config.json", "w"), indent=1)
json.dump(tok, open(sys.argv[3] + "/tokenizer.json", "w"))
PY
costs="$(mktemp)"; trap 'rm -f "$costs"' EXIT
"$BIN" "$MODEL" "$ROOT/tests/fixtures/internvl/images/one_tile.png" "$CAP" "$REPEATS" 1 | tee "$costs"
# The step counts of samples/' ground truth with the real tokenizers, and the page speed-up they imply
# at the step costs just measured.
"$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/decoding/token_counts.py" --costs "$costs"
