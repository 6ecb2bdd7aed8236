#!/usr/bin/env bash
# Generation benchmark: docsift against transformers 5.23 (reference.py: the family's *ForConditionalGeneration,
# eager attention), CPU, float32, greedy, one image, on a checkpoint with a real model's shapes and random weights,
# made once under BUILD_DIR/bench by make_checkpoint.py. Prints prefill and decode speed and peak RSS for both, the
# ratios, and how many greedy tokens agree; the raw JSON of each side is kept in BUILD_DIR/bench/<family>-run/.
#   bench/generate/run.sh [--family FAMILY] [BUILD_DIR] [MAX_NEW_TOKENS]    (FAMILY=... in the environment works too)
# Families (the table below; defaults: internvl3, build, the family's token count):
#   internvl3   InternVL3-1B-shaped (bfloat16 on disk, about 1.9 GB), one 448 px tile of the fixture invoice; 32 tokens
#   internvl35  InternVL3.5-1B-shaped (Qwen3-0.6B's decoder), the same image; 32 tokens
#   mllama      Llama 3.2 11B Vision's widths with 4 text layers (one cross-attention) and 2 + 1 vision layers
#               (2.07 B parameters, 8.3 GB of float32), a generated 1000x900 page: at 560 px only the 2x2 canvas
#               (1120x1120) holds it without downscaling, so it takes all 4 tiles (padded, not resized), the most
#               vision tokens (4 x 1601) and the worst case for memory. Prints vision seconds and decode ms/token
#               too, with the reference's top-1 - top-2 logit gap where the tokens first differ. VISION_ATTN=sdpa
#               runs transformers' vision tower through SDPA instead of eager attention (its text stays eager), as
#               a second point of comparison; 16 tokens
#   qwen25vl    Qwen2.5-VL-3B-shaped: every width of the 3B release, all 36 decoder layers and the full 32-block
#               vision tower (3.75 B parameters, 15.0 GB of float32 in 8 shards, hub layout, tied embeddings). Each
#               side holds the whole model (~15 GB), so they run one after the other; the machine needs ~17 GB
#               free and ~16 GB of disk. The image is a generated 448x448 page and max_pixels is 448*448 = 200704
#               on both sides, so it is not resized: a 32x32 patch grid (1024 patches, 256 merged tokens), what one
#               448 px tile is to InternVL; 32 tokens
#   qwen3vl     Qwen3-VL with internvl35's decoder exactly (Qwen3-0.6B's shape, with interleaved multimodal RoPE)
#               and Qwen3-VL-2B's vision tower (24 blocks, 16 px patches, DeepStack), bfloat16 on disk as
#               internvl35's (about 2.0 GB, release layout), so its decode tokens/s compares with InternVL3.5's
#               at the same decoder shape: the summary prints that ratio when BUILD_DIR/bench/internvl35-run/
#               holds a run (run internvl35 first). The page is qwen25vl's 448x448 one with max_pixels 448*448 =
#               200704 on both sides (448 = 14 x 32), so it is not resized: a 28x28 patch grid (784 patches,
#               196 merged tokens); 32 tokens
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FAMILY="${FAMILY:-internvl3}"
if [ "${1:-}" = "--family" ]; then FAMILY="${2:?--family needs a value}"; shift 2; fi
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
BIN="$BUILD/docsift"
[ -x "$BIN" ] || { echo "no $BIN; build first (scripts/setup.sh)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
"$ROOT/scripts/pyenv.sh"
PROMPT="What is the total amount? Answer with TOTAL: value."
VISION_ATTN="${VISION_ATTN:-eager}"

# The per-family table: checkpoint folder, make_checkpoint.py's arguments, the file it writes last, default token
# count, image (a fixture, or a page generated below), the arguments of each side, and the summary's label.
case "$FAMILY" in
  internvl3 | internvl35)
    if [ "$FAMILY" = internvl3 ]; then
      MODEL="$BUILD/bench/internvl3-1b-random"; MAKE=(2); LABEL="InternVL3-1B"
    else
      MODEL="$BUILD/bench/internvl35-1b-random"; MAKE=(internvl35); LABEL="InternVL3.5-1B"
    fi
    LAST=config.json; NEW_DEFAULT=32
    IMAGE="$ROOT/tests/fixtures/internvl/images/one_tile.png"
    OURS=(--max-tiles 1)
    REF=(--family internvl --max-tiles 1) ;;
  mllama)
    MODEL="$BUILD/bench/llama32-11b-widths-random"; MAKE=(--family mllama); LAST=preprocessor_config.json
    NEW_DEFAULT=16; LABEL="Llama 3.2 11B widths"
    IMAGE="$BUILD/bench/mllama-page-1000x900.png"
    OURS=(--max-tiles 4)
    REF=(--family mllama --max-tiles 4 --vision-attn "$VISION_ATTN") ;;
  qwen25vl)
    MODEL="$BUILD/bench/qwen25vl-3b-float32"; LAST=tokenizer_config.json; NEW_DEFAULT=32; LABEL="Qwen2.5-VL-3B"
    MAKE=(--family qwen25vl --shape 3b --dtype float32 --shard-mb 2000)
    IMAGE="$BUILD/bench/qwen25vl-page-448.png"
    MAX_PIXELS=200704
    # vision.resample=torch: transformers 5.23's default processor for this folder is the torchvision one (docsift's
    # default for the hub layout is Pillow's). At 448x448 with this max_pixels neither resizes.
    OURS=(--set vision.max_pixels=$MAX_PIXELS --set vision.resample=torch)
    REF=(--family qwen25vl --max-pixels $MAX_PIXELS) ;;
  qwen3vl)
    MODEL="$BUILD/bench/qwen3vl-1b-random"; MAKE=(--family qwen3vl); LAST=generation_config.json; NEW_DEFAULT=32
    LABEL="Qwen3-VL-2B-vision, InternVL3.5-1B-decoder"
    IMAGE="$BUILD/bench/qwen3vl-page-448.png"
    MAX_PIXELS=200704
    # The release's file names Qwen2VLImageProcessorFast: the torchvision processor on both sides (docsift's
    # default for it too); at 448x448 with this max_pixels neither resizes.
    OURS=(--set vision.max_pixels=$MAX_PIXELS --set vision.resample=torch)
    REF=(--family qwen3vl --max-pixels $MAX_PIXELS) ;;
  *) echo "FAMILY must be internvl3, internvl35, mllama, qwen25vl or qwen3vl" >&2; exit 2 ;;
