#!/usr/bin/env python3
"""Line recognizers compared on real receipt lines: each PaddleOCR recognizer given (ONNX files run by
onnxruntime, PaddleOCR's preparation and greedy CTC decoding as docsift has them) reads the text lines
that ICDAR 2019 SROIE's task 1 labels on the 427 training receipts of bench/ocr/get_receipts.sh (the
box files: each line's quadrilateral and its text), and is scored against those texts: lines read
exactly (spaces and case aside) and the character error rate.

    SROIE_MIRROR=DIR bench/ocr/recognizers.py [--first K] [--count N] [--lines L] NAME=MODEL.onnx...

DIR: a git copy of zzzDavid/ICDAR-2019-SROIE (the box files are read from it at get_receipts.sh's
pinned commit); the images from .deps/receipts-unseen. --lines: each receipt's first L labelled
lines (the seller's name and address are among the first; default 8). Needs onnxruntime, onnx and
Pillow (a venv of its own: scripts/make_recognizer_reference.py's docstring). Training split only:
the test split is held out. How the second recognizer was chosen: bench/ocr/README.md.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COMMIT = "27be4271b251c256f695acbade9a801bffe85994"  # bench/ocr/get_receipts.sh's


def characters(path):
    meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
    if "character" in meta:
        return meta["character"].splitlines()
    raise SystemExit(f"recognizers.py: {path} has no `character` metadata")


def read(session, chars, crop):
    """PaddleOCR's preparation (height 48, BGR, (x/255 - 0.5)/0.5, zeros to at least 320 pixels)
    and greedy CTC decoding (repeats merged, blanks dropped, the last class a space)."""
    width = max(8, math.ceil(48 * crop.width / crop.height))
    pixels = np.asarray(crop.convert("RGB").resize((width, 48), Image.BILINEAR), dtype=np.float32)[:, :, ::-1]
    x = np.zeros((1, 3, 48, max(320, width)), dtype=np.float32)
    x[0, :, :, :width] = ((pixels / 255 - 0.5) / 0.5).transpose(2, 0, 1)
    probs = session.run(None, {session.get_inputs()[0].name: x})[0][0]
    classes = probs.argmax(1)
    return "".join(" " if c > len(chars) else chars[c - 1]
                   for i, c in enumerate(classes) if c != 0 and (i == 0 or c != classes[i - 1]))


def edits(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (ca != cb))
    return row[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", help="NAME=MODEL.onnx")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=427)
    ap.add_argument("--lines", type=int, default=8)
    args = ap.parse_args()
    mirror = os.environ.get("SROIE_MIRROR") or sys.exit("recognizers.py: set SROIE_MIRROR to a git copy of zzzDavid/ICDAR-2019-SROIE")
    images = os.path.join(ROOT, ".deps", "receipts-unseen")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    models = {}
    for spec in args.models:
        name, path = spec.split("=", 1)
        models[name] = (onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"]),
                        characters(path))
    key = lambda s: re.sub(r"\s+", "", s).upper()
    score = {name: [0, 0] for name in models}
    letters = lines = 0
    files = sorted(f[:-4] for f in os.listdir(images) if f.endswith(".jpg"))[args.first:args.first + args.count]
    for base in files:
        boxes = subprocess.run(["git", "--git-dir", mirror, "cat-file", "-p", f"{COMMIT}:data/box/{base}.csv"],
                               capture_output=True, check=True).stdout.decode("utf-8", "replace")
        image = Image.open(os.path.join(images, base + ".jpg"))
        for line in boxes.splitlines()[:args.lines]:
            parts = line.split(",", 8)
            if len(parts) < 9 or not parts[8].strip():
                continue
            xs, ys = [int(v) for v in parts[0:8:2]], [int(v) for v in parts[1:8:2]]
            if max(xs) - min(xs) < 4 or max(ys) - min(ys) < 4:
                continue
            crop = image.crop((min(xs), min(ys), max(xs), max(ys)))
            truth = key(parts[8])
            lines += 1
            letters += len(truth)
            for name, (session, chars) in models.items():
                got = key(read(session, chars, crop))
                score[name][0] += got == truth
                score[name][1] += edits(got, truth)
    print(json.dumps({"receipts": len(files), "lines": lines, **{
        name: {"exact": f"{s[0]} ({s[0] / max(1, lines):.1%})", "cer": round(s[1] / max(1, letters), 4)}
        for name, s in score.items()}}))


if __name__ == "__main__":
    main()
