#!/usr/bin/env bash
# Generation benchmark: docsift against transformers (eager attention), CPU, float32, greedy, one
# image, on an InternVL3-1B-shaped checkpoint with random weights made by make_checkpoint.py
# (about 1.9 GB under BUILD_DIR/bench, made once). Prints prefill and decode tokens/s and peak RSS
# for both, the ratios, and how many greedy tokens agree. FAMILY=internvl35 runs an InternVL3.5-1B-shaped
# checkpoint instead (Qwen3-0.6B's decoder).
#   [FAMILY=internvl35] bench/generate/run.sh [BUILD_DIR] [MAX_NEW_TOKENS]     (defaults: build, 32)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
NEW="${2:-32}"
BIN="$BUILD/docsift"
[ -x "$BIN" ] || { echo "no $BIN; build first (scripts/setup.sh)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
"$ROOT/scripts/pyenv.sh"
FAMILY="${FAMILY:-internvl3}"
case "$FAMILY" in
  internvl3) MODEL="$BUILD/bench/internvl3-1b-random"; VARIANT=2; LABEL="InternVL3-1B" ;;
  internvl35) MODEL="$BUILD/bench/internvl35-1b-random"; VARIANT=internvl35; LABEL="InternVL3.5-1B" ;;
  *) echo "FAMILY must be internvl3 or internvl35" >&2; exit 2 ;;
esac
[ -f "$MODEL/config.json" ] || "$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/generate/make_checkpoint.py" "$MODEL" "$VARIANT"
IMAGE="$ROOT/tests/fixtures/internvl/images/one_tile.png"
PROMPT="What is the total amount? Answer with TOTAL: value."

ours_json="$(mktemp)"; ours_time="$(mktemp)"; trap 'rm -f "$ours_json" "$ours_time"' EXIT
/usr/bin/time -f "%M" -o "$ours_time" "$BIN" generate --model "$MODEL" --image "$IMAGE" --prompt "$PROMPT" \
  --device cpu --dtype float32 --max-tiles 1 --max-new-tokens "$NEW" --greedy --no-stop --json > "$ours_json"
ref="$("$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/generate/reference.py" --model "$MODEL" --image "$IMAGE" \
  --prompt "$PROMPT" --max-tiles 1 --max-new-tokens "$NEW" 2>/dev/null | tail -1)"
python3 - "$ours_json" "$(cat "$ours_time")" "$ref" "$LABEL" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))
ours_rss = int(sys.argv[2]) / 1024
ref = json.loads(sys.argv[3])
label = sys.argv[4]
t = ours["timings_s"]
# Prefill includes encoding the image for both: transformers does it inside the forward pass.
ours_prefill = ours["prompt_tokens"] / (t["vision"] + t["prefill"])
ours_decode = ours["tokens_per_s"]["decode"]
agree = sum(1 for a, b in zip(ours["ids"], ref["ids"]) if a == b)
first_diff = next((i for i, (a, b) in enumerate(zip(ours["ids"], ref["ids"])) if a != b), None)
print(f"{label}-shaped random weights, CPU float32, {ours['tiles']} tile, {ours['prompt_tokens']} prompt tokens, "
      f"{len(ours['ids'])} new tokens, {ref['threads']} threads")
print(f"{'':<22}{'docsift':>12}{'transformers':>14}{'ratio':>8}")
print(f"{'prefill tokens/s':<22}{ours_prefill:>12.1f}{ref['prefill_tokens_per_s']:>14.1f}{ours_prefill / ref['prefill_tokens_per_s']:>7.2f}x")
print(f"{'decode tokens/s':<22}{ours_decode:>12.2f}{ref['decode_tokens_per_s']:>14.2f}{ours_decode / ref['decode_tokens_per_s']:>7.2f}x")
print(f"{'peak RSS MB':<22}{ours_rss:>12.0f}{ref['peak_rss_mb']:>14.0f}{ours_rss / ref['peak_rss_mb']:>7.2f}x")
print(f"greedy tokens identical: {agree}/{len(ref['ids'])}" + ("" if first_diff is None else f" (first difference at {first_diff})"))
PY
