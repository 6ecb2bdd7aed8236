#!/usr/bin/env python3
"""Renders table pages in layouts the OCR engine's table reader was not written against, with each
table's rows as the truth (docs/eval.md, "Rows"), to measure how it reads line items and
transactions: five layout families (--list-families), one per page in turn:

  wrapped       invoices and receipts whose descriptions wrap over two lines (figures on the row's
                first, middle or last line), with or without a line-amount column;
  no_quantity   service invoices that print a description and an amount only (some with a date);
  two_pages     invoices whose table runs on from page 1 to page 2 (a two-page TIFF), the header
                printed again on page 2 or not;
  debit_credit  bank statements with separate debit and credit columns and a running balance
                (some print balances with CR/DR, some the opening and closing balances as rows);
  signed        bank statements with one signed amount column ("-45.00", "(45.00)" or "45.00-"),
                with a running balance or without.

About a third of the statements do not add up on purpose: one transaction misprinted (the running
balance goes on from the amount that should have been printed) or the closing balance off by a cent
or a few dollars.

    scripts/pyenv.sh python3 bench/rows/make_tables.py OUT_DIR [--count 50] [--seed 1]
        [--families wrapped,signed] [--noise light|none|varied]

Writes the pages; OUT_DIR/ground_truth.jsonl (samples/' 25 fields as make_samples writes them,
exactly what each page prints, N/A for what it does not, and `line_items`: each row's printed
cells, description, quantity, unit_price, amount; date, description, debit, credit, balance or
amount; a balance printed with CR/DR is written as its signed amount); OUT_DIR/layouts.csv
(image_file,layout); OUT_DIR/balance_truth.csv (image_file,adds_up,misprint) for every statement.
A two-page invoice is two records, `x.tif` (page 1) and `x.tif#page=2`, as docsift names its pages.
Labels, fonts and page sizes come from bench/confidence/make_varied.py (a quarter of the pages in
German or French); --noise light (the default) leaves a third of the pages clean and gives the others
one or two of a slight rotation, blur, speckle, JPEG or low contrast; varied is make_varied's noise.
Deterministic per seed.
"""
import argparse
import csv
import io
import json
import os
import random
import sys

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "confidence"), os.path.join(HERE, "..", "..", "scripts")]
from make_samples import COLUMNS, ITEMS  # noqa: E402
from make_varied import NA, Doc, Page, blocks, font_files, noise as varied_noise  # noqa: E402

INV, REC, STM = "TAX INVOICE", "RECEIPT", "BANK STATEMENT"
LONG_ITEMS = ["Toner cartridge, black, high yield (pack of two)", "Labour: installation of split system air conditioner",
              "Copper fittings and isolation valves for hot water service", "Catering platter for twenty guests with fruit",
              "Annual accounting software licence renewal, five seats", "Network switch, 24 ports, with rack mounting kit",
              "Service call-out fee including the first half hour", "Heavy duty outdoor extension leads, ten metres",
              "A4 copy paper, 80 gsm, carton of five reams", "Full colour flyers printed on both sides, 500 copies",
              "Ergonomic office chair with adjustable lumbar support", "Replacement filter cartridges for the water cooler",
              "Wireless keyboard and mouse set, matte black", "Site inspection and written condition report",
              "Whiteboard markers, assorted colours, box of twelve", "Removal and disposal of old carpet and underlay"]
SERVICES = ["Monthly bookkeeping", "Website hosting (annual plan)", "Consultation and advice", "Travel and accommodation",
            "Project management", "Design revisions round 2", "Logo design and brand guide", "Payroll processing",
            "Bookkeeping services March 2025", "Emergency plumbing repair", "Tax return preparation",
            "Staff training workshop", "Domain renewal", "Support hours block 10", "Photography, half day",
            "Copywriting for the spring catalogue"]
DEBITS = ["EFTPOS Woolworths Sydney", "Direct debit Origin Energy", "BPAY Telstra", "ATM withdrawal", "Account fee",
          "Coles Express fuel", "Rent payment", "Card purchase Bunnings", "Netflix subscription", "Insurance premium NRMA",
          "Council rates", "Water bill", "Pharmacy purchase", "Transfer to savings", "EFTPOS Coles 0862",
          "Card purchase Kmart", "Gym membership", "Parking Wilson"]
