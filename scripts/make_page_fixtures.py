#!/usr/bin/env python3
"""Documents with pages for the tests, from the samples: tests/fixtures/pages/

    three_pages.pdf   samples 001-003 as a 3-page PDF (images at 100 dpi, as the samples are drawn)
    one_page.pdf      sample 005 alone: its record keeps the plain name
    encrypted.pdf     one_page.pdf under a user password (pypdf, RC4-128)
    damaged.pdf       three_pages.pdf cut to its first 40 % (no cross-reference table, no trailer)
    empty.pdf         a well-formed PDF with no pages

A multi-page TIFF is written by the test itself (uncompressed, from the same samples): this Pillow's
compressed TIFF writer fails, and an uncompressed one would be 2.8 MB to commit.

    scripts/pyenv.sh python3 scripts/make_page_fixtures.py
"""
import io
import os

from PIL import Image
from pypdf import PdfWriter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "pages")


def sample(n):
    return Image.open(os.path.join(ROOT, "samples", f"synthetic_invoice_{n:03d}.png")).convert("L")


def main():
    os.makedirs(OUT, exist_ok=True)
    pages = [sample(n) for n in (1, 2, 3)]
    pages[0].save(os.path.join(OUT, "three_pages.pdf"), save_all=True, append_images=pages[1:], resolution=100.0)
    sample(5).save(os.path.join(OUT, "one_page.pdf"), resolution=100.0)

    writer = PdfWriter(clone_from=os.path.join(OUT, "one_page.pdf"))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    with open(os.path.join(OUT, "encrypted.pdf"), "wb") as f:
        writer.write(f)

    with open(os.path.join(OUT, "three_pages.pdf"), "rb") as f:
        data = f.read()
    with open(os.path.join(OUT, "damaged.pdf"), "wb") as f:
        f.write(data[: len(data) * 2 // 5])

    empty = PdfWriter()
    buffer = io.BytesIO()
    empty.write(buffer)
    with open(os.path.join(OUT, "empty.pdf"), "wb") as f:
        f.write(buffer.getvalue())
    for name in sorted(os.listdir(OUT)):
        print(f"{name}: {os.path.getsize(os.path.join(OUT, name))} bytes")


if __name__ == "__main__":
    main()
