#!/usr/bin/env python3
"""Renders the 20 sample documents in samples/ and their ground truth, deterministically.

    scripts/pyenv.sh python3 scripts/make_samples.py [OUT_DIR]   (default: samples/)

Tax invoices, receipts and bank statements with varied layouts, line items and DejaVu fonts; a few
are slightly rotated and noisy like scans. samples/ground_truth.csv uses the reference system's
column layout and value formats (docs/eval.md, "Ground truth"): ABN "04 904 754 234", dates
DD/MM/YYYY, money "$58.62", lists pipe-separated, BSB "063 140", N/A for fields a document lacks.
"""
import csv
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSansCondensed.ttf"]
BOLD = {"DejaVuSans.ttf": "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf": "DejaVuSerif-Bold.ttf",
        "DejaVuSansMono.ttf": "DejaVuSansMono-Bold.ttf", "DejaVuSansCondensed.ttf": "DejaVuSansCondensed-Bold.ttf"}
COLUMNS = ["image_file", "DOCUMENT_TYPE", "SUPPLIER", "ABN", "PAYER_NAME", "PAYER_ADDRESS", "PAYER_PHONE",
           "PAYER_EMAIL", "INVOICE_DATE", "DUE_DATE", "GST", "TOTAL", "SUBTOTAL", "QUANTITIES", "PRICES",
           "BUSINESS_ADDRESS", "BUSINESS_PHONE", "SUPPLIER_WEBSITE", "BANK_NAME", "BSB_NUMBER", "BANK_ACCOUNT_NUMBER",
           "ACCOUNT_HOLDER", "STATEMENT_PERIOD", "OPENING_BALANCE", "CLOSING_BALANCE", "DESCRIPTIONS"]
SUPPLIERS = ["Harbour Office Supplies", "Coastal Plumbing Pty Ltd", "Redgum Electrical", "Southern Cross Catering",
             "Blue Wren Printing", "Ironbark Hardware", "Kookaburra Cafe", "Eucalypt IT Services"]
STREETS = ["12 George Street, Sydney NSW 2000", "88 Collins Street, Melbourne VIC 3000",
           "5 Adelaide Terrace, Perth WA 6000", "301 Queen Street, Brisbane QLD 4000",
           "44 Rundle Mall, Adelaide SA 5000", "7 Elizabeth Street, Hobart TAS 7000"]
PAYERS = ["Jordan Smith", "Priya Patel", "Liam O'Connor", "Mei Chen", "Aisha Rahman", "Tom Nguyen"]
ITEMS = ["A4 paper ream", "Toner cartridge", "Labour (hour)", "Copper fitting", "Catering platter", "Flyers x500",
         "Extension lead", "Coffee beans 1kg", "Network switch", "Service call-out", "Stapler", "Whiteboard"]
BANKS = ["Commonwealth Bank", "Westpac", "ANZ", "NAB"]
TXNS = ["Salary deposit", "Woolworths", "Rent payment", "Electricity bill", "Transfer to savings", "Coles",
        "Fuel", "Phone bill"]


def money(v):
    return f"${v:,.2f}"


def date(rng, year=2025):
    return f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{year}"


def abn(rng):
    """A valid ABN: nine random digits and the two check digits that make the weighted sum (first
    digit less one) divisible by 89, as the Australian Business Register assigns them. Draws 11
    digits as before, so the other documents' random choices are unchanged."""
    d = [rng.randint(0, 9) for _ in range(11)][2:]
    weights = [3, 5, 7, 9, 11, 13, 15, 17, 19]
    v = -sum(w * x for w, x in zip(weights, d)) % 89  # = 10 * (first - 1) + second
    digits = f"{v // 10 + 1}{v % 10}" + "".join(map(str, d))
    return f"{digits[:2]} {digits[2:5]} {digits[5:8]} {digits[8:]}"


def phone(rng):
    return f"(0{rng.randint(2, 8)}) {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"


def na_row(name, doc_type):
    row = {c: "N/A" for c in COLUMNS}
    row["image_file"] = name
    row["DOCUMENT_TYPE"] = doc_type
    return row


def invoice_row(rng, name, receipt, max_qty=6, max_price=250):
    """An invoice's or receipt's ground-truth row, with its items, quantities and unit prices.
    Receipts have no payer, due date or website."""
    row = na_row(name, "RECEIPT" if receipt else "TAX INVOICE")
    supplier = rng.choice(SUPPLIERS)
    items = rng.sample(ITEMS, rng.randint(2, 5))
    qty = [rng.randint(1, max_qty) for _ in items]
    price = [round(rng.uniform(3, max_price), 2) for _ in items]
    subtotal = round(sum(q * p for q, p in zip(qty, price)), 2)
    gst = round(subtotal * 0.1, 2)
    row.update(SUPPLIER=supplier, ABN=abn(rng), INVOICE_DATE=date(rng), SUBTOTAL=money(subtotal), GST=money(gst),
               TOTAL=money(subtotal + gst), QUANTITIES=" | ".join(map(str, qty)), PRICES=" | ".join(money(p) for p in price),
               DESCRIPTIONS=" | ".join(items), BUSINESS_ADDRESS=rng.choice(STREETS), BUSINESS_PHONE=phone(rng))
    if not receipt:
        payer = rng.choice(PAYERS)
        row.update(PAYER_NAME=payer, PAYER_ADDRESS=rng.choice(STREETS), PAYER_PHONE=phone(rng),
                   PAYER_EMAIL=payer.lower().replace(" ", ".").replace("'", "") + "@example.com.au",
                   DUE_DATE=date(rng), SUPPLIER_WEBSITE="www." + supplier.lower().split()[0] + ".com.au")
    return row, items, qty, price