esac
NEW="${2:-$NEW_DEFAULT}"

[ -f "$MODEL/$LAST" ] ||
  "$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/generate/make_checkpoint.py" "$MODEL" "${MAKE[@]}"
[ -f "$IMAGE" ] || "$ROOT/scripts/pyenv.sh" python3 - "$IMAGE" "$FAMILY" <<'PY'
import os, sys
import numpy as np
from PIL import Image, ImageDraw, ImageFont
# family -> size, title (position, font size), lines (first position, line step, font size), border (inset, width)
PAGES = {
    "mllama": dict(size=(1000, 900), title=((40, 30), 44), lines=((40, 120), 52, 30), border=(4, 3), text=[
        "Acme Pty Ltd   ABN 51 824 753 556", "Invoice 2024-0312   Date 12/03/2024", "",
        "Widgets x3                     $30.00", "Gadget service (2 h)           $120.00",
        "Delivery                        $15.00", "", "Subtotal                       $165.00",
        "GST 10%                         $16.50", "TOTAL                          $181.50"]),
    "qwen25vl": dict(size=(448, 448), title=((20, 16), 26), lines=((20, 64), 36, 18), border=(3, 2), text=[
        "Acme Pty Ltd  ABN 51 824 753 556", "Invoice 2024-0312  Date 12/03/2024", "",
        "Widgets x3                $30.00", "Gadget service (2 h)     $120.00", "Delivery                   $15.00", "",
        "Subtotal                 $165.00", "GST 10%                   $16.50", "TOTAL                    $181.50"]),
}
PAGES["qwen3vl"] = PAGES["qwen25vl"]  # the same page: 448 px is a whole number of merged patches for both
page = PAGES[sys.argv[2]]
w, h = page["size"]
img = Image.new("RGB", (w, h), (250, 248, 240))
d = ImageDraw.Draw(img)
path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
font = (lambda s: ImageFont.truetype(path, s)) if os.path.exists(path) else (lambda s: ImageFont.load_default())
(at, size) = page["title"]
d.text(at, "TAX INVOICE", fill=(20, 20, 60), font=font(size))
(x, y), step, size = page["lines"]
for i, line in enumerate(page["text"]):
    d.text((x, y + step * i), line, fill=(20, 20, 60), font=font(size))
inset, width = page["border"]
d.rectangle([inset, inset, w - 1 - inset, h - 1 - inset], outline=(120, 30, 30), width=width)
yy, xx = np.mgrid[0:h, 0:w]
arr = np.clip(np.asarray(img, dtype=np.int16) - ((xx + yy) * 40 // (w + h))[..., None], 0, 255).astype(np.uint8)
Image.fromarray(arr).save(sys.argv[1])
PY
OUT="$BUILD/bench/$FAMILY-run"
mkdir -p "$OUT"
# Both sides map the safetensors (transformers 5.23 too, for float32 into float32) and read each page when it is
# first used, inside the vision and prefill timings. Read the checkpoint into the page cache first, so that no
# figure includes the disk (one cold docsift run of mllama: prefill 16.6 s against 4.9 s warm).
cat "$MODEL"/*.safetensors > /dev/null

# The 1-minute load average before each side: this 2-core machine is shared, and other work shows up here.
cut -d' ' -f1 /proc/loadavg > "$OUT/docsift.loadavg"
/usr/bin/time -f "%M" -o "$OUT/docsift.maxrss_kb" "$BIN" generate --model "$MODEL" --image "$IMAGE" --prompt "$PROMPT" \
  --device cpu --dtype float32 "${OURS[@]}" --max-new-tokens "$NEW" --greedy --no-stop --json > "$OUT/docsift.json"
cut -d' ' -f1 /proc/loadavg > "$OUT/reference.loadavg"
"$ROOT/scripts/pyenv.sh" python3 "$ROOT/bench/generate/reference.py" "${REF[@]}" --model "$MODEL" --image "$IMAGE" \
  --prompt "$PROMPT" --max-new-tokens "$NEW" 2>"$OUT/reference.log" | tail -1 > "$OUT/reference.json"
python3 "$ROOT/bench/generate/summary.py" "$FAMILY" "$OUT" "$MODEL" "$LABEL"
