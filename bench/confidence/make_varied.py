#!/usr/bin/env python3
"""Renders business documents far more varied than samples/ and bench/ocr/make_unseen.py, to fit and
to test the OCR engine's confidence calibration (bench/confidence/refit.py) on pages whose layouts
the rules were not written against: nine layout families (--list-layouts), label words drawn per
page from per-field vocabularies (about a quarter of the pages labelled in German or French; the
values keep samples/' formats), every TrueType font PIL opens under make_samples' FONT_DIR (and
Liberation beside it, if installed) at sizes 16-28, and per page a random mix of scan noise
(rotation up to 4 degrees, blur, speckle, JPEG at quality 40-85, a gray gradient, low contrast, a
fax-like down- and upscale; about a fifth of the pages clean).

    scripts/pyenv.sh python3 bench/confidence/make_varied.py OUT_DIR [--count 60] [--layouts a,b] [--seed S]
    scripts/pyenv.sh python3 bench/confidence/make_varied.py --list-layouts

Writes the pages, OUT_DIR/ground_truth.csv (samples/' columns and value formats, by make_samples'
row builders: exactly what is printed, N/A for what is not) and OUT_DIR/layouts.csv
(image_file,layout), so that a fit can hold some layout families apart. Deterministic per seed.
"""
import argparse
import csv
import datetime
import glob
import os
import random
import sys

from PIL import Image, ImageChops, ImageDraw, ImageEnhance, ImageFilter, ImageFont

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from make_samples import (BOLD, FONT_DIR, STREETS, invoice_row, money, statement_row,  # noqa: E402
                          write_ground_truth)

NA = "N/A"
# Per label: (English, German, French) words; an empty tuple falls back to the English ones.
VOCAB = {
    "abn": (("ABN", "A.B.N.", "ABN:", "Australian Business Number"), (), ()),
    "phone": (("Phone", "Tel", "Ph", "Tel."), ("Telefon", "Tel."), ("Tél.", "Téléphone")),
    "email": (("Email", "E-mail"), ("E-Mail",), ("Courriel", "E-mail")),
    "payer": (("Bill to", "Billed to", "Customer", "Sold to"), ("Rechnung an", "Kunde"), ("Client", "Facturé à")),
    "date": (("Date", "Invoice Date", "Issued"), ("Datum", "Rechnungsdatum"), ("Date de facture", "Date")),
    "due": (("Due", "Payment due", "Pay by", "Due date"), ("Fällig", "Zahlbar bis"), ("Échéance",)),
    "subtotal": (("Subtotal", "Total (ex GST)", "Net"), ("Zwischensumme", "Netto"), ("Sous-total", "Total HT")),
    "gst": (("GST", "GST 10%", "Tax", "incl. GST"), ("MwSt", "MwSt. 10%"), ("TVA", "TVA 10%")),
    "total": (("Total", "Amount Due", "Balance Due", "Total incl. GST", "TOTAL AUD"), ("Gesamtbetrag", "Summe"),
              ("Montant total", "Total TTC")),
    "desc": (("Description", "Item", "Details"), ("Beschreibung", "Artikel"), ("Désignation", "Description")),
    "qty": (("Qty", "Quantity", "Units"), ("Menge", "Anz."), ("Qté", "Quantité")),
    "price": (("Price", "Unit price", "Rate"), ("Preis", "Einzelpreis"), ("Prix", "Prix unitaire")),
    "amount": (("Amount", "Line total"), ("Betrag",), ("Montant",)),
    "from": (("Supplier", "From", "Vendor"), ("Lieferant", "Firma"), ("Fournisseur",)),
    "address": (("Address",), ("Adresse", "Anschrift"), ("Adresse",)),
    "web": (("Web", "Website"), ("Internet", "Web"), ("Site web", "Web")),
    "bank": (("Bank",), ("Bank", "Kreditinstitut"), ("Banque",)),
    "holder": (("Account holder", "Account name", "Customer"), ("Kontoinhaber",), ("Titulaire",)),
    "bsb": (("BSB", "BSB No", "BSB Number"), (), ()),
    "account": (("Account No", "Account number", "Acct"), ("Kontonummer", "Konto-Nr."), ("Numéro de compte", "Compte n°")),
    "period": (("Statement period", "Period", "For the period"), ("Zeitraum", "Auszugszeitraum"), ("Période",)),
    "opening": (("Opening balance", "Balance brought forward"), ("Anfangssaldo", "Alter Saldo"), ("Solde initial",)),
    "closing": (("Closing balance", "Balance carried forward"), ("Endsaldo", "Neuer Saldo"), ("Solde final",)),
    "txdate": (("Date",), ("Datum",), ("Date",)),
    "txdesc": (("Description", "Details", "Transaction"), ("Buchungstext", "Verwendungszweck"), ("Libellé", "Opération")),
    "debit": (("Debit", "Withdrawals"), ("Soll", "Belastung"), ("Débit",)),
    "credit": (("Credit", "Deposits"), ("Haben", "Gutschrift"), ("Crédit",)),
    "balance": (("Balance",), ("Saldo",), ("Solde",)),
    "thanks": (("Thank you!", "Thanks for your business"), ("Vielen Dank!",), ("Merci !",)),
}
HEADINGS = {"TAX INVOICE": (("TAX INVOICE", "INVOICE", "Tax Invoice"), ("RECHNUNG",), ("FACTURE",)),
            "RECEIPT": (("RECEIPT", "Tax Receipt", "SALES RECEIPT"), ("QUITTUNG", "Kassenbeleg"), ("REÇU",)),
            "BANK STATEMENT": (("Statement", "BANK STATEMENT", "Statement of account"), ("Kontoauszug",),
                               ("Relevé de compte",))}


