#!/usr/bin/env python3
"""Writes samples/ground_truth_rows.jsonl: the samples' ground truth with each page's table rows.

    python3 scripts/make_row_truth.py [GROUND_TRUTH_CSV [OUT_JSONL]]
    (default: samples/ground_truth.csv, samples/ground_truth_rows.jsonl)

Standard library only, deterministic. One JSON object per page of the CSV that has a DESCRIPTIONS,
QUANTITIES or PRICES list: its image_file, every field of its CSV row with the same value (N/A
included, so that it is a complete truth and scores the fields exactly as the CSV does), and
"line_items": the three lists zipped into rows (docs/eval.md, "Rows").

Which cell PRICES is: scripts/make_samples.py prints each invoice's and receipt's items as
"Description  Qty  Price" with the unit price (the subtotal is the sum of quantity x price), and
no line amount; so PRICES is each row's "unit_price", and no "amount" is written (the page does
not print one). Bank statements list DESCRIPTIONS only (their printed amounts are not in
ground_truth.csv), so their rows give the description alone.
"""
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The list field each row cell is zipped from, in a row's key order.
CELLS = [("description", "DESCRIPTIONS"), ("quantity", "QUANTITIES"), ("unit_price", "PRICES")]


def missing(value):
    return value.strip() in ("", "N/A", "NOT_FOUND")


def items(value):
    """A list field's items, as eval splits them: on | and newlines, trimmed, empty ones dropped."""
    return [item.strip() for item in value.replace("\r", "\n").replace("|", "\n").split("\n") if item.strip()]


def rows_of(record, where):
    lists = {cell: items(record[field]) for cell, field in CELLS if not missing(record.get(field, "N/A"))}
    if not lists:
        return None
    lengths = {cell: len(values) for cell, values in lists.items()}
    if len(set(lengths.values())) != 1:
        sys.exit(f"{where}: the lists have different lengths {lengths}; rows cannot be zipped")
    count = next(iter(lengths.values()))
    return [{cell: lists[cell][i] for cell, _ in CELLS if cell in lists} for i in range(count)]


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "samples", "ground_truth.csv")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "samples", "ground_truth_rows.jsonl")
    if not os.path.isfile(source):
        sys.exit(f"{source}: no such file; give the ground-truth CSV to read")
    if os.path.exists(out) and os.path.samefile(source, out):
        sys.exit(f"{out}: is the truth read ({source}); give another file to write")
    lines = []
    with open(source, newline="") as f:
        for number, record in enumerate(csv.DictReader(f), start=2):
            rows = rows_of(record, f"{source}:{number}")
            if rows is None:
                continue
            doc = dict(record)  # image_file first, then the fields in the CSV's column order
            doc["line_items"] = rows
            lines.append(json.dumps(doc, ensure_ascii=False))
    with open(out, "w", newline="\n") as f:
        f.write("".join(line + "\n" for line in lines))
    print(f"{out}: {len(lines)} pages, {sum(len(json.loads(line)['line_items']) for line in lines)} rows")


if __name__ == "__main__":
    main()
