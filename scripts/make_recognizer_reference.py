#!/usr/bin/env python3
"""Line crops and the second recognizer's readings of them by onnxruntime, for the recognizer's parity test
(tests/parity/test_recognizer.cpp): docsift's own run of the network (lib/docsift/recognize) must
give the same classes and probabilities as the runtime the model was exported for.

    python3 -m venv /tmp/rvenv && /tmp/rvenv/bin/pip install onnxruntime opencv-python-headless onnx
    /tmp/rvenv/bin/pip download --no-deps rapidocr-onnxruntime==1.4.4 -d /tmp/rw   # the ONNX file's wheel
    unzip -o /tmp/rw/rapidocr_onnxruntime-1.4.4-py3-none-any.whl \
        rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx -d /tmp/rw
    /tmp/rvenv/bin/python scripts/make_recognizer_reference.py /tmp/rw/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx

MODEL.onnx is the file scripts/setup.sh converts into .deps/ppocr (PP-OCRv4's); another PaddleOCR
recognizer gives its own reference (the parity test then needs that one converted in .deps/ppocr).

Writes tests/fixtures/recognizer/: crop_*.png (lines cut from samples/ pages, some blurred, faded or
squeezed so that the network is unsure) and reference.json: per crop, the text read, PaddleOCR's
score (mean probability of the characters kept), and per CTC step the likeliest class and its
probability. The crop is prepared as PaddleOCR's recognizer prepares it (resize_norm_img: height 48,
BGR, (x / 255 - 0.5) / 0.5, zeros to the batch's width) and decoded as its CTCLabelDecode decodes
(repeats and the blank, class 0, dropped; the last class a space). onnxruntime is for this script
only; docsift never runs Python.
"""
import json
import math
import os
import sys

import cv2
import numpy as np
import onnx
import onnxruntime

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "recognizer")
# (page, box left/top/right/bottom as rapidocr's detector found them, what is done to the crop)
CROPS = [
    ("synthetic_invoice_004.png", (80, 136, 343, 170), "plain"),    # Ironbark Hardware
    ("synthetic_invoice_004.png", (88, 920, 337, 954), "plain"),    # TOTAL: $1,865.08
    ("synthetic_invoice_004.png", (85, 547, 300, 577), "blur"),     # Date:26/02/2025
    ("synthetic_invoice_004.png", (83, 477, 469, 513), "faded"),    # an email address
    ("synthetic_invoice_004.png", (80, 204, 531, 237), "squeezed"), # an address, half height
    ("synthetic_invoice_004.png", (484, 679, 582, 708), "plain"),   # $190.72, narrower than PaddleOCR's 320
]


def prepare(image, how):
    if how == "blur":
        return cv2.GaussianBlur(image, (0, 0), 1.6)
    if how == "faded":
        return (255 - (255 - image.astype(np.float32)) * 0.25).round().astype(np.uint8)
    if how == "squeezed":
        return cv2.resize(image, (image.shape[1], image.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return image


def resize_norm_img(crop, width):
    """PaddleOCR's: the crop at height 48 and its own width (at most `width`), normalised, in a
    zero tensor [3, 48, width]."""
    resized_w = min(width, math.ceil(48 * crop.shape[1] / crop.shape[0]))
    resized = cv2.resize(crop, (resized_w, 48)).astype(np.float32).transpose(2, 0, 1) / 255
    out = np.zeros((3, 48, width), dtype=np.float32)
    out[:, :, :resized_w] = (resized - 0.5) / 0.5
    return out


def decode(probs, characters):
    """PaddleOCR's CTCLabelDecode: (text, mean probability of the characters kept)."""
    classes = probs.argmax(1)
    kept = [i for i, c in enumerate(classes) if c != 0 and (i == 0 or c != classes[i - 1])]
    text = "".join(" " if classes[i] > len(characters) else characters[classes[i] - 1] for i in kept)
    return text, float(np.mean([probs[i].max() for i in kept])) if kept else 0.0


def characters_of(path):
    """A PaddleOCR recognizer's dictionary (ONNX metadata `character`), one entry a line."""
    meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
    if "character" not in meta:
        raise SystemExit(f"{path}: no `character` metadata (not a PaddleOCR recognizer?)")
    return meta["character"].splitlines()


def one_thread_session(path):
    """onnxruntime on one thread, as docsift reads each page on one (docs/ocr.md)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    characters = characters_of(sys.argv[1])
    session = one_thread_session(sys.argv[1])
    os.makedirs(OUT, exist_ok=True)
    reference = []
    for i, (page, (left, top, right, bottom), how) in enumerate(CROPS):
        image = cv2.imread(os.path.join(ROOT, "samples", page))
        crop = prepare(np.ascontiguousarray(image[top:bottom, left:right]), how)
        name = f"crop_{i}_{how}.png"
        cv2.imwrite(os.path.join(OUT, name), crop)
        crop = cv2.imread(os.path.join(OUT, name))  # as the test reads it (lossless, but be sure)
        # docsift pads a crop to a multiple of 80 pixels and 160 at least (recognize/line_reader.h),
        # as PaddleOCR pads a batch to its widest crop: the same padding here.
        resized = max(1, math.ceil(48 * crop.shape[1] / crop.shape[0]))
        width = -(-max(160, resized) // 80) * 80
        batch = resize_norm_img(crop, width)[np.newaxis]
        probs = session.run(None, {session.get_inputs()[0].name: batch})[0][0]  # [steps, classes]
        text, score = decode(probs, characters)
        reference.append({"crop": name, "text": text, "score": score,
                          "classes": probs.argmax(1).tolist(),
                          "probabilities": [round(float(p), 7) for p in probs.max(1)]})
        print(f"{name}: {text!r} {score:.4f}")
    with open(os.path.join(OUT, "reference.json"), "w", encoding="utf-8") as f:
        json.dump({"model": os.path.basename(sys.argv[1]), "crops": reference},
                  f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
