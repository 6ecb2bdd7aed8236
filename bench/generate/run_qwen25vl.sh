#!/usr/bin/env bash
# Qwen2.5-VL generation benchmark: docsift against transformers 5.23 (Qwen2_5_VLForConditionalGeneration, eager
# attention), CPU, float32, greedy, one image, on a Qwen2.5-VL-3B-shaped checkpoint with random weights: every
# width of the 3B release, all 36 decoder layers and the full 32-block vision tower (3.75 B parameters, 15.0 GB of
# float32 in 8 shards, hub layout, tied embeddings), made once by scripts/make_qwen25vl_fixtures.py
# --bench-checkpoint under BUILD_DIR/bench. Each side holds the whole model (~15 GB), so they run one after the
# other; the machine needs ~17 GB free and ~16 GB of disk.
# The image is a generated 448x448 page and max_pixels is 448*448 = 200704 on both sides, so it is not resized:
# a 32x32 patch grid (1024 patches, 256 merged tokens), what one 448 px tile is to InternVL.
# Prints vision seconds, prefill tokens/s (image included) and decode tokens/s, peak RSS for both, the ratios, and
# how many greedy tokens agree (with the reference's top-1 - top-2 logit gap where they first differ).
#   bench/generate/run_qwen25vl.sh [BUILD_DIR] [MAX_NEW_TOKENS]     (defaults: build, 32)
# The raw JSON of each side is kept in BUILD_DIR/bench/qwen25vl-run/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
NEW="${2:-32}"
BIN="$BUILD/docsift"
[ -x "$BIN" ] || { echo "no $BIN; build first (scripts/setup.sh)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
"$ROOT/scripts/pyenv.sh"
MODEL="$BUILD/bench/qwen25vl-3b-float32"
MAX_PIXELS=200704
# tokenizer_config.json is the last file the maker writes.
[ -f "$MODEL/tokenizer_config.json" ] ||
  "$ROOT/scripts/pyenv.sh" python3 "$ROOT/scripts/make_qwen25vl_fixtures.py" --bench-checkpoint "$MODEL" \
    --shape 3b --dtype float32 --shard-mb 2000
IMAGE="$BUILD/bench/qwen25vl-page-448.png"
[ -f "$IMAGE" ] || "$ROOT/scripts/pyenv.sh" python3 - "$IMAGE" <<'PY'
import os, sys
import numpy as np
from PIL import Image, ImageDraw, ImageFont
w = h = 448
img = Image.new("RGB", (w, h), (250, 248, 240))
d = ImageDraw.Draw(img)
path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
font = (lambda s: ImageFont.truetype(path, s)) if os.path.exists(path) else (lambda s: ImageFont.load_default())
d.text((20, 16), "TAX INVOICE", fill=(20, 20, 60), font=font(26))
lines = ["Acme Pty Ltd  ABN 51 824 753 556", "Invoice 2024-0312  Date 12/03/2024", "",
         "Widgets x3                $30.00", "Gadget service (2 h)     $120.00", "Delivery                   $15.00",
         "", "Subtotal                 $165.00", "GST 10%                   $16.50", "TOTAL                    $181.50"]
for i, line in enumerate(lines):
    d.text((20, 64 + 36 * i), line, fill=(20, 20, 60), font=font(18))
d.rectangle([3, 3, w - 4, h - 4], outline=(120, 30, 30), width=2)
yy, xx = np.mgrid[0:h, 0:w]
arr = np.clip(np.asarray(img, dtype=np.int16) - ((xx + yy) * 40 // (w + h))[..., None], 0, 255).astype(np.uint8)
Image.fromarray(arr).save(sys.argv[1])
PY
PROMPT="What is the total amount? Answer with TOTAL: value."
OUT="$BUILD/bench/qwen25vl-run"
mkdir -p "$OUT"
# Both sides map the float32 safetensors and read each page when it is first used, inside the timings. Read the
# 15 GB into the page cache first, so that no figure includes the disk.
cat "$MODEL"/*.safetensors > /dev/null

# The 1-minute load average before each side: this 2-core machine is shared, and other work shows up here.
cut -d' ' -f1 /proc/loadavg > "$OUT/docsift.loadavg"
# vision.resample=torch: transformers 5.23's default processor for this folder is the torchvision one (docsift's
# default for the hub layout is Pillow's). At 448x448 with this max_pixels neither resizes.
/usr/bin/time -f "%M" -o "$OUT/docsift.maxrss_kb" "$BIN" generate --model "$MODEL" --image "$IMAGE" --prompt "$PROMPT" \
  --device cpu --dtype float32 --set vision.max_pixels=$MAX_PIXELS --set vision.resample=torch \
  --max-new-tokens "$NEW" --greedy --no-stop --json > "$OUT/docsift.json"
cut -d' ' -f1 /proc/loadavg > "$OUT/reference.loadavg"
"$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/generate/reference_qwen25vl.py" --model "$MODEL" --image "$IMAGE" \
  --prompt "$PROMPT" --max-pixels $MAX_PIXELS --max-new-tokens "$NEW" 2>"$OUT/reference.log" |
  tail -1 > "$OUT/reference.json"
python3 - "$OUT" "$MODEL" <<'PY'
import json, os, sys
out, model = sys.argv[1], sys.argv[2]
ours = json.load(open(os.path.join(out, "docsift.json")))
ours_rss = int(open(os.path.join(out, "docsift.maxrss_kb")).read().split()[-1]) / 1024
ref = json.load(open(os.path.join(out, "reference.json")))
cfg = json.load(open(os.path.join(model, "config.json")))
t = ours["timings_s"]
n = len(ours["ids"])
assert ours["prompt_tokens"] == ref["prompt_tokens"], "the two sides' prompts differ"
assert ours["grid"] == [ref["grid_thw"][2], ref["grid_thw"][1]], "the two sides' patch grids differ"
# Prefill includes encoding the image on both sides: transformers does it inside the forward pass.
ours_prefill = ours["prompt_tokens"] / (t["vision"] + t["prefill"])
ours_decode = ours["tokens_per_s"]["decode"]
agree = sum(1 for a, b in zip(ours["ids"], ref["ids"]) if a == b)
first = next((i for i, (a, b) in enumerate(zip(ours["ids"], ref["ids"])) if a != b), None)
g = ref["grid_thw"]
print(f"Qwen2.5-VL-3B-shaped random weights ({cfg['num_hidden_layers']} text layers, vision depth "
      f"{cfg['vision_config']['depth']}), CPU float32, {g[1]}x{g[2]} patches ({ref['patches'] // 4} image tokens), "
      f"{ours['prompt_tokens']} prompt tokens, {n} new tokens, {ref['threads']} threads")
print(f"{'':<34}{'docsift':>10}{'transformers':>14}{'ratio':>8}")
row = lambda name, a, b, fmt, better_low: print(
    f"{name:<34}{a:>10{fmt}}{b:>14{fmt}}{(b / a if better_low else a / b):>7.2f}x")
# Ratios: how many times faster / smaller docsift is (> 1 is better for docsift).
row("vision s", t["vision"], ref["vision_s"], ".2f", True)
row("prefill tokens/s (image included)", ours_prefill, ref["prefill_tokens_per_s"], ".1f", False)
row("decode tokens/s", ours_decode, ref["decode_tokens_per_s"], ".2f", False)
row("peak RSS MB", ours_rss, ref["peak_rss_mb"], ".0f", True)
print("(ratios: transformers / docsift for times and memory, docsift / transformers for tokens/s)")
print(f"prefill s: docsift {t['vision']:.2f} vision + {t['prefill']:.2f} text; transformers {ref['prefill_s']:.2f} "
      f"(one forward pass, vision {ref['vision_s']:.2f} inside)")
la, lp = ref["rss_after_load_mb"], ref["rss_after_prefill_mb"]
print(f"docsift weights as held {ours['weight_bytes'] / 2**20:.0f} MiB; transformers peak RSS MB after load "
      f"{la['peak']:.0f}, after prefill {lp['peak']:.0f} (then anon {lp['RssAnon']:.0f} + file {lp['RssFile']:.0f})")
msg = f"greedy tokens identical: {agree}/{len(ref['ids'])}"
if first is not None:
    msg += (f" (first difference at {first}: docsift {ours['ids'][first]}, transformers {ref['ids'][first]}, "
            f"transformers' top-1 - top-2 logit gap there {ref['top2_gaps'][first]:.5f})")
print(msg)
load = [open(os.path.join(out, f + ".loadavg")).read().strip() for f in ("docsift", "reference")]
print(f"1-minute load average before each side: docsift {load[0]}, transformers {load[1]}")
print(f"smallest top-1 - top-2 logit gap in the reference's {len(ref['ids'])} steps: {min(ref['top2_gaps']):.5f}")
PY
