#!/usr/bin/env python3
"""Reference RoPE frequencies from transformers, for tests/parity/test_rope.cpp (the C++ rope_inv_freq).

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_rope_vectors.py
Writes tests/fixtures/rope/inv_freq.json: LlamaRotaryEmbedding's inv_freq (float32) for Llama 3.2
Vision's text config (head_dim 128, theta 500000, llama3 scaling: factor 8, low_freq_factor 1,
high_freq_factor 4, original_max_position_embeddings 8192) and for a small head_dim whose
frequencies fall in all three llama3 bands, plus the cos/sin tables at a few positions.
"""
import json
import os

import torch
import transformers
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "rope", "inv_freq.json")


def case(name, head_dim, theta, scaling, positions):
    heads = 4
    config = LlamaConfig(hidden_size=head_dim * heads, num_attention_heads=heads, head_dim=head_dim,
                         max_position_embeddings=131072,
                         rope_parameters=dict(rope_theta=theta, **scaling))
    rope = LlamaRotaryEmbedding(config)
    pos = torch.tensor([positions], dtype=torch.long)
    cos, sin = rope(torch.zeros(1, len(positions), head_dim), pos)
    return {"name": name, "head_dim": head_dim, "theta": theta, "scaling": scaling, "positions": positions,
            "inv_freq": rope.inv_freq.tolist(), "cos": cos[0].tolist(), "sin": sin[0].tolist()}


def main():
    llama3 = dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                  original_max_position_embeddings=8192)
    cases = [case("mllama-11b", 128, 500000.0, llama3, [0, 1, 7, 1000, 8191, 40000]),
             case("small-llama3", 16, 10000.0, dict(llama3, original_max_position_embeddings=64), [0, 3, 200]),
             case("default", 64, 1000000.0, dict(rope_type="default"), [0, 5, 9000])]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"transformers": transformers.__version__, "torch": torch.__version__, "cases": cases}, f)
    print(OUT)


if __name__ == "__main__":
    main()