CREDITS = ["Salary ACME Pty Ltd", "Interest credit", "Refund JB Hi-Fi", "Direct credit ATO", "Medicare benefit",
           "Osko payment J Smith", "Transfer from savings"]
ROW_LABELS = {"opening": ("Opening balance", "Anfangssaldo", "Solde initial"),
              "closing": ("Closing balance", "Endsaldo", "Solde final")}
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def cash(cents, mark="$"):
    """'$1,234.56' (mark '' for '1,234.56'), a minus before the mark for a negative amount."""
    return ("-" if cents < 0 else "") + f"{mark}{abs(cents) / 100:,.2f}"


def signed_print(cents, style, mark):
    """A transaction's amount as a signed column prints it: a debit '-45.00', '(45.00)' or '45.00-'."""
    if cents >= 0:
        return cash(cents, mark)
    plain = cash(-cents, mark)
    return {"minus": "-" + plain, "paren": f"({plain})", "trailing": plain + "-"}[style]


def truth_row(**cells):
    return {k: v for k, v in cells.items() if v not in (None, "")}


class Table:
    """A table drawn on a Page: columns as wide as their widest cell (the description's `wrap`
    pixels wide when given, its text wrapped to at most two lines), figures on a multi-line row's
    first, middle or last line, the table stretched to the page's margins by widening its gaps."""
    def __init__(self, pg, header, rows, aligns, wrap=None, valign="top", ruled=False):
        self.pg, self.header, self.aligns, self.valign, self.ruled = pg, header, aligns, valign, ruled
        pad = pg.size // 2
        self.desc = aligns.index("w") if "w" in aligns else max(i for i, a in enumerate(aligns) if a == "l")
        self.rows = [[self.wrap(c, wrap) if i == self.desc and wrap else [c] for i, c in enumerate(r)] for r in rows]
        fit = [pg.d.textlength(c, font=pg.f["bold"]) for c in header]
        widths = [max([fit[i]] + [max(pg.d.textlength(t, font=pg.f[""]) for t in r[i]) for r in self.rows]) + 2 * pad
                  for i in range(len(header))]
        spare = max(0, pg.w - 2 * pg.m - sum(widths))
        if wrap:  # the figures' columns share what is left
            for i in range(len(widths)):
                if aligns[i] == "r":
                    widths[i] += spare / max(1, aligns.count("r"))
        else:
            widths[self.desc] += spare
        self.seps = [pg.m + sum(widths[:i]) for i in range(len(widths) + 1)]

    def wrap(self, text, width):
        words, lines = text.split(), [""]
        for w in words:
            trial = (lines[-1] + " " + w).strip()
            if lines[-1] and self.pg.d.textlength(trial, font=self.pg.f[""]) > width:
                lines.append(w)
            else:
                lines[-1] = trial
        return lines

    def draw(self, header=True):
        pg, pad, lh = self.pg, self.pg.size // 2, self.pg.lh()
        top = pg.y - pad // 2
        if header:
            for i, cell in enumerate(self.header):
                self.cell(cell, i, pg.y, "bold")
            pg.y += lh
            pg.d.line((self.seps[0], pg.y - pad // 2, self.seps[-1], pg.y - pad // 2), fill=pg.ink, width=2)
        for row in self.rows:
            n = max(len(c) for c in row)
            for i, lines in enumerate(row):
                if len(lines) > 1 or n == 1:
                    for k, t in enumerate(lines):
                        self.cell(t, i, pg.y + k * lh)
                else:
                    at = {"top": 0, "middle": (n - 1) / 2, "bottom": n - 1}[self.valign]
                    self.cell(lines[0], i, pg.y + int(at * lh))
            pg.y += n * lh + (pad // 2 if n > 1 else 0)
            if self.ruled:
                pg.d.line((self.seps[0], pg.y - pad // 2, self.seps[-1], pg.y - pad // 2), fill=pg.ink, width=1)
        if self.ruled:
            pg.d.rectangle((self.seps[0], top, self.seps[-1], pg.y - pad // 2), outline=pg.ink, width=2)
            for s in self.seps[1:-1]:
                pg.d.line((s, top, s, pg.y - pad // 2), fill=pg.ink, width=1)
        pg.y += pad

    def cell(self, text, i, y, style=""):
        pad, a = self.pg.size // 2, self.aligns[i]
        if text:
            self.pg.put(text, self.seps[i] + pad if a in "lw" else self.seps[i + 1] - pad, y, style, "r" if a == "r" else "l")


def blank_like(pg):
    """A second page in the first's fonts, size, margins and ink, its cursor at the top."""
    two = Page.__new__(Page)
    two.__dict__.update(pg.__dict__)
    two.img = Image.new(pg.img.mode, pg.img.size, "white")
    two.d = ImageDraw.Draw(two.img)
    two.y = pg.m
    return two


def invoice_fields(d, descs, qty, unit, amounts):
    """The row's lists and sums from the printed items: PRICES the unit prices, or the amounts
    where no unit price is printed (docs/ocr.md); the subtotal the amounts' sum, GST a tenth."""
    sub = sum(amounts)
    gst = round(sub / 10)
    d.row.update(DESCRIPTIONS=" | ".join(descs), QUANTITIES=" | ".join(qty) if qty else NA,
                 PRICES=" | ".join(cash(p) for p in (unit or amounts)), SUBTOTAL=cash(sub), GST=cash(gst),
                 TOTAL=cash(sub + gst))
    d.b = blocks(d)


def head(d, pg):
    """The invoice's heading, seller, payer and dates above its table."""
    if d.rng.random() < 0.5:
        pg.side([(d.heading, "title"), ("", "")] + d.b["dates"], d.b["supplier"])
        pg.flow(d.b["payer"] + [("", "")])
    else:
        pg.flow([(d.heading, "title")] + d.b["supplier"] + [("", "")])
        pg.side(d.b["payer"], d.b["dates"])


def wrapped(rng, fonts):
    d = Doc(rng, rng.choice((INV, INV, REC)), "")
    pg = Page(rng, fonts)
    descs = rng.sample(LONG_ITEMS, rng.randint(3, 6))
    qty = [rng.randint(1, 12) for _ in descs]
    unit = [rng.randint(300, 90000) for _ in descs]
    amounts = [q * p for q, p in zip(qty, unit)]
    line_totals = rng.random() < 0.6
    invoice_fields(d, descs, [str(q) for q in qty], unit, amounts)
    head(d, pg)
    header = [d.lab("desc"), d.lab("qty"), d.lab("price")] + ([d.lab("amount")] if line_totals else [])
    rows = [[t, str(q), cash(p)] + ([cash(a)] if line_totals else []) for t, q, p, a in zip(descs, qty, unit, amounts)]
    longest = max(pg.d.textlength(t, font=pg.f[""]) for t in descs)
    width = longest * rng.uniform(0.55, 0.8)
    table = Table(pg, header, rows, "w" + "r" * (len(header) - 1), wrap=width,
                  valign=rng.choice(("top", "top", "middle", "bottom")), ruled=rng.random() < 0.4)
    while max(len(r[0]) for r in table.rows) > 2:  # two lines at most
        width *= 1.1
        table = Table(pg, header, rows, table.aligns, wrap=width, valign=table.valign, ruled=table.ruled)
    table.draw()
    pg.flow([("", "")] + d.b["totals"], pg.w - pg.m, "r")
    cells = [truth_row(description=t, quantity=str(q), unit_price=cash(p), amount=cash(a) if line_totals else None)
             for t, q, p, a in zip(descs, qty, unit, amounts)]
    return d, [(pg.finish(), d.row, cells)]


def no_quantity(rng, fonts):
    d = Doc(rng, INV, "")
    pg = Page(rng, fonts)
    descs = rng.sample(SERVICES, rng.randint(2, 7))
    amounts = [rng.choice((rng.randint(5, 40) * 2500, rng.randint(2000, 300000))) for _ in descs]
    dated = rng.random() < 0.3
    day0 = rng.randint(1, 10)
    month = d.row["INVOICE_DATE"][3:]
    dates = [f"{day0 + 2 * k:02d}/{month}" for k in range(len(descs))]
    invoice_fields(d, descs, None, None, amounts)
    head(d, pg)
    header = ([d.lab("txdate")] if dated else []) + [d.lab("desc"), d.lab("amount")]
    rows = [([t] if dated else []) + [s, cash(a)] for t, s, a in zip(dates, descs, amounts)]
    Table(pg, header, rows, ("l" if dated else "") + "lr", ruled=rng.random() < 0.4).draw()
    pg.flow([("", "")] + d.b["totals"], pg.w - pg.m, "r")
    cells = [truth_row(date=t if dated else None, description=s, amount=cash(a)) for t, s, a in zip(dates, descs, amounts)]
    return d, [(pg.finish(), d.row, cells)]


def two_pages(rng, fonts):
    d = Doc(rng, INV, "")
    pg = Page(rng, fonts)
    pool = ITEMS + ["Desk lamp", "Cable ties (100)", "Mouse pad", "USB-C charger", "Door stop", "Label printer",
                    "Filing cabinet", "Hand sanitiser 5L", "First aid kit", "Bin liners (50)"]
    descs = rng.sample(pool, rng.randint(8, 14))
    qty = [rng.randint(1, 9) for _ in descs]
    unit = [rng.randint(300, 40000) for _ in descs]
    amounts = [q * p for q, p in zip(qty, unit)]
    line_totals = rng.random() < 0.7
    first = len(descs) - rng.randint(2, 5)
    header = [d.lab("desc"), d.lab("qty"), d.lab("price")] + ([d.lab("amount")] if line_totals else [])
    rows = [[t, str(q), cash(p)] + ([cash(a)] if line_totals else []) for t, q, p, a in zip(descs, qty, unit, amounts)]
    cells = [truth_row(description=t, quantity=str(q), unit_price=cash(p), amount=cash(a) if line_totals else None)
             for t, q, p, a in zip(descs, qty, unit, amounts)]
    invoice_fields(d, descs, [str(q) for q in qty], unit, amounts)
    ruled = rng.random() < 0.4
    tables = [Table(pg, header, rows[:first], "l" + "r" * (len(header) - 1), ruled=ruled)]
    head(d, pg)
    tables[0].draw()
    pg.flow([("", ""), (rng.choice(("Continued on page 2", "Continued overleaf", "Page 1 of 2")), "small")],
            pg.w - pg.m, "r")
    height = max(pg.y + pg.m, int(pg.w * 1.3))
    one = pg.img.crop((0, 0, pg.w, height))
    p1 = dict(d.row, SUBTOTAL=NA, GST=NA, TOTAL=NA, DESCRIPTIONS=" | ".join(descs[:first]),
              QUANTITIES=" | ".join(str(q) for q in qty[:first]), PRICES=" | ".join(cash(p) for p in unit[:first]))
    pg2 = blank_like(pg)
    pg2.flow([(f"{d.row['SUPPLIER']}  ·  {d.heading}", "bold"), ("Page 2 of 2", "small"), ("", "")])
    again = rng.random() < 0.6
    second = Table(pg2, header, rows[first:], tables[0].aligns, ruled=ruled)
    second.seps = tables[0].seps  # the columns stand where they stood on page 1
    second.draw(header=again)
    pg2.flow([("", "")] + d.b["totals"], pg2.w - pg2.m, "r")
    two = pg2.img.crop((0, 0, pg2.w, height))
    p2 = {c: NA for c in COLUMNS}
    p2.update(DOCUMENT_TYPE=d.kind, SUPPLIER=d.row["SUPPLIER"], SUBTOTAL=d.row["SUBTOTAL"], GST=d.row["GST"],
              TOTAL=d.row["TOTAL"], DESCRIPTIONS=" | ".join(descs[first:]),
              QUANTITIES=" | ".join(str(q) for q in qty[first:]), PRICES=" | ".join(cash(p) for p in unit[first:]))
    return d, [(one, p1, cells[:first]), (two, p2, cells[first:])]


def transactions(rng, d):
    """5-12 dated transactions in the statement's month: (day, description, cents), and the
    opening balance in cents."""
    n = rng.randint(5, 12)
    days = sorted(rng.choice(range(2, 28)) for _ in range(n))
    out = []
    for day in days:
        if rng.random() < 0.3:
            t = rng.choice(CREDITS)
            a = rng.randint(10, 1500) if t == "Interest credit" else rng.randint(5000, 450000)
        else:
            t = rng.choice(DEBITS)
            a = -(rng.randint(200, 1500) if t == "Account fee" else rng.randint(500, 80000))
        out.append((day, t, a))
    return out, rng.randint(50000, 900000)


def misprint(rng, printed, closing):
    """None (the statement adds up), or how it does not: one amount misprinted, or the closing."""
    if rng.random() >= 0.35:
        return None, printed, closing
    if rng.random() < 0.5:
        k = rng.randrange(len(printed))
        off = rng.choice((1, 10, 100, 900, 1000, 9000))
        printed = list(printed)
        printed[k] = printed[k] + off if printed[k] > 0 or abs(printed[k]) > off else printed[k] - off
        return f"row {k + 1}", printed, closing
    off = rng.choice((1, 1, -1, 1000, -500))
    return f"closing {off / 100:+.2f}", printed, closing + off


def statement(rng, fonts, signed_column):
    d = Doc(rng, STM, "")
    pg = Page(rng, fonts)
    txns, opening = transactions(rng, d)
    amounts = [a for _, _, a in txns]
    balances, bal = [], opening
    for a in amounts:
        bal += a
        balances.append(bal)
    how, printed, closing = misprint(rng, amounts, bal)
    mark = rng.choice(("$", ""))
    period = d.row["STATEMENT_PERIOD"]
    mm, yyyy = period[3:5], period[6:10]
    date_style = rng.choice(("dmy", "dm", "d mon"))
    date = {"dmy": lambda dd: f"{dd:02d}/{mm}/{yyyy}", "dm": lambda dd: f"{dd:02d}/{mm}",
            "d mon": lambda dd: f"{dd:02d} {MONTHS[int(mm) - 1]}"}[date_style]
    crdr = not signed_column and rng.random() < 0.3
    style = rng.choice(("minus", "paren", "trailing"))

    def balance(c):
        if crdr:
            return cash(abs(c), mark) + (" CR" if c >= 0 else " DR")
        return signed_print(c, style, mark) if signed_column else cash(c, mark)
    running = not signed_column or rng.random() < 0.5
    as_rows = rng.random() < 0.3 and running
    d.row.update(OPENING_BALANCE=cash(opening), CLOSING_BALANCE=cash(closing), DESCRIPTIONS=" | ".join(t for _, t, _ in txns))
    d.b = blocks(d)
    pg.put(d.heading, pg.w - pg.m, pg.y, "title", "r")
    pg.flow([(d.row["BANK_NAME"], "big"), ("", "")])
    pg.side(d.b["account"][:2], d.b["account"][2:])
    if not as_rows:
        pg.flow([(d.kv("opening", d.row["OPENING_BALANCE"]), "bold"), ("", "")])
    keys = ["txdate", "txdesc"] + (["amount"] if signed_column else ["debit", "credit"]) + (["balance"] if running else [])
    d.labels["amount"] = ("Amount", "Betrag", "Montant")[d.lang]  # not a line total on a statement
    rows, cells = [], []
    for (day, t, _), a, b in zip(txns, printed, balances):
        if signed_column:
            figs = [signed_print(a, style, mark)]
            cell = dict(amount=figs[0])
        else:
            figs = [cash(-a, mark) if a < 0 else "", cash(a, mark) if a >= 0 else ""]
            cell = dict(debit=figs[0], credit=figs[1])
        rows.append([date(day), t] + figs + ([balance(b)] if running else []))
        cells.append(truth_row(date=date(day), description=t, balance=cash(b, mark) if running else None, **cell))
    if as_rows:
        label = lambda k: ROW_LABELS[k][d.lang]  # noqa: E731
        blank = [""] * (1 if signed_column else 2)
        rows = [["01/" + period[3:10] if date_style == "dmy" else date(1), label("opening")] + blank + [balance(opening)]] \
            + rows + [[period[14:] if date_style == "dmy" else date(28), label("closing")] + blank + [balance(closing)]]
    Table(pg, [d.lab(k) for k in keys], rows, "ll" + "r" * (len(keys) - 2), ruled=rng.random() < 0.4).draw()
    if not as_rows:
        pg.flow([("", ""), (d.kv("closing", d.row["CLOSING_BALANCE"]), "bold")])
    return d, [(pg.finish(), d.row, cells)], how


FAMILIES = {"wrapped": wrapped, "no_quantity": no_quantity, "two_pages": two_pages,
            "debit_credit": lambda rng, fonts: statement(rng, fonts, False),
            "signed": lambda rng, fonts: statement(rng, fonts, True)}


def light_noise(rng, img):
    """A third of the pages clean; the others one or two of a slight rotation, blur, speckle, JPEG
    (decoded again here, so that a TIFF page carries it too) or low contrast."""
    if rng.random() < 1 / 3:
        return img
    for kind in rng.sample(("rotate", "blur", "speckle", "jpeg", "contrast"), rng.choice((1, 2))):
        if kind == "rotate":
            img = img.rotate(rng.uniform(-1.5, 1.5), resample=Image.BICUBIC, fillcolor=255)
        elif kind == "blur":
            img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8)))
        elif kind == "speckle":
            px = img.load()
            for _ in range(int(img.width * img.height * rng.uniform(0.0005, 0.002))):
                px[rng.randrange(img.width), rng.randrange(img.height)] = rng.randint(0, 200)
        elif kind == "contrast":
            img = ImageEnhance.Contrast(img).enhance(rng.uniform(0.6, 0.8))
        else:
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=rng.randint(55, 90))
            img = Image.open(io.BytesIO(buf.getvalue())).convert("L")
    return img


def noisy(rng, img, mode):
    img = img.convert("L")
    if mode == "none":
        return img
    if mode == "light":
        return light_noise(rng, img)
    img, quality = varied_noise(rng, img)
    if quality:
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=quality)
        img = Image.open(io.BytesIO(buf.getvalue())).convert("L")
    return img


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?")
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--families", default=",".join(FAMILIES), help="comma-separated layout families")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", choices=("light", "none", "varied"), default="light")
    ap.add_argument("--list-families", action="store_true", help="print the layout families and exit")
    args = ap.parse_args()
    if args.list_families:
        print("\n".join(FAMILIES))
        return
    names = [n for n in args.families.split(",") if n]
    if not args.out or not names or set(names) - set(FAMILIES):
        ap.error(f"OUT_DIR and families among {', '.join(FAMILIES)} are needed")
    if os.path.isdir(args.out) and os.listdir(args.out):
        # Its pages and ground_truth.jsonl would land among (or over) what is there: a run's
        # folder, samples/, another seed's pages.
        ap.error(f"{args.out}: the folder is not empty; name a new or empty folder")
    os.makedirs(args.out, exist_ok=True)
    rng, fonts = random.Random(args.seed), font_files()
    records, layouts, balances = [], [], []
    for i in range(args.count):
        family = names[i % len(names)]
        made = FAMILIES[family](rng, fonts)
        d, pages, how = made if len(made) == 3 else (*made, None)
        images = [noisy(rng, img, args.noise) for img, _, _ in pages]
        name = f"{family}_{i + 1:03d}" + (".tif" if len(pages) > 1 else ".png")
        path = os.path.join(args.out, name)
        if len(images) > 1:
            images[0].save(path, save_all=True, append_images=images[1:], compression="tiff_deflate")
        else:
            images[0].save(path, optimize=True)
        for k, (_, fields, cells) in enumerate(pages):
            record = {"image_file": name + (f"#page={k + 1}" if k else "")}
            record.update({c: fields[c] for c in COLUMNS if c != "image_file"})
            record["line_items"] = cells
            records.append(record)
        layouts.append((name, family))
        if d.kind == STM:
            balances.append((name, "no" if how else "yes", how or ""))
    with open(os.path.join(args.out, "ground_truth.jsonl"), "w", newline="\n") as f:
        f.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    for file, rows in (("layouts.csv", [("image_file", "layout")] + layouts),
                       ("balance_truth.csv", [("image_file", "adds_up", "misprint")] + balances)):
        with open(os.path.join(args.out, file), "w", newline="") as f:
            csv.writer(f).writerows(rows)
    print(f"{args.out}: {len(layouts)} documents ({len(records)} pages, "
          f"{sum(len(r['line_items']) for r in records)} rows), {len(balances)} statements")


if __name__ == "__main__":
    main()
