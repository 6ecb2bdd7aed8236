#!/usr/bin/env python3
"""Renders documents that the OCR rules were not written against: another layout (the supplier's
name first and the heading at the right, details in two columns, a table with other headings),
other label wordings ("Invoice Date", "Payment due", "Billed to", "Amount Due", "A.B.N.", "Tel",
"Statement of account", "Balance brought forward"...) and scan noise on every page (rotation up to
3 degrees, blur, speckle, JPEG at quality 55-75). Same fields and value formats as samples/.

    scripts/pyenv.sh python3 bench/ocr/make_unseen.py OUT_DIR [COUNT]
"""
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFilter, ImageFont

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from make_samples import (BOLD, FONT_DIR, invoice_row, money, statement_row, write_ground_truth)  # noqa: E402


def invoice(rng, name, receipt):
    # More and dearer items than samples/ (up to 9 of each, up to $400 each).
    row, items, qty, price = invoice_row(rng, name, receipt, max_qty=9, max_price=400)
    left = [(row["SUPPLIER"], "big"), (f"A.B.N. {row['ABN']}", ""), (row["BUSINESS_ADDRESS"], ""),
            (f"Tel {row['BUSINESS_PHONE']}", "")]
    right = [("SALES RECEIPT" if receipt else "TAX INVOICE", "title"),
             (f"Invoice Date: {row['INVOICE_DATE']}", "")]
    if not receipt:
        left.append((row["SUPPLIER_WEBSITE"], ""))
        right.append((f"Payment due: {row['DUE_DATE']}", ""))
    body = []
    if not receipt:
        body += [(f"Billed to: {row['PAYER_NAME']}", "bold"), (row["PAYER_ADDRESS"], ""), (row["PAYER_PHONE"], ""),
                 (row["PAYER_EMAIL"], ""), ("", "")]
    body += [("Item                   Quantity  Unit price", "bold")]
    body += [(f"{d:<22} {q:>8} {money(p):>11}", "mono") for d, q, p in zip(items, qty, price)]
    body += [("", ""), (f"Total (ex GST) {row['SUBTOTAL']}", ""), (f"GST {row['GST']}", ""),
             (f"Amount Due {row['TOTAL']}", "bold")]
    return row, left, right, body


def statement(rng, name):
    row, txns, amounts = statement_row(rng, name)
    holder = row["ACCOUNT_HOLDER"]
    left = [(row["BANK_NAME"], "big"), (f"Account name: {holder}", ""), (row["PAYER_ADDRESS"], "")]
    right = [("Statement of account", "title"), (f"BSB Number: {row['BSB_NUMBER']}", ""),
             (f"Account No: {row['BANK_ACCOUNT_NUMBER']}", ""), (f"Period: {row['STATEMENT_PERIOD']}", "")]
    body = [(f"Balance brought forward {row['OPENING_BALANCE']}", "bold"), ("", ""),
            ("Details                      Amount", "bold")]
    body += [(f"{t:<22} {money(a) if a >= 0 else '-' + money(-a):>13}", "mono") for t, a in zip(txns, amounts)]
    body += [("", ""), (f"Closing balance {row['CLOSING_BALANCE']}", "bold")]
    return row, left, right, body


def render(rng, left, right, body, path):
    width, height = 1000, 1300
    img = Image.new("L", (width, height), 250)
    draw = ImageDraw.Draw(img)
    family = rng.choice(["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansCondensed.ttf"])
    size = rng.randint(20, 24)
    fonts = {"": ImageFont.truetype(os.path.join(FONT_DIR, family), size),
             "bold": ImageFont.truetype(os.path.join(FONT_DIR, BOLD[family]), size),
             "big": ImageFont.truetype(os.path.join(FONT_DIR, BOLD[family]), size + 8),
             "title": ImageFont.truetype(os.path.join(FONT_DIR, BOLD[family]), size + 10),
             "mono": ImageFont.truetype(os.path.join(FONT_DIR, "DejaVuSansMono.ttf"), size - 2)}
    step = int(size * 1.5)
    x, y = rng.randint(50, 80), rng.randint(50, 80)
    for i, (text, style) in enumerate(left):
        draw.text((x, y + i * step), text, fill=rng.randint(0, 50), font=fonts[style])
    for i, (text, style) in enumerate(right):
        w = draw.textlength(text, font=fonts[style])
        draw.text((width - 60 - w, y + i * step), text, fill=rng.randint(0, 50), font=fonts[style])
    y += (max(len(left), len(right)) + 1) * step
    for text, style in body:
        if text:
            draw.text((x, y), text, fill=rng.randint(0, 50), font=fonts[style])
        y += step
    img = img.rotate(rng.uniform(-3.0, 3.0), resample=Image.BICUBIC, fillcolor=250)
    px = img.load()
    for _ in range(4000):
        px[rng.randrange(width), rng.randrange(height)] = rng.randint(0, 200)
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 1.0)))
    img.save(path, quality=rng.randint(55, 75))


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261123)
    rows = []
    for i in range(1, count + 1):
        name = f"unseen_{i:03d}.jpg"
        kind = ["invoice", "receipt", "statement"][(i - 1) % 3]
        row, left, right, body = statement(rng, name) if kind == "statement" else invoice(rng, name, kind == "receipt")
        render(rng, left, right, body, os.path.join(out, name))
        rows.append(row)
    write_ground_truth(out, rows)


if __name__ == "__main__":
    main()
