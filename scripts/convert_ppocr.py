#!/usr/bin/env python3
"""PP-OCRv4's text recognizer, from the ONNX file the rapidocr-onnxruntime wheel ships, into the two
files docsift's recognizer reads (lib/docsift/recognize/graph.h): run once by scripts/setup.sh.

    python3 scripts/convert_ppocr.py MODEL.onnx OUT_FOLDER

OUT_FOLDER/recognizer.safetensors  every constant of the graph (weights and the small integer
                                   constants of its shape arithmetic), named by the value it feeds
OUT_FOLDER/recognizer.json         {"format": "docsift-onnx-graph", "version": 1, "opset": 12,
                                    "input": name, "output": name, "characters": [...],
                                    "nodes": [{"op", "inputs", "outputs", "attributes"}...]}

Why not the ONNX file itself: docsift has no ONNX runtime (docs/ocr.md says why) and no protobuf
parser; the `onnx` package reads the file here, at setup time, and what docsift reads at run time is
JSON and safetensors, both parsed defensively by code it already fuzzes. Nothing is pickled.
The characters are the model's dictionary (ONNX metadata `character`): class 0 is CTC's blank,
class i the i-th character, and the last class a space, as PaddleOCR's CTC decoder has it.
"""
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

DTYPES = {np.dtype("float32"): "F32", np.dtype("int64"): "I64", np.dtype("int32"): "I32"}


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        array = np.ascontiguousarray(array)
        data = array.tobytes()
        header[name] = {"dtype": DTYPES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".part", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for data in blobs:
            f.write(data)
    os.replace(path + ".part", path)


def attribute(a):
    value = helper.get_attribute_value(a)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, (list, tuple)):
        return [v for v in value]
    if isinstance(value, (int, float, str)):
        return value
    raise SystemExit(f"convert_ppocr: attribute {a.name} of type {a.type} is not supported")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    model = onnx.load(sys.argv[1])
    graph = model.graph
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    meta = {p.key: p.value for p in model.metadata_props}
    if "character" not in meta:
        raise SystemExit("convert_ppocr: the model has no `character` metadata (not a PaddleOCR recognizer?)")
    tensors, nodes = {}, []
    for t in graph.initializer:
        tensors[t.name] = numpy_helper.to_array(t)
    for n in graph.node:
        if n.op_type == "Constant":
            (a,) = n.attribute
            tensors[n.output[0]] = numpy_helper.to_array(a.t)
            continue
        nodes.append({"op": n.op_type, "inputs": list(n.input), "outputs": list(n.output),
                      "attributes": {a.name: attribute(a) for a in n.attribute}})
    for name, array in tensors.items():
        if array.dtype not in DTYPES:
            tensors[name] = array.astype(np.float32 if array.dtype.kind == "f" else np.int64)
    characters = meta["character"].splitlines()
    (inp,) = [i.name for i in graph.input if i.name not in tensors]
    (out,) = [o.name for o in graph.output]
    os.makedirs(sys.argv[2], exist_ok=True)
    write_safetensors(os.path.join(sys.argv[2], "recognizer.safetensors"), tensors)
    spec = {"format": "docsift-onnx-graph", "version": 1, "opset": opset, "source": os.path.basename(sys.argv[1]),
            "input": inp, "output": out, "characters": characters, "nodes": nodes}
    path = os.path.join(sys.argv[2], "recognizer.json")
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump(spec, f, ensure_ascii=False, separators=(",", ":"))
    os.replace(path + ".part", path)
    print(f"{len(nodes)} nodes, {len(tensors)} constants, {len(characters)} characters -> {sys.argv[2]}")


if __name__ == "__main__":
    main()