def font_files():
    """Every TrueType font under FONT_DIR (and a Liberation folder beside it) that PIL can open."""
    def opens(path):
        try:
            return ImageFont.truetype(path, 20) is not None
        except OSError:
            return False
    return [p for p in sorted(glob.glob(os.path.join(FONT_DIR, "*.ttf")) + glob.glob(
        os.path.join(os.path.dirname(FONT_DIR), "liberation*", "*.ttf"))) if opens(p)]


def bold_of(path, fonts):
    """The bold face of a font's family (of its slant where there is one), else the font itself."""
    folder, name = os.path.split(path)
    for cand in (BOLD.get(name), name.replace("-Oblique", "-BoldOblique").replace("-Italic", "-BoldItalic")
                 .replace("-ExtraLight", "-Bold").replace("-Regular", "-Bold"), name.replace(".ttf", "-Bold.ttf")):
        if cand and os.path.join(folder, cand) in fonts:
            return os.path.join(folder, cand)
    return path


class Doc:
    """One page's truth, items and labels: a label is drawn once per page from its vocabulary."""
    def __init__(self, rng, kind, name):
        self.rng, self.kind, self.labels = rng, kind, {}
        self.lang = rng.choice((1, 2)) if rng.random() < 0.25 else 0
        self.sep = rng.choice((": ", " ", ":  "))
        if kind == "BANK STATEMENT":
            self.row, self.txns, self.amounts = statement_row(rng, name)
        else:
            self.row, self.items, self.qty, self.price = invoice_row(rng, name, kind == "RECEIPT", max_qty=9,
                                                                     max_price=rng.choice((60, 250, 900)))
            # Two parties, two addresses: make_samples draws both from five streets, so a fifth of its
            # bills give the payer the seller's address, which no real bill does (and which the OCR
            # engine takes as evidence against the payer's: ocr/page_checks.h).
            if self.row["PAYER_ADDRESS"] != NA:
                self.row["PAYER_ADDRESS"] = rng.choice([s for s in STREETS if s != self.row["BUSINESS_ADDRESS"]])
            # A bill falls due after it is issued (make_samples draws the two dates apart): 7 to 60 days on.
            if self.row["DUE_DATE"] != NA:
                issued = datetime.datetime.strptime(self.row["INVOICE_DATE"], "%d/%m/%Y")
                self.row["DUE_DATE"] = (issued + datetime.timedelta(days=rng.randint(7, 60))).strftime("%d/%m/%Y")
            for field in ("BUSINESS_PHONE", "SUPPLIER_WEBSITE", "PAYER_PHONE", "PAYER_EMAIL", "DUE_DATE"):
                if rng.random() < 0.15:  # some documents do not print every field
                    self.row[field] = NA
        self.heading = rng.choice(HEADINGS[kind][self.lang] or HEADINGS[kind][0])
        self.b = blocks(self)

    def lab(self, key):
        return self.labels.setdefault(key, self.rng.choice(VOCAB[key][self.lang] or VOCAB[key][0]))

    def kv(self, key, value):
        label = self.lab(key)
        return label + (" " if label.endswith(":") else self.sep) + value

    def has(self, field):
        return self.row[field] != NA


