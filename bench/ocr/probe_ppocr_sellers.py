#!/usr/bin/env python3
"""Issue 46's first measurement: read each development receipt's SUPPLIER box (the box docsift's
OCR engine read the seller from, in the record's evidence) again with PP-OCRv4's recognizer, and
score both readings as bench/ocr/score.py scores sellers (every word of the labelled name).

    python3 -m venv /tmp/rvenv && /tmp/rvenv/bin/pip install rapidocr-onnxruntime==1.4.4
    /tmp/rvenv/bin/python bench/ocr/probe_ppocr_sellers.py [RUNS_DIR]

RUNS_DIR holds runs made with `--set ocr.write_evidence=true` (bench/confidence/refit.py leaves
them in build/bench/confidence: receipts/ and receipts-427/). Prints, per set, the values, how many
Tesseract's reading got right, how many PP-OCRv4's reading of the same box got right, and how many
either did (what a perfect vote between the two could reach), then the values PP-OCRv4 alone read
right. onnxruntime is for this probe only: docsift never runs Python (issue 46 chooses the runtime).
"""
import json
import os
import sys

import cv2
from rapidocr_onnxruntime import RapidOCR

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr"))
from score import receipts_truth, supplier_ok  # noqa: E402


def main():
    runs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bench", "confidence")
    recognise = RapidOCR().text_rec
    sets = [("receipts", os.path.join(ROOT, "..", "shared", "data", "sroie-train")),
            ("receipts-427", os.path.join(ROOT, ".deps", "receipts-unseen"))]
    for name, folder in sets:
        journal = os.path.join(runs, name, "results.jsonl")
        if not os.path.exists(journal) or not os.path.isdir(folder):
            print(f"{name}: no run or no receipts; skipped", file=sys.stderr)
            continue
        truth = receipts_truth(folder)
        n = tesseract = ppocr = either = 0
        fixed = []
        for line in open(journal, encoding="utf-8"):
            r = json.loads(line)
            base = os.path.basename(r["file"])
            value = r["fields"].get("SUPPLIER", "N/A")
            evidence = ((r.get("engine") or {}).get("evidence") or {}).get("SUPPLIER")
            if value == "N/A" or not evidence or base not in truth:
                continue
            x, y, w, h = evidence["box"]
            image = cv2.imread(os.path.join(folder, base))
            if image is None:
                continue
            pad = max(2, h // 6)
            crop = image[max(0, y - pad):y + h + pad, max(0, x - pad):x + w + pad]
            if crop.size == 0:
                continue
            # A box over two lines (a name printed on two) is read as its two halves.
            pieces = [crop] if h < 88 else [crop[:crop.shape[0] // 2], crop[crop.shape[0] // 2:]]
            out = recognise(pieces)
            texts = out[0] if isinstance(out, tuple) else out
            read = " ".join(t[0] for t in texts)
            right_t, right_p = supplier_ok(value, truth[base]["SUPPLIER"]), supplier_ok(read, truth[base]["SUPPLIER"])
            n += 1
            tesseract += right_t
            ppocr += right_p
            either += right_t or right_p
            if right_p and not right_t:
                fixed.append(f"  {value!r} -> {read!r}")
        print(f"{name}: {n} values; Tesseract right {tesseract}, PP-OCRv4 on the same box right {ppocr}, either {either}")
        print("\n".join(fixed))


if __name__ == "__main__":
    main()
