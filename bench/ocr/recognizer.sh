#!/bin/bash
# The second recognizer's speed, docsift's LibTorch graph against onnxruntime running the
# ONNX file it was converted from, on the same line crops padded the same way, both on this
# machine's cores; each run three times (the machine's noise is ±20 % on a run this short):
#   bench/ocr/recognizer.sh MODEL.onnx [VENV]
#     MODEL.onnx: the file .deps/ppocr was converted from (scripts/make_recognizer_reference.py's
#     docstring says where to get it); VENV: a Python with onnxruntime, onnx and opencv-python-headless
#     (default /tmp/rvenv; onnxruntime is for this bench only)
# Crops: tests/fixtures/recognizer/crop_*.png (from samples/ pages) and, where the development
# receipts are, 60 value boxes cut from them by docsift's own run (build/bench/ocr/receipts-both).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MODEL=${1:?usage: bench/ocr/recognizer.sh MODEL.onnx [VENV]}
VENV=${2:-/tmp/rvenv}
CROPS=$(mktemp -d)
trap 'rm -rf "$CROPS"' EXIT
cp "$ROOT"/tests/fixtures/recognizer/crop_*.png "$CROPS"/
if [ -f "$ROOT/build/bench/ocr/receipts-both/results.jsonl" ]; then
  "$VENV/bin/python" - "$ROOT/build/bench/ocr/receipts-both/results.jsonl" "$ROOT/../shared/data/sroie-train" "$CROPS" <<'PY'
import json, os, sys, cv2
journal, folder, out = sys.argv[1:4]
n = 0
for line in open(journal):
    r = json.loads(line)
    for field, (x, y, w, h) in (r.get("boxes") or {}).items():
        if field not in ("TOTAL", "INVOICE_DATE", "SUPPLIER") or n >= 60:
            continue
        image = cv2.imread(os.path.join(folder, os.path.basename(r["file"])))
        pad = max(2, h // 6)
        crop = image[max(0, y - pad):y + h + pad, max(0, x - pad):x + w + pad]
        if crop.size:
            cv2.imwrite(os.path.join(out, f"receipt_{n:03d}.png"), crop)
            n += 1
PY
fi
echo "$(ls "$CROPS" | wc -l) crops"
for _ in 1 2 3; do "$ROOT/build/docsift_bench_recognizer" --repeat 5 "$CROPS"/*.png; done
"$VENV/bin/python" - "$CROPS" "$MODEL" "$ROOT/scripts" <<'PY'
import glob, math, sys, time
import cv2, numpy as np, onnxruntime as ort
sys.path.insert(0, sys.argv[3])
from make_recognizer_reference import resize_norm_img  # PaddleOCR's preparation of a crop
session = ort.InferenceSession(sys.argv[2], providers=["CPUExecutionProvider"])  # default threads: all cores
batches = []
for f in sorted(glob.glob(sys.argv[1] + "/*.png")):
    crop = cv2.imread(f)
    resized = max(1, math.ceil(48 * crop.shape[1] / crop.shape[0]))
    width = -(-max(320, resized) // 160) * 160  # docsift's padding (recognize/line_reader.h)
    batches.append(resize_norm_img(crop, width)[np.newaxis])
name = session.get_inputs()[0].name
for b in batches:
    session.run(None, {name: b})
for _ in range(3):
  start = time.perf_counter()
  for _ in range(5):
    for b in batches:
      session.run(None, {name: b})
  ms = (time.perf_counter() - start) * 1000 / (5 * len(batches))
  print(f"onnxruntime {ort.__version__}: {ms:.2f} ms per crop")
PY
