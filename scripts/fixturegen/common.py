"""What the fixture builders of every family share: paths, the synthetic document page, the random weights of a
realistic scale, and small file helpers. The family modules beside this one hold what differs."""
import json
import os

import numpy as np
import torch
from PIL import Image, ImageDraw, ImageFont
from safetensors import safe_open

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
TOKENIZERS = os.path.join(FIXTURES, "tokenizers")
SHARED = os.path.join(os.path.dirname(ROOT), "shared")  # real tokenizers, for the bench checkpoints only
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# CLIP's mean/std, as the Llama 3.2 Vision and Qwen2.5-VL preprocessors have them (the class defaults differ).
CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]


def render(width, height, seed, font_size, lines, text_at=None, line_step=None, box=(2, 2, 3, 3), box_width=2):
    """A synthetic document page: dark text on off-white, a border, and a soft diagonal shading (cheap to store as
    PNG, unlike noise) so that no tile is flat. text_at (x, first y) and line_step default to the font size's;
    box is the border's (left, top, right, bottom) distance from the edges."""
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", (width, height), (250, 248, 240))
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, font_size) if os.path.exists(FONT) else ImageFont.load_default()
    x, y = text_at or (4 + font_size // 2, 4 + font_size // 3)
    step = line_step or font_size + font_size // 2
    for line in lines:
        draw.text((x, y), line, fill=(20, 20, 60), font=font)
        y += step
    left, top, right, bottom = box
    draw.rectangle([left, top, width - right, height - bottom], outline=(120, 30, 30), width=box_width)
    yy, xx = np.mgrid[0:height, 0:width]
    shade = ((xx + yy) * 40 // (width + height)).astype(np.int16)[..., None]
    arr = np.clip(np.asarray(img, dtype=np.int16) - shade + rng.integers(0, 2, size=3), 0, 255).astype(np.uint8)
    return Image.fromarray(arr)


def randomize(model, seed, rule=None, norm_keys=("norm",)):
    """Replace the tiny init with values of a realistic scale, so every weight moves the output. rule(name, p, g)
    gives a family's own value for a parameter (or None for these defaults). Returns the generator, for
    equal_norm_rows() to draw on from where this left it."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            value = rule(name, p, g) if rule else None
            if value is not None:
                pass
            elif name.endswith("bias"):
                value = torch.randn(p.shape, generator=g) * 0.05
            elif any(k in name for k in norm_keys):  # LayerNorm / RMSNorm weights
                value = 1.0 + torch.randn(p.shape, generator=g) * 0.1
            elif p.dim() >= 2:
                value = torch.randn(p.shape, generator=g) / p[0].numel() ** 0.5
            else:
                value = torch.randn(p.shape, generator=g) * 0.02
            p.copy_(value)
    return g


def equal_norm_rows(tables, g, unused_from=None):
    """Rows of equal norm (4) for the embedding table and lm_head: with raw Gaussian rows a few "hub" tokens win
    every argmax and greedy decoding repeats one token, which would make the greedy-token test weak. Rows from
    unused_from on (padding, no token) get a tenth of it, as unused rows have in a trained model."""
    with torch.no_grad():
        for table in tables:
            rows = torch.nn.functional.normalize(torch.randn(table.shape, generator=g), dim=1) * 4.0
            if unused_from is not None:
                rows[unused_from:] *= 0.1
            table.copy_(rows)


def round_to_bfloat16(model):
    """Round to bfloat16 and back: float32 checkpoints then hold bf16-exact values, so a bfloat16 copy is the same
    model and reproduces the same float32 reference."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(torch.bfloat16).to(torch.float32))


def read_names(folder):
    """name -> (shape, dtype) over every safetensors file of a checkpoint folder."""
    out = {}
    for fn in sorted(os.listdir(folder)):
        if fn.endswith(".safetensors"):
            with safe_open(os.path.join(folder, fn), "pt") as f:
                for k in f.keys():
                    sl = f.get_slice(k)
                    out[k] = (tuple(sl.get_shape()), sl.get_dtype())
    return out


def write_json(obj, path, newline=False, ensure_ascii=True):
    """json.dump with indent 2; the families' files differ in the trailing newline and ASCII escaping (kept so
    that a remake writes the same bytes)."""
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, ensure_ascii=ensure_ascii)
        if newline:
            f.write("\n")


def make_dirs(out, subdirs):
    """A fresh output folder with the given sub-folders (what was there is removed)."""
    import shutil
    shutil.rmtree(out, ignore_errors=True)
    for d in subdirs:
        os.makedirs(os.path.join(out, d))


def print_sizes(out):
    total = 0
    for dp, _, fns in sorted(os.walk(out)):
        for fn in sorted(fns):
            size = os.path.getsize(os.path.join(dp, fn))
            total += size
            print(f"  {os.path.relpath(os.path.join(dp, fn), out):48s} {size:9d}")
    print(f"fixtures: {total / 1e6:.2f} MB in {out}")
