#!/usr/bin/env python3
"""An InternVL3-1B-shaped checkpoint with random weights (-hf layout, bfloat16), for the generation
benchmark. Made locally, never committed (about 1.9 GB).
    make_checkpoint.py OUT_DIR [KV_HEADS | internvl35]
Shapes from docs/models.md, "Model sizes" (InternVL3-1B): InternViT-300M (1024 wide, 24 layers) and a
Qwen2.5-0.5B-sized decoder (896 wide, 24 layers, 14 heads, 2 KV heads, vocabulary 151674). The tiny
test tokenizer is copied in; its ids all fall inside the vocabulary. KV_HEADS (default 2, the real
model's) can be raised to 14 to make the KV cache 7x larger, for the GPU memory benchmark. internvl35 makes
an InternVL3.5-1B-shaped one instead (Qwen3-0.6B's decoder; bench/internvl_shapes.py).
"""
import os
import shutil
import sys

import torch
from transformers import InternVLForConditionalGeneration

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from internvl_shapes import TOKENIZER, internvl3_config, internvl35_config  # noqa: E402


def main():
    out = sys.argv[1]
    variant = sys.argv[2] if len(sys.argv) > 2 else "2"
    config = internvl35_config("1b") if variant == "internvl35" else internvl3_config("1b", int(variant))
    torch.manual_seed(0)
    model = InternVLForConditionalGeneration(config).to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    shutil.copy(TOKENIZER, out)
    params = sum(p.numel() for p in model.parameters())
    print(f"{out}: {params / 1e6:.1f} M parameters")


if __name__ == "__main__":
    main()
