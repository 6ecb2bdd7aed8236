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
opencv-python-headless (a venv of its own: scripts/make_recognizer_reference.py's docstring, whose
preparation and decoding it uses). Training split only:
the test split is held out. How the second recognizer was chosen: bench/ocr/README.md.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import cv2

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
# PaddleOCR's preparation of a crop and its CTC decoding, as the parity fixtures are made.
from make_recognizer_reference import characters_of, decode, one_thread_session, resize_norm_img  # noqa: E402
from score import edits  # noqa: E402  (bench/ocr/score.py, beside this script)

COMMIT = "27be4271b251c256f695acbade9a801bffe85994"  # bench/ocr/get_receipts.sh's


def read(session, chars, crop):
    """The text `session` reads in `crop` (BGR), padded with zeros to at least 320 pixels as
    PaddleOCR pads one crop."""
    width = max(320, math.ceil(48 * crop.shape[1] / crop.shape[0]))
    probs = session.run(None, {session.get_inputs()[0].name: resize_norm_img(crop, width)[None]})[0][0]
    return decode(probs, chars)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", help="NAME=MODEL.onnx")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=427)
    ap.add_argument("--lines", type=int, default=8)
    args = ap.parse_args()
    mirror = os.environ.get("SROIE_MIRROR") or sys.exit("recognizers.py: set SROIE_MIRROR to a git copy of zzzDavid/ICDAR-2019-SROIE")
    images = os.path.join(ROOT, ".deps", "receipts-unseen")
    models = {}
    for spec in args.models:
        name, path = spec.split("=", 1)
        models[name] = (one_thread_session(path), characters_of(path))
    key = lambda s: re.sub(r"\s+", "", s).upper()
    score = {name: [0, 0] for name in models}
    letters = lines = 0
    files = sorted(f[:-4] for f in os.listdir(images) if f.endswith(".jpg"))[args.first:args.first + args.count]
    for base in files:
        boxes = subprocess.run(["git", "--git-dir", mirror, "cat-file", "-p", f"{COMMIT}:data/box/{base}.csv"],
                               capture_output=True, check=True).stdout.decode("utf-8", "replace")
        image = cv2.imread(os.path.join(images, base + ".jpg"))
        for line in boxes.splitlines()[:args.lines]:
            parts = line.split(",", 8)
            if len(parts) < 9 or not parts[8].strip():
                continue
            xs, ys = [int(v) for v in parts[0:8:2]], [int(v) for v in parts[1:8:2]]
            crop = image[max(0, min(ys)):max(ys), max(0, min(xs)):max(xs)]
            if crop.shape[0] < 4 or crop.shape[1] < 4:
                continue
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
