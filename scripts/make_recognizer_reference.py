#!/usr/bin/env python3
"""Line crops and PP-OCRv4's readings of them by onnxruntime, for the recognizer's parity test
(tests/parity/test_recognizer.cpp): docsift's own run of the network (lib/docsift/recognize) must
give the same classes and probabilities as the runtime the model was exported for.

    python3 -m venv /tmp/rvenv && /tmp/rvenv/bin/pip install rapidocr-onnxruntime==1.4.4
    /tmp/rvenv/bin/python scripts/make_recognizer_reference.py

Writes tests/fixtures/recognizer/: crop_*.png (lines cut from samples/ pages, some blurred, faded or
squeezed so that the network is unsure) and reference.json: per crop, the text read, PaddleOCR's
score (mean probability of the characters kept), and per CTC step the likeliest class and its
probability. onnxruntime and rapidocr are for this script only; docsift never runs Python.
"""
import json
import math
import os

import cv2
import numpy as np
from rapidocr_onnxruntime import RapidOCR

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "recognizer")
# (page, box left/top/right/bottom as rapidocr's detector found them, what is done to the crop)
CROPS = [
    ("synthetic_invoice_004.png", (80, 136, 343, 170), "plain"),    # Ironbark Hardware
    ("synthetic_invoice_004.png", (88, 920, 337, 954), "plain"),    # TOTAL: $1,865.08
    ("synthetic_invoice_004.png", (85, 547, 300, 577), "blur"),     # Date:26/02/2025
    ("synthetic_invoice_004.png", (83, 477, 469, 513), "faded"),    # an email address
    ("synthetic_invoice_004.png", (80, 204, 531, 237), "squeezed"), # an address, half height
    ("synthetic_invoice_004.png", (484, 679, 582, 708), "plain"),   # $190.72, narrower than 320
]


def prepare(image, how):
    if how == "blur":
        return cv2.GaussianBlur(image, (0, 0), 1.6)
    if how == "faded":
        return (255 - (255 - image.astype(np.float32)) * 0.25).round().astype(np.uint8)
    if how == "squeezed":
        return cv2.resize(image, (image.shape[1], image.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return image


def main():
    recognizer = RapidOCR().text_rec
    os.makedirs(OUT, exist_ok=True)
    reference = []
    for i, (page, (left, top, right, bottom), how) in enumerate(CROPS):
        image = cv2.imread(os.path.join(ROOT, "samples", page))
        crop = prepare(np.ascontiguousarray(image[top:bottom, left:right]), how)
        name = f"crop_{i}_{how}.png"
        cv2.imwrite(os.path.join(OUT, name), crop)
        crop = cv2.imread(os.path.join(OUT, name))  # as the test reads it (lossless, but be sure)
        # docsift pads a crop to a multiple of 160 pixels (recognize/line_reader.h), as PaddleOCR pads
        # a batch to its widest crop: the same padding here, through max_wh_ratio.
        resized = max(1, math.ceil(48 * crop.shape[1] / crop.shape[0]))
        width = -(-max(320, resized) // 160) * 160
        batch = recognizer.resize_norm_img(crop, width / 48)[np.newaxis].astype(np.float32)
        probs = recognizer.session(batch)[0][0]  # [steps, classes]
        (text, score), = recognizer.postprocess_op(probs[np.newaxis])
        reference.append({"crop": name, "text": text, "score": float(score),
                          "classes": probs.argmax(1).tolist(),
                          "probabilities": [round(float(p), 7) for p in probs.max(1)]})
        print(f"{name}: {text!r} {score:.4f}")
    with open(os.path.join(OUT, "reference.json"), "w", encoding="utf-8") as f:
        json.dump({"model": "ch_PP-OCRv4_rec_infer.onnx from rapidocr-onnxruntime 1.4.4", "crops": reference},
                  f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