class Page:
    """A white RGB page, its fonts and ink, and a cursor y that flow() moves down."""
    def __init__(self, rng, fonts, mono=False):
        self.size = rng.randint(16, 20) if mono else rng.randint(16, 28)
        body = rng.choice([f for f in fonts if "Mono" in f]) if mono else rng.choice(fonts)
        bold = bold_of(body, fonts)
        sizes = {"": (body, 0), "bold": (bold, 0), "big": (bold, rng.randint(4, 8)), "title": (bold, rng.randint(8, 14)),
                 "small": (body, -min(4, self.size - 16))}
        self.f = {k: ImageFont.truetype(f, self.size + dz) for k, (f, dz) in sizes.items()}
        self.w = int(self.size * (rng.uniform(21.5, 24) if mono else rng.uniform(46, 52)))
        self.img = Image.new("RGB", (self.w, 4000), "white")  # cropped to what was drawn by finish()
        self.d = ImageDraw.Draw(self.img)
        self.ink = (rng.randint(0, 45),) * 3
        self.m = rng.randint(25, 40) if mono else rng.randint(40, 80)
        self.y = rng.randint(30, 70)

    def lh(self, style=""):
        return int(self.f[style].size * 1.5)

    def put(self, s, x, y, style="", align="l"):
        w = self.d.textlength(s, font=self.f[style])
        self.d.text((x - w if align == "r" else x - w / 2 if align == "c" else x, y), s, fill=self.ink, font=self.f[style])
        return w

    def block(self, lines, x, y, align="l"):
        for s, style in lines:
            if s:
                self.put(s, x, y, style, align)
            y += self.lh(style)
        return y

    def flow(self, lines, x=None, align="l"):
        self.y = self.block(lines, self.m if x is None else x, self.y, align)

    def side(self, left, right):
        """Two blocks side by side, the right one right-aligned; the cursor goes below both."""
        self.y = max(self.block(left, self.m, self.y), self.block(right, self.w - self.m, self.y, "r")) + self.lh()

    def width_of(self, lines):
        return max((self.d.textlength(s, font=self.f[st]) for s, st in lines), default=0)

    def table(self, header, rows, aligns, ruled=False, x1=None, stretch=0):
        """Cells in columns as wide as their widest cell, column `stretch` widened to fill the margin to x1."""
        pad = self.size // 2
        x0, x1 = self.m, self.w - self.m if x1 is None else x1
        widths = [max(self.d.textlength(r[i], font=self.f["bold"]) for r in [header] + rows) + 2 * pad
                  for i in range(len(header))]
        widths[stretch] += max(0, x1 - x0 - sum(widths))
        seps = [x0 + sum(widths[:i]) for i in range(len(widths) + 1)]
        top, lh = self.y - pad // 2, self.lh()
        for r, row in enumerate([header] + rows):
            for i, cell in enumerate(row):
                self.put(cell, seps[i] + pad if aligns[i] == "l" else seps[i + 1] - pad, self.y, "bold" if r == 0 else "",
                         aligns[i])
            self.y += lh
            if ruled or r == 0:
                self.d.line((x0, self.y - pad // 2, seps[-1], self.y - pad // 2), fill=self.ink, width=1 + (r == 0))
        if ruled:
            self.d.rectangle((x0, top, seps[-1], self.y - pad // 2), outline=self.ink, width=2)
            for s in seps[1:-1]:
                self.d.line((s, top, s, self.y - pad // 2), fill=self.ink, width=1)
        self.y += pad
        return seps[-1]

    def finish(self):
        return self.img.crop((0, 0, self.w, max(self.y + self.m, int(self.w * 1.1))))


def signed(a):
    return money(a) if a >= 0 else "-" + money(-a)


TOTALS = (("subtotal", "SUBTOTAL", ""), ("gst", "GST", ""), ("total", "TOTAL", "bold"))


def blocks(d):
    """The page's blocks of (text, style) lines: supplier, payer, dates, totals, account."""
    r, opt = d.row, lambda field, line: [line] if d.has(field) else []
    return {"supplier": [(r["SUPPLIER"], "big"), (d.kv("abn", r["ABN"]), ""), (r["BUSINESS_ADDRESS"], "")] +
            opt("BUSINESS_PHONE", (d.kv("phone", r["BUSINESS_PHONE"]), "")) + opt("SUPPLIER_WEBSITE", (r["SUPPLIER_WEBSITE"], "")),
            "payer": opt("PAYER_NAME", (d.lab("payer") + ":", "bold")) + [(r[f], "") for f in
                     ("PAYER_NAME", "PAYER_ADDRESS", "PAYER_PHONE", "PAYER_EMAIL") if d.has(f)],
            "dates": [(d.kv("date", r["INVOICE_DATE"]), "")] + opt("DUE_DATE", (d.kv("due", r["DUE_DATE"]), "")),
            "totals": [(d.kv(k, r[f]), st) for k, f, st in TOTALS],
            "account": [(d.kv(k, r[f]), "") if k else (r[f], "") for k, f in (("holder", "ACCOUNT_HOLDER"), ("", "PAYER_ADDRESS"),
                        ("bsb", "BSB_NUMBER"), ("account", "BANK_ACCOUNT_NUMBER"), ("period", "STATEMENT_PERIOD"))]}


def items(d, pg, ruled=False, line_totals=False):
    header = [d.lab("desc"), d.lab("qty"), d.lab("price")] + ([d.lab("amount")] if line_totals else [])
    rows = [[i, str(q), money(p)] + ([money(round(q * p, 2))] if line_totals else [])
            for i, q, p in zip(d.items, d.qty, d.price)]
    return pg.table(header, rows, "lrrr"[:len(header)], ruled)


def statement_body(d, pg, ruled=False):
    pg.flow([(d.kv("opening", d.row["OPENING_BALANCE"]), "bold"), ("", "")])
    pg.table([d.lab("txdesc"), d.lab("amount")], [[t, signed(a)] for t, a in zip(d.txns, d.amounts)], "lr", ruled,
             x1=pg.m + pg.w * 0.7)
    pg.flow([("", ""), (d.kv("closing", d.row["CLOSING_BALANCE"]), "bold")])


def classic(d, pg):
    if d.kind == "BANK STATEMENT":
        pg.flow([(d.row["BANK_NAME"], "title"), (d.heading, "bold")] + d.b["account"] + [("", "")])
        return statement_body(d, pg)
    pg.flow([(d.heading, "title")] + d.b["supplier"] + [("", "")] + d.b["payer"] + [("", "")] + d.b["dates"] + [("", "")])
    items(d, pg)
    pg.flow([("", "")] + d.b["totals"])


def right_supplier(d, pg):
    pg.side([(d.heading, "title"), ("", "")] + d.b["dates"], d.b["supplier"])
    pg.flow(d.b["payer"] + [("", "")])
    items(d, pg)
    pg.flow([("", "")] + d.b["totals"], pg.w - pg.m, "r")


def two_column(d, pg):
    st = d.kind == "BANK STATEMENT"
    pg.put(d.heading, pg.w - pg.m, pg.y, "title", "r")
    pg.flow([(d.row["BANK_NAME"], "big")] if st else d.b["supplier"])
    pg.y += pg.lh()
    left = d.b["account"][:2] if st else d.b["payer"]
    right = d.b["account"][2:] if st else d.b["dates"]
    mid = pg.m + max(pg.width_of(left), pg.w * 0.4) + pg.size * 2
    y0 = pg.y
    pg.y = max(pg.block(left, pg.m + pg.size, y0 + pg.size), pg.block(right, mid, y0 + pg.size)) + pg.size // 2
    pg.d.rectangle((pg.m, y0, pg.w - pg.m, pg.y), outline=pg.ink, width=2)
    pg.d.line((mid - pg.size, y0, mid - pg.size, pg.y), fill=pg.ink, width=1)
    pg.y += pg.lh()
    if st:
        return statement_body(d, pg)
    items(d, pg)
    pg.flow([("", "")] + d.b["totals"])


def ruled_table(d, pg):
    pg.side(d.b["supplier"], [(d.heading, "title")] + d.b["dates"])
    pg.flow(d.b["payer"] + [("", "")])
    right = items(d, pg, ruled=True, line_totals=d.rng.random() < 0.5)
    pg.flow([("", "")] + d.b["totals"], right, "r")


def totals_box(d, pg):
    pg.flow([(d.heading, "title"), ("", "")] + d.b["supplier"] + [("", "")], pg.w // 2, "c")
    pg.side(d.b["payer"], d.b["dates"])
    items(d, pg)
    pg.y += pg.lh()
    x0, x1, y0 = pg.w // 2, pg.w - pg.m, pg.y
    for k, f, st in TOTALS:
        pg.put(d.lab(k), x0 + pg.size, pg.y + pg.size // 2, st)
        pg.put(d.row[f], x1 - pg.size, pg.y + pg.size // 2, st, "r")
        pg.y += pg.lh(st)
    pg.y += pg.size
    pg.d.rectangle((x0, y0, x1, pg.y), outline=pg.ink, width=2)
    pg.y += pg.lh()


def till(d, pg):
    """A narrow till slip: monospace lines centred, items as '2 x Coffee beans 1kg   $4.50' (unit price)."""
    r, n = d.row, 34
    lines = [(r["SUPPLIER"], "bold"), (r["BUSINESS_ADDRESS"], "")]
    lines += [(d.kv("phone", r["BUSINESS_PHONE"]), "")] if d.has("BUSINESS_PHONE") else []
    lines += [(d.kv("abn", r["ABN"]), ""), ("", ""), (d.heading, "big"), (d.kv("date", r["INVOICE_DATE"]), ""), ("-" * n, "")]
    lines += [(f"{q} x {i}".ljust(n - 10) + money(p).rjust(10), "") for i, q, p in zip(d.items, d.qty, d.price)]
    lines += [("-" * n, "")] + [(d.lab(k).ljust(n - 12) + r[f].rjust(12), st) for k, f, st in TOTALS]
    pg.flow(lines + [("-" * n, ""), (d.lab("thanks"), "")], pg.w // 2, "c")


def letterhead(d, pg):
    r, st = d.row, d.kind == "BANK STATEMENT"
    band = tuple(d.rng.randint(175, 235) for _ in range(3))
    h = pg.lh("title") + pg.lh() * 2
    pg.d.rectangle((0, 0, pg.w, pg.y + h), fill=band)
    pg.put(r["BANK_NAME"] if st else r["SUPPLIER"], pg.m, pg.y + pg.lh() // 2, "title")
    pg.put(d.heading, pg.w - pg.m, pg.y + pg.lh() // 2 + pg.lh("title"), "big", "r")
    pg.y += h + pg.lh()
    if st:
        pg.flow(d.b["account"] + [("", "")])
        statement_body(d, pg, ruled=d.rng.random() < 0.5)
    else:
        pg.side(d.b["payer"], d.b["dates"])
        items(d, pg)
        pg.flow([("", "")] + d.b["totals"], pg.w - pg.m, "r")
        pg.y += pg.lh()
        foot = [text for text, _ in d.b["supplier"][1:]]  # ABN, address, phone, website in a paler band
        pg.d.rectangle((0, pg.y - pg.size // 2, pg.w, pg.y + pg.lh("small") * 2 + pg.size // 2),
                       fill=tuple(min(255, c + 25) for c in band))
        pg.flow([("   ·   ".join(foot[:2]), "small"), ("   ·   ".join(foot[2:]), "small")], pg.w // 2, "c")


def txn_table(d, pg):
    r = d.row
    pg.put(d.heading, pg.w - pg.m, pg.y, "title", "r")
    pg.flow([(r["BANK_NAME"], "big"), ("", "")])
    pg.side(d.b["account"][:2], d.b["account"][2:])
    pg.flow([(d.kv("opening", r["OPENING_BALANCE"]), "bold"), ("", "")])
    month, bal = r["STATEMENT_PERIOD"][3:10], float(r["OPENING_BALANCE"][1:].replace(",", ""))
    days = sorted(d.rng.sample(range(2, 28), len(d.txns)))
    rows = []
    for day, t, a in zip(days, d.txns, d.amounts):
        bal = round(bal + a, 2)
        rows.append([f"{day:02d}/{month}", t, money(-a) if a < 0 else "", money(a) if a >= 0 else "", signed(bal)])
    pg.table([d.lab(k) for k in ("txdate", "txdesc", "debit", "credit", "balance")], rows, "llrrr",
             d.rng.random() < 0.5, stretch=1)
    pg.flow([("", ""), (d.kv("closing", r["CLOSING_BALANCE"]), "bold")])


def key_value(d, pg):
    r, st = d.row, d.kind == "BANK STATEMENT"
    head = ("bank BANK_NAME holder ACCOUNT_HOLDER address PAYER_ADDRESS bsb BSB_NUMBER account BANK_ACCOUNT_NUMBER "
            "period STATEMENT_PERIOD opening OPENING_BALANCE" if st else "from SUPPLIER abn ABN address BUSINESS_ADDRESS "
            "phone BUSINESS_PHONE web SUPPLIER_WEBSITE payer PAYER_NAME address PAYER_ADDRESS phone PAYER_PHONE "
            "email PAYER_EMAIL date INVOICE_DATE due DUE_DATE").split()
    head = [(d.lab(k).rstrip(":") + ":", r[f], "") for k, f in zip(head[::2], head[1::2]) if d.has(f)]
    tail = [(d.lab(k).rstrip(":") + ":", r[f], s) for k, f, s in ([("closing", "CLOSING_BALANCE", "bold")] if st else TOTALS)]
    x = pg.m + pg.width_of([(k, "bold") for k, _, _ in head + tail]) + pg.size * 2
    pg.flow([(d.heading, "title"), ("", "")])
    for k, v, style in head + [(None, None, None)] + tail:
        if k is None:  # the items or transactions between the two lists
            pg.y += pg.lh()
            if st:
                pg.table([d.lab("txdesc"), d.lab("amount")], [[t, signed(a)] for t, a in zip(d.txns, d.amounts)], "lr",
                         x1=pg.m + pg.w * 0.7)
            else:
                items(d, pg)
            continue
        pg.put(k, pg.m, pg.y, "bold")
        pg.put(v, x, pg.y, style)
        pg.y += pg.lh()


INV, REC, STM = "TAX INVOICE", "RECEIPT", "BANK STATEMENT"
LAYOUTS = {"classic": (classic, (INV, REC, STM)), "right_supplier": (right_supplier, (INV, REC)),
           "two_column": (two_column, (INV, STM)), "ruled_table": (ruled_table, (INV, REC)),
           "totals_box": (totals_box, (INV, REC)), "till": (till, (REC,)),
           "letterhead": (letterhead, (INV, STM, REC)), "txn_table": (txn_table, (STM,)),
           "key_value": (key_value, (STM, INV, REC))}


def noise(rng, img):
    """Draws the page's scan noise; returns the image and a JPEG quality (None: saved as PNG)."""
    if rng.random() < 0.2:
        return img, None
    kinds = [k for k in ("rotate", "blur", "speckle", "jpeg", "gradient", "contrast", "fax") if rng.random() < 0.4]
    # at most three at once: more together leave too little for Tesseract to read
    kinds = rng.sample(kinds, min(3, len(kinds))) if kinds else [rng.choice(("rotate", "blur", "speckle", "jpeg"))]
    if "gradient" in kinds:
        grad = Image.linear_gradient("L").rotate(rng.choice((0, 90, 180, 270))).resize(img.size)
        lo = rng.randint(200, 230)
        img = ImageChops.multiply(img, grad.point(lambda v: lo + v * (255 - lo) // 255).convert(img.mode))
    if "contrast" in kinds:
        img = ImageEnhance.Contrast(img).enhance(rng.uniform(0.45, 0.7))
    if "rotate" in kinds:
        img = img.rotate(rng.uniform(-4, 4), resample=Image.BICUBIC, fillcolor=(255,) * len(img.getbands()))
    if "fax" in kinds:
        f = rng.uniform(0.5, 0.7)  # a fax's resolution
        img = img.resize((int(img.width * f), int(img.height * f)), Image.BILINEAR).resize(
            img.size, rng.choice((Image.NEAREST, Image.BILINEAR)))
    if "blur" in kinds:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    if "speckle" in kinds:
        px, w, h = img.load(), img.width, img.height
        for _ in range(int(w * h * rng.uniform(0.001, 0.005))):  # 0.1-0.5 % of the pixels
            v = rng.randint(0, 200)
            px[rng.randrange(w), rng.randrange(h)] = v if img.mode == "L" else (v, v, v)
    return img, (rng.randint(40, 85) if "jpeg" in kinds else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?")
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated layout families (--list-layouts)")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--list-layouts", action="store_true", help="print the layout families and exit")
    args = ap.parse_args()
    if args.list_layouts:
        print("\n".join(f"{n}\t{', '.join(t)}" for n, (_, t) in LAYOUTS.items()))
        return
    names = [n for n in args.layouts.split(",") if n]
    if not args.out or not names or set(names) - set(LAYOUTS):
        ap.error(f"OUT_DIR and layouts among {', '.join(LAYOUTS)} are needed")
    os.makedirs(args.out, exist_ok=True)
    rng, fonts = random.Random(args.seed), font_files()
    rows, layout_rows = [], []
    for i in range(args.count):
        layout = names[i % len(names)]
        draw, kinds = LAYOUTS[layout]
        kind = kinds[(i // len(names)) % len(kinds)]
        d, pg = Doc(rng, kind, ""), Page(rng, fonts, mono=layout == "till")
        draw(d, pg)
        img = pg.finish()  # gray like samples/, but the letterhead's colour stays
        img, quality = noise(rng, img if layout == "letterhead" else img.convert("L"))
        name = d.row["image_file"] = f"varied_{i + 1:03d}" + (".jpg" if quality else ".png")
        img.save(os.path.join(args.out, name), **({"quality": quality} if quality else {"optimize": True}))
        rows.append(d.row)
        layout_rows.append((name, layout))
    write_ground_truth(args.out, rows)
    with open(os.path.join(args.out, "layouts.csv"), "w", newline="") as f:
        csv.writer(f).writerows([("image_file", "layout")] + layout_rows)


if __name__ == "__main__":
    main()
