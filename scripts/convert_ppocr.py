#!/usr/bin/env python3
"""PP-OCRv4's text recognizer, from the ONNX file the rapidocr-onnxruntime wheel ships, into the two
files docsift's recognizer reads (lib/docsift/recognize/graph.h): run once by scripts/setup.sh.
Another PaddleOCR recognizer of the ops graph_spec.h accepts converts as well (PP-OCRv6 small's, from
the rapidocr 3.10.0 wheel, was measured so: bench/ocr/README.md).

    python3 scripts/convert_ppocr.py MODEL.onnx OUT_FOLDER

OUT_FOLDER/recognizer.safetensors  every constant of the graph (weights and the small integer
                                   constants of its shape arithmetic), named by the value it feeds
OUT_FOLDER/recognizer.json         {"format": "docsift-onnx-graph", "version": 1, "opset": 12,
                                    "input": name, "output": name, "characters": [...],
                                    "nodes": [{"op", "inputs", "outputs", "attributes"}...]}

Why not the ONNX file itself: docsift has no ONNX runtime (docs/ocr.md says why) and no protobuf
parser; the `onnx` package reads the file here, at setup time, and what docsift reads at run time is
JSON and safetensors, both parsed defensively by code it already fuzzes. Nothing is pickled.
Two rewrites make the graph lighter to run and change nothing it computes beyond rounding (the
parity test holds it to onnxruntime's classes, and its probabilities within 2e-4): a convolution's
bias, which the exporter writes as an Add after it, goes back into the convolution, and the five
nodes of each GELU become one `Gelu` node, docsift's own (fold_conv_bias, fold_gelu). Identity nodes
are dropped and a window's `auto_pad` written as explicit pads.
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


def explicit_pads(node, attributes):
    """A window's `auto_pad` as the explicit `pads` docsift reads. With strides of 1 the padding
    does not depend on the input's size: kernel − 1 in all per axis (dilated), SAME_UPPER putting
    the odd one at the end, SAME_LOWER at the start."""
    mode = attributes.pop("auto_pad")
    kernel = attributes["kernel_shape"]
    if mode in ("NOTSET", "VALID"):
        attributes.setdefault("pads", [0] * (2 * len(kernel)))
        return attributes
    if any(s != 1 for s in attributes.get("strides", [1] * len(kernel))):
        raise SystemExit(f"convert_ppocr: {node.op_type} {node.name}: auto_pad {mode} with a stride over 1 is not supported")
    dilations = attributes.get("dilations", [1] * len(kernel))
    total = [(k - 1) * d for k, d in zip(kernel, dilations)]
    small = [t // 2 for t in total]
    large = [t - h for t, h in zip(total, small)]
    attributes["pads"] = small + large if mode == "SAME_UPPER" else large + small
    return attributes


def readers(nodes):
    """{value: [index of each node that reads it]}."""
    out = {}
    for i, n in enumerate(nodes):
        for name in n["inputs"]:
            out.setdefault(name, []).append(i)
    return out


def one_value(tensors, name):
    """The one float a constant holds, or None."""
    array = tensors.get(name)
    return float(array.reshape(-1)[0]) if array is not None and array.size == 1 and array.dtype.kind == "f" else None


def fold_conv_bias(nodes, tensors):
    """A Conv without a bias whose output only an Add of a per-channel constant reads ([C] or
    [1, C, 1, 1], as Paddle's exporter writes a convolution's bias) becomes one Conv with that bias:
    one pass over the feature map fewer per convolution."""
    read = readers(nodes)
    gone = set()
    for i, n in enumerate(nodes):
        if n["op"] != "Conv" or len(n["inputs"]) != 2 or len(read.get(n["outputs"][0], [])) != 1:
            continue
        j = read[n["outputs"][0]][0]
        add = nodes[j]
        if add["op"] != "Add":
            continue
        other = [x for x in add["inputs"] if x != n["outputs"][0]]
        weight = tensors.get(n["inputs"][1])
        bias = tensors.get(other[0]) if len(other) == 1 else None
        if weight is None or bias is None or bias.dtype.kind != "f" or bias.size != weight.shape[0] or \
                any(d != 1 for k, d in enumerate(bias.shape) if bias.ndim == 4 and k != 1) or bias.ndim not in (1, 4):
            continue
        name = other[0] + ".bias"
        tensors[name] = bias.reshape(-1).astype(np.float32)
        n["inputs"].append(name)
        n["outputs"] = add["outputs"]
        gone.add(j)
    return [n for i, n in enumerate(nodes) if i not in gone]


def fold_gelu(nodes, tensors):
    """GELU as the exporter spells it, y = x · (erf(x / √2) + 1) · 0.5 (Div, Erf, Add, Mul, Mul,
    each value between read by the next alone), becomes docsift's one `Gelu` node (exact, erf
    form): one pass over the feature map for five."""
    read = readers(nodes)
    def only(name, op):
        r = read.get(name, [])
        return r[0] if len(r) == 1 and nodes[r[0]]["op"] == op else None
    gone = set()
    for i, n in enumerate(nodes):
        if n["op"] != "Div" or one_value(tensors, n["inputs"][1]) is None or \
                abs(one_value(tensors, n["inputs"][1]) - 2 ** 0.5) > 1e-6:
            continue
        x = n["inputs"][0]
        e = only(n["outputs"][0], "Erf")
        a = e is not None and only(nodes[e]["outputs"][0], "Add")
        if not a or one_value(tensors, [v for v in nodes[a]["inputs"] if v != nodes[e]["outputs"][0]][0]) != 1.0:
            continue
        m = only(nodes[a]["outputs"][0], "Mul")
        if m is None or sorted(nodes[m]["inputs"]) != sorted([x, nodes[a]["outputs"][0]]):
            continue
        h = only(nodes[m]["outputs"][0], "Mul")
        if h is None or one_value(tensors, [v for v in nodes[h]["inputs"] if v != nodes[m]["outputs"][0]][0]) != 0.5:
            continue
        n.update({"op": "Gelu", "inputs": [x], "outputs": nodes[h]["outputs"], "attributes": {}})
        gone.update({e, a, m, h})
    return [n for i, n in enumerate(nodes) if i not in gone]


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
    # An Identity's output is its input under another name (Paddle's exporter writes one per
    # parameter): readers of the one read the other, and the node goes.
    same = {}
    for n in graph.node:
        if n.op_type == "Identity":
            same[n.output[0]] = same.get(n.input[0], n.input[0])
    for n in graph.node:
        if n.op_type == "Constant":
            (a,) = n.attribute
            tensors[n.output[0]] = numpy_helper.to_array(a.t)
            continue
        if n.op_type == "Identity":
            continue
        attributes = {a.name: attribute(a) for a in n.attribute}
        if "auto_pad" in attributes:
            attributes = explicit_pads(n, attributes)
        nodes.append({"op": n.op_type, "inputs": [same.get(i, i) for i in n.input], "outputs": list(n.output),
                      "attributes": attributes})
    nodes = fold_conv_bias(nodes, tensors)
    nodes = fold_gelu(nodes, tensors)
    for name, array in tensors.items():
        if array.dtype not in DTYPES:
            tensors[name] = array.astype(np.float32 if array.dtype.kind == "f" else np.int64)
    characters = meta["character"].splitlines()
    (inp,) = [i.name for i in graph.input if i.name not in tensors]
    (out,) = [same.get(o.name, o.name) for o in graph.output]
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