def invoice(rng, name, receipt=False):
    row, items, qty, price = invoice_row(rng, name, receipt)
    supplier = row["SUPPLIER"]
    lines = [(row["DOCUMENT_TYPE"], "title"), (supplier, "bold"), (f"ABN {row['ABN']}", ""),
             (row["BUSINESS_ADDRESS"], ""), (f"Phone {row['BUSINESS_PHONE']}", "")]
    if not receipt:
        lines += [(row["SUPPLIER_WEBSITE"], ""), ("", ""), ("Bill to:", "bold"), (row["PAYER_NAME"], ""),
                  (row["PAYER_ADDRESS"], ""), (row["PAYER_PHONE"], ""), (row["PAYER_EMAIL"], "")]
    lines += [("", ""), (f"Date: {row['INVOICE_DATE']}", "")]
    if not receipt:
        lines.append((f"Due date: {row['DUE_DATE']}", ""))
    lines += [("", ""), ("Description            Qty     Price", "bold")]
    lines += [(f"{d:<22} {q:>3} {money(p):>10}", "mono") for d, q, p in zip(items, qty, price)]
    lines += [("", ""), (f"Subtotal: {row['SUBTOTAL']}", ""), (f"GST (10%): {row['GST']}", ""),
              (f"TOTAL: {row['TOTAL']}", "bold")]
    return row, lines


def statement_row(rng, name):
    """A bank statement's ground-truth row, with its transactions and their amounts."""
    row = na_row(name, "BANK STATEMENT")
    holder = rng.choice(PAYERS)
    start = rng.randint(1, 12)
    opening = round(rng.uniform(500, 9000), 2)
    txns = rng.sample(TXNS, rng.randint(3, 6))
    amounts = [round(rng.uniform(-600, 1500), 2) for _ in txns]
    closing = round(opening + sum(amounts), 2)
    row.update(BANK_NAME=rng.choice(BANKS), ACCOUNT_HOLDER=holder,
               BSB_NUMBER=f"{rng.randint(0, 999):03d} {rng.randint(0, 999):03d}",
               BANK_ACCOUNT_NUMBER=str(rng.randint(10000000, 99999999)),
               STATEMENT_PERIOD=f"01/{start:02d}/2025 to 28/{start:02d}/2025", OPENING_BALANCE=money(opening),
               CLOSING_BALANCE=money(closing), DESCRIPTIONS=" | ".join(txns), PAYER_ADDRESS=rng.choice(STREETS))
    return row, txns, amounts


def statement(rng, name):
    row, txns, amounts = statement_row(rng, name)
    holder = row["ACCOUNT_HOLDER"]
    lines = [(row["BANK_NAME"], "title"), ("Account statement", "bold"), (f"Account holder: {holder}", ""),
             (row["PAYER_ADDRESS"], ""), (f"BSB: {row['BSB_NUMBER']}   Account: {row['BANK_ACCOUNT_NUMBER']}", ""),
             (f"Statement period: {row['STATEMENT_PERIOD']}", ""), ("", ""),
             (f"Opening balance: {row['OPENING_BALANCE']}", "bold"), ("", ""), ("Transaction              Amount", "bold")]
    lines += [(f"{t:<22} {money(a) if a >= 0 else '-' + money(-a):>11}", "mono") for t, a in zip(txns, amounts)]
    lines += [("", ""), (f"Closing balance: {row['CLOSING_BALANCE']}", "bold")]
    return row, lines


def render(rng, lines, path, rotate, noise):
    width, height = 850, 1100
    img = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(img)
    family = rng.choice(FONTS)
    size = rng.randint(20, 24)
    fonts = {"": ImageFont.truetype(os.path.join(FONT_DIR, family), size),
             "bold": ImageFont.truetype(os.path.join(FONT_DIR, BOLD[family]), size),
             "title": ImageFont.truetype(os.path.join(FONT_DIR, BOLD[family]), size + 14),
             "mono": ImageFont.truetype(os.path.join(FONT_DIR, "DejaVuSansMono.ttf"), size - 2)}
    x, y = rng.randint(50, 90), rng.randint(50, 90)
    for text, style in lines:
        if text:
            draw.text((x, y), text, fill=rng.randint(0, 40), font=fonts[style])
        y += int((size + 14 if style == "title" else size) * 1.45)
    if rotate:
        img = img.rotate(rng.uniform(-2.0, 2.0), resample=Image.BICUBIC, fillcolor=255)
    if noise:
        px = img.load()
        for _ in range(6000):
            px[rng.randrange(width), rng.randrange(height)] = rng.randint(0, 200)
        img = img.filter(ImageFilter.GaussianBlur(0.6))
    img.save(path, optimize=True)  # grayscale PNG: a third of the size, and the decoder expands it


def write_ground_truth(out, rows):
    with open(os.path.join(out, "ground_truth.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"{out}: {len(rows)} documents and ground_truth.csv")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "samples")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20251122)
    rows = []
    for i in range(1, 21):
        name = f"synthetic_invoice_{i:03d}.png"
        kind = ["invoice", "receipt", "statement"][(i - 1) % 3] if i > 2 else "invoice"
        row, lines = statement(rng, name) if kind == "statement" else invoice(rng, name, receipt=kind == "receipt")
        render(rng, lines, os.path.join(out, name), rotate=i % 4 == 0, noise=i % 5 == 0)
        rows.append(row)
    write_ground_truth(out, rows)


if __name__ == "__main__":
    main()
