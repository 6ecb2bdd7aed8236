#!/usr/bin/env python3
"""Pillow's bicubic resize outputs for docsift's exact reimplementation (lib/docsift/image):
tests/fixtures/resample/input.png (61×47 RGB: sharp strokes on a gradient, with noise) and its
resizes with Image.BICUBIC to each size below, as PNG (lossless), named out_WxH.png.

Each reference is made as Pillow's source makes it (src/libImaging/Resample.c,
ImagingResampleInner, read at upstream HEAD 4e5f09f after 12.3.0): the horizontal pass, rounded
to 8 bits, then the vertical pass; here as two single-axis resizes, which run exactly those two
passes. The pinned pillow==13.0.0 wheel's one-call resize does the vertical pass first for some
sizes (97x20 here), which upstream's source never does; direct_WxH.png keeps its output, and the
test reports how far the two are apart.

    scripts/pyenv.sh python3 scripts/make_resample_fixtures.py
"""
import os
import random

from PIL import Image, ImageDraw

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "resample")
# Enlarged, shrunk, enlarged on one axis while shrunk on the other (both ways), and a big shrink.
SIZES = [(150, 113), (23, 17), (97, 20), (30, 80), (7, 5)]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(17)
    img = Image.new("RGB", (61, 47))
    px = img.load()
    for y in range(47):
        for x in range(61):
            px[x, y] = (x * 4 % 256, y * 5 % 256, rng.randint(0, 255))
    draw = ImageDraw.Draw(img)
    draw.line((3, 40, 55, 5), fill=(0, 0, 0), width=2)
    draw.rectangle((10, 10, 20, 30), outline=(255, 255, 255))
    draw.text((25, 25), "Ab1", fill=(10, 250, 10))
    img.save(os.path.join(OUT, "input.png"))
    for w, h in SIZES:
        two_pass = img.resize((w, img.height), Image.BICUBIC).resize((w, h), Image.BICUBIC)
        two_pass.save(os.path.join(OUT, f"out_{w}x{h}.png"))
        direct = img.resize((w, h), Image.BICUBIC)
        if direct.tobytes() != two_pass.tobytes():
            direct.save(os.path.join(OUT, f"direct_{w}x{h}.png"))
    print(f"{OUT}: input.png and {len(SIZES)} resizes")


if __name__ == "__main__":
    main()
