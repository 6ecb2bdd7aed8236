#!/usr/bin/env python3
"""Scores docsift's predictions.csv on real documents, by these rules:

- TOTAL equal to the cent (any currency mark, decimal comma or dot, thousands separators);
- INVOICE_DATE the same calendar day, the truth read day first with a 2- or 4-digit year or a
  month name, month name first, or as eight digits (the predictions are DD/MM/YYYY);
- SUPPLIER when every word of the truth appears in the prediction, leaving out company-form words
  (sdn, bhd, s, b, m, co, ltd, plt, pte, enterprise, trading, the).

    bench/ocr/score.py receipts PREDICTIONS.csv SROIE_DIR      # NNN.jpg + NNN.json (company, date, total)
    bench/ocr/score.py invoices PREDICTIONS.csv TRUTH.csv      # bench/ocr/invoices/truth.csv
    add --misses to list every miss with its truth and prediction.
Prints one line per field, "FIELD accuracy right/judged" (a receipt whose label is empty is not
judged on that field), and the mean of the three.

In a predictions.csv, a document of several pages is scored on its first page ("x.pdf#page=1"), as
`docsift eval` scores it (docs/eval.md); its other pages are not scored. documents.csv has one row per
file, its pages merged (docs/run.md, "Documents of several pages"): run.sh scores the invoices from it.
"""
import csv
import json
import os
import re
import sys

MONTHS = {m: i + 1 for i, names in enumerate([
    "jan january januar janvier", "feb february februar fevrier février", "mar march märz maerz mars",
    "apr april avril", "may mai", "jun june juni juin", "jul july juli juillet", "aug august août aout",
    "sep sept september septembre", "oct october oktober octobre", "nov november novembre",
    "dec december dezember décembre decembre"]) for m in names.split()}
FORMS = {"sdn", "bhd", "s", "b", "m", "co", "ltd", "plt", "pte", "enterprise", "trading", "the"}


def cents(text):
    """The amount in `text` in cents: '$1,234.56', 'RM 9.90', '56,02 €', '1.234,56', '2'606.35'."""
    if not text or text.strip().upper() == "N/A":
        return None
    m = re.search(r"\d[\d.,' ]*", text)
    if not m:
        return None
    s = m.group(0).strip().replace(" ", "").replace("'", "")
    dec = re.search(r"[.,](\d{1,2})$", s)
    if dec:
        whole, frac = re.sub(r"[.,]", "", s[:dec.start()]), dec.group(1).ljust(2, "0")
    else:
        whole, frac = re.sub(r"[.,]", "", s), "00"
    return int(whole or "0") * 100 + int(frac)


def day(text):
    """(day, month, year) of a date written day first: 11/02/18, 21-02-16, 06 APR 2018, 20/JAN/2017,
    2018-03-14, (06/12/2016); or month name first (OCT 3, 2016); or eight digits run together, year
    first or last (SROIE labels 20180304 and 25032018)."""
    if not text or text.strip().upper() == "N/A":
        return None
    t = text.lower()
    m = re.search(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", t)
    if m:
        return int(m.group(3)), int(m.group(2)), int(m.group(1))
    m = re.fullmatch(r"\s*(\d{8})\s*", t)
    if m:
        g = m.group(1)
        if g[:2] in ("19", "20") and 1 <= int(g[4:6]) <= 12:
            return int(g[6:]), int(g[4:6]), int(g[:4])
        return int(g[:2]), int(g[2:4]), int(g[4:])
    m = re.search(r"([a-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})", t)
    if m and (m.group(1) in MONTHS or m.group(1)[:3] in MONTHS):
        return int(m.group(2)), MONTHS.get(m.group(1), MONTHS.get(m.group(1)[:3])), int(m.group(3))
    m = re.search(r"(\d{1,2})\s*[-/. ]\s*(\d{1,2}|[a-zäéû]{3,9})\.?\s*[-/. ,]\s*(\d{4}|\d{2})(?!\d)", t)
    if not m:
        return None
    d, mo, y = m.groups()
    mo = int(mo) if mo.isdigit() else MONTHS.get(mo, MONTHS.get(mo[:3], 0))
    if mo > 12 >= int(d):  # no day-first date ("12/13/2016"): the only calendar day it can be
        d, mo = mo, int(d)
    y = int(y) + (2000 if len(y) == 2 else 0)
    return int(d), mo, y


def words(text):
    return [w for w in re.findall(r"[0-9a-zà-ÿ]+", text.lower()) if w not in FORMS]


def supplier_ok(pred, truth):
    if not pred or pred.strip().upper() == "N/A":
        return False
    have = set(words(pred))
    want = words(truth)
    return bool(want) and all(w in have for w in want)


def edits(a, b, limit=None):
    """Levenshtein distance between a and b; with `limit`, limit + 1 once it is over limit (the
    pages that agree's rule stops there: bench/confidence/refit.py)."""
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (ca != cb))
        if limit is not None and min(row) > limit:
            return limit + 1
    return row[-1]


def receipts_truth(folder, address=False):
    """The receipts' labels ({image: {TOTAL, INVOICE_DATE, SUPPLIER}}) from SROIE's JSON files; with
    `address`, the seller's address too, as BUSINESS_ADDRESS."""
    truth = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                j = json.load(f)
            labels = {"TOTAL": j.get("total", ""), "INVOICE_DATE": j.get("date", ""), "SUPPLIER": j.get("company", "")}
            if address:
                labels["BUSINESS_ADDRESS"] = j.get("address", "")
            # A label left empty (the 200's 648.jpg has no total, the 427's 104.jpg no address,
            # both printed on the receipt) judges nothing: neither right nor wrong.
            truth[name[:-5] + ".jpg"] = {k: v for k, v in labels.items() if v.strip()}
    return truth


def main():
    misses = "--misses" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--misses"]
    kind, pred_csv, truth_path = args
    with open(pred_csv, newline="", encoding="utf-8") as f:
        preds = {}
        for r in csv.DictReader(f):
            name, _, page = r["image_file"].partition("#page=")
            if page in ("", "1"):
                preds[name] = r
    truth = {}
    if kind == "receipts":
        truth = receipts_truth(truth_path)
    else:
        with open(truth_path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                truth[r["file"]] = r
    checks = {
        "TOTAL": lambda p, t: cents(p) is not None and cents(p) == cents(t),
        "INVOICE_DATE": lambda p, t: day(p) is not None and day(p) == day(t),
        "SUPPLIER": supplier_ok,
    }
    scores = []
    for field, ok in checks.items():
        right = judged = 0
        for name, t in truth.items():
            if field not in t:
                continue
            judged += 1
            p = preds.get(name, {}).get(field, "N/A")
            if ok(p, t[field]):
                right += 1
            elif misses:
                print(f"  miss {field} {name}: truth {t[field]!r} predicted {p!r}")
        scores.append(right / judged)
        print(f"{field:<13} {right / judged:.3f} {right}/{judged}")
    print(f"{'mean':<13} {sum(scores) / len(scores):.3f}")


if __name__ == "__main__":
    main()
