#!/usr/bin/env python3
"""Odd but valid images for the decoder tests, written to tests/fixtures/images/ (a few KB).

    scripts/pyenv.sh python3 scripts/make_image_fixtures.py

Each has a known expected decode: see tests/e2e/test_run.cpp.
"""
import os

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "images")


def main():
    os.makedirs(OUT, exist_ok=True)
    Image.new("RGB", (1, 1), (10, 200, 30)).save(os.path.join(OUT, "one_pixel.png"))
    # 16-bit grayscale: value 65535·k/7 in column band k.
    g16 = Image.new("I;16", (64, 8))
    g16.putdata([65535 * (x // 8) // 7 for _ in range(8) for x in range(64)])
    g16.save(os.path.join(OUT, "gray16.png"))
    # Transparent page with one opaque red square: the transparent part must come out white.
    rgba = Image.new("RGBA", (32, 32), (0, 0, 0, 0))
    for y in range(8, 16):
        for x in range(8, 16):
            rgba.putpixel((x, y), (255, 0, 0, 255))
    rgba.save(os.path.join(OUT, "transparent.png"))
    # CMYK JPEG of pure cyan.
    Image.new("CMYK", (16, 16), (255, 0, 0, 0)).save(os.path.join(OUT, "cmyk.jpg"), quality=95)
    # 40 wide × 20 tall stored, EXIF orientation 6 (rotate 90° clockwise to view): 20 wide × 40 tall.
    img = Image.new("RGB", (40, 20), (255, 255, 255))
    for y in range(20):
        for x in range(10):
            img.putpixel((x, y), (0, 0, 0))  # the stored left edge is black: the top after rotation
    exif = Image.Exif()
    exif[0x0112] = 6
    img.save(os.path.join(OUT, "exif_rotated.jpg"), exif=exif.tobytes(), quality=95)
    # The same EXIF orientations in PNG (eXIf chunk), lossless WebP (EXIF chunk, after the image
    # data) and TIFF (the file's own IFD), with the view Pillow's exif_transpose makes of each as a
    # plain PNG beside it: every orientation that moves pixels differently (2-8) in one format or another.
    from PIL import ImageOps
    page = Image.new("RGB", (12, 7))
    page.putdata([((x * 20) % 256, (y * 35) % 256, (x * y * 7) % 256) for y in range(7) for x in range(12)])
    for fmt, ext, orientations, extra in (("PNG", "png", (3, 6), {}), ("WEBP", "webp", (5, 8), {"lossless": True}),
                                          ("TIFF", "tif", (2, 4, 7), {})):
        for o in orientations:
            exif = Image.Exif()
            exif[0x0112] = o
            name = f"exif_{o}.{ext}"
            page.save(os.path.join(OUT, name), fmt, exif=exif.tobytes(), **extra)
            with Image.open(os.path.join(OUT, name)) as stored:
                assert stored.getexif().get(0x0112) == o, name
                ImageOps.exif_transpose(stored).convert("RGB").save(
                    os.path.join(OUT, f"exif_{o}.{ext}.expected.png"))
    print(f"{OUT}: {len(os.listdir(OUT))} images")


if __name__ == "__main__":
    main()
