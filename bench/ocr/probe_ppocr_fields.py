#!/usr/bin/env python3
"""What the second recognizer adds: each development receipt's TOTAL, INVOICE_DATE and SUPPLIER box
(as docsift's OCR engine read them, in the record's evidence) read again by PP-OCRv4's recognizer,
and how often the two readings agree, and how often each is right when they do and when they do not.
This is what docsift's `ocr.recognizer: both` decides with (docs/ocr.md); the C++ recognizer gives
onnxruntime's classes on the parity crops (tests/parity/test_recognizer.cpp), so onnxruntime stands
in for it here.

    /tmp/rvenv/bin/python bench/ocr/probe_ppocr_fields.py [RUNS_DIR] [--rows OUT.jsonl]

RUNS_DIR holds runs made with `--set ocr.write_evidence=true` (bench/confidence/refit.py leaves them in
build/bench/confidence: receipts/ and receipts-427/). --rows writes one
row per value: field, Tesseract's word_min and word_mean, PP-OCRv4's score, agreed, right, pp_right.
"""
import json
import os
import re
import sys

import cv2
from rapidocr_onnxruntime import RapidOCR

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr"))
from score import cents, day, receipts_truth, supplier_ok  # noqa: E402


def letters(text):
    return re.sub(r"[^0-9a-z]", "", text.lower())


def same(field, a, b):
    if field == "TOTAL":
        return cents(a) is not None and cents(a) == cents(b)
    if field == "INVOICE_DATE":
        return day(a) is not None and day(a) == day(b)
    return bool(letters(a)) and letters(a) == letters(b)


def right(field, value, truth):
    if field == "SUPPLIER":
        return supplier_ok(value, truth) or (bool(letters(truth)) and all(
            letters(w) in letters(value) for w in truth.split() if letters(w)))
    return same(field, value, truth)


def main():
    args = [a for a in sys.argv[1:]]
    rows_out = None
    if "--rows" in args:
        i = args.index("--rows")
        rows_out = open(args[i + 1], "w", encoding="utf-8")
        del args[i:i + 2]
    runs = args[0] if args else os.path.join(ROOT, "build", "bench", "confidence")
    recognise = RapidOCR().text_rec
    sets = [("receipts", os.path.join(ROOT, "..", "shared", "data", "sroie-train")),
            ("receipts-427", os.path.join(ROOT, ".deps", "receipts-unseen"))]
    for name, folder in sets:
        journal = os.path.join(runs, name, "results.jsonl")
        if not os.path.exists(journal) or not os.path.isdir(folder):
            print(f"{name}: no run or no receipts; skipped", file=sys.stderr)
            continue
        truth = receipts_truth(folder)
        table = {}
        for line in open(journal, encoding="utf-8"):
            r = json.loads(line)
            base = os.path.basename(r["file"])
            if base not in truth:
                continue
            image = None
            for field in ("TOTAL", "INVOICE_DATE", "SUPPLIER"):
                value = r["fields"].get(field, "N/A")
                evidence = ((r.get("engine") or {}).get("evidence") or {}).get(field)
                if value == "N/A" or not evidence:
                    continue
                if image is None:
                    image = cv2.imread(os.path.join(folder, base))
                x, y, w, h = evidence["box"]
                pad = max(2, h // 6)
                crop = image[max(0, y - pad):y + h + pad, max(0, x - pad):x + w + pad]
                if crop.size == 0 or crop.shape[0] < 2 or crop.shape[1] < 2:
                    continue
                out = recognise([crop])
                texts = out[0] if isinstance(out, tuple) else out
                read, score = texts[0]
                t_ok, p_ok = right(field, value, truth[base][field]), right(field, read, truth[base][field])
                agreed = same(field, value, read)
                key = (field, "agree" if agreed else "differ", t_ok, p_ok)
                table[key] = table.get(key, 0) + 1
                if rows_out:
                    rows_out.write(json.dumps({"set": name, "file": base, "field": field, "value": value, "read": read,
                                               "score": score, "word_min": evidence["word_min"],
                                               "word_mean": evidence["word_mean"], "agreed": agreed,
                                               "right": t_ok, "pp_right": p_ok}) + "\n")
        print(f"== {name}")
        for field in ("TOTAL", "INVOICE_DATE", "SUPPLIER"):
            n = sum(v for k, v in table.items() if k[0] == field)
            g = lambda a, t=None, p=None: sum(v for k, v in table.items() if k[0] == field and k[1] == a  # noqa: E731
                                              and (t is None or k[2] == t) and (p is None or k[3] == p))
            print(f"{field}: {n} values; agree {g('agree')} (right {g('agree', True)}), differ {g('differ')}: "
                  f"Tesseract right {g('differ', True)}, PP-OCRv4 right {g('differ', None, True)}, "
                  f"only PP-OCRv4 {g('differ', False, True)}, neither {g('differ', False, False)}")


if __name__ == "__main__":
    main()
