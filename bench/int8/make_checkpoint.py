#!/usr/bin/env python3
"""An InternVL3-shaped checkpoint with random weights (-hf layout, bfloat16), written tensor by
tensor without ever building the model in memory: names and shapes come from transformers on the
meta device, values from torch.randn (on the GPU when there is one).
    make_checkpoint.py OUT_DIR [--shape 1b|8b] [--config-only]
Shapes: bench/internvl_shapes.py (the real InternVL3-1B and -8B sizes). The 8B checkpoint is 15.9 GB in 4 GB shards. --config-only writes config.json and the
tokenizer alone: `docsift inspect` plans such a folder from its config. The tiny test tokenizer is
copied in (its ids fall inside the vocabulary; its prompts are longer than the real tokenizer's,
so a plan made with it errs on the safe side).
Weights: normal(0, 0.02) for matrices and embeddings, 1 for norm weights, 0 for biases, 0.1 for
InternViT's layer scales, as transformers initialises them.
"""
import argparse
import json
import os
import shutil
import sys

import torch
from safetensors.torch import save_file
from transformers import InternVLForConditionalGeneration

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from internvl_shapes import TEXT, TOKENIZER, internvl3_config  # noqa: E402

SHARD_BYTES = 4 << 30


def value(name, shape, device):
    if name.endswith("bias"):
        return torch.zeros(shape, dtype=torch.bfloat16, device=device)
    if "norm" in name and name.endswith("weight"):
        return torch.ones(shape, dtype=torch.bfloat16, device=device)
    if name.endswith("lambda_1") or name.endswith("lambda_2"):
        return torch.full(shape, 0.1, dtype=torch.bfloat16, device=device)
    return torch.randn(shape, device=device).mul_(0.02).to(torch.bfloat16)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--shape", choices=sorted(TEXT), default="8b")
    ap.add_argument("--config-only", action="store_true")
    args = ap.parse_args()
    config = internvl3_config(args.shape)
    os.makedirs(args.out, exist_ok=True)
    config.save_pretrained(args.out)
    shutil.copy(TOKENIZER, args.out)
    if args.config_only:
        print(f"{args.out}: config.json and tokenizer only ({args.shape})")
        return
    with torch.device("meta"):
        model = InternVLForConditionalGeneration(config)
    shapes = {name: tuple(t.shape) for name, t in model.state_dict().items()}
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    shards, current, size, total = [], {}, 0, 0
    for name, shape in shapes.items():
        t = value(name, shape, device).cpu()
        current[name] = t
        size += t.numel() * 2
        total += t.numel()
        if size >= SHARD_BYTES:
            shards.append(current)
            current, size = {}, 0
    if current:
        shards.append(current)
    weight_map = {}
    for i, shard in enumerate(shards):
        file = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        save_file(shard, os.path.join(args.out, file), metadata={"format": "pt"})
        weight_map.update({name: file for name in shard})
    with open(os.path.join(args.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total * 2}, "weight_map": weight_map}, f, indent=2)
    print(f"{args.out}: {total / 1e9:.2f} B parameters in {len(shards)} shards ({args.shape})")


if __name__ == "__main__":
    main()
