#!/usr/bin/env python3
"""Reference multimodal RoPE from transformers, for tests/parity/test_rope.cpp (the C++ model/mrope.h).

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_mrope_vectors.py
Writes tests/fixtures/rope/mrope.json:
  - the 3-D position ids of a prompt with one image (text, an image run of 2 x 3 merged patches, text)
    as Qwen3-VL's get_rope_index computes them for an image, and its rope delta;
  - cos/sin tables for 3-D position ids in both layouts of mrope_section: contiguous sections
    (Qwen2_5_VLRotaryEmbedding, mrope_section [16, 24, 24]) and interleaved
    (Qwen3VLTextRotaryEmbedding, [24, 20, 20]), head_dim 128, at the prompt's ids and at ids far
    apart on the three axes.
"""
import json
import os
import types

import torch
import transformers
from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLTextConfig
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLRotaryEmbedding
from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLModel, Qwen3VLTextRotaryEmbedding

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "rope", "mrope.json")
IMAGE_TOKEN = 7
MERGE = 2


def prompt_case():
    """Qwen3-VL's get_rope_index for one image: 2 text tokens, 2 x 3 merged patches, 2 text tokens."""
    rows, columns = 2, 3
    ids = [1, 2] + [IMAGE_TOKEN] * (rows * columns) + [5, 6]
    input_ids = torch.tensor([ids])
    types_ = (input_ids == IMAGE_TOKEN).int()
    owner = types.SimpleNamespace(config=types.SimpleNamespace(
        vision_config=types.SimpleNamespace(spatial_merge_size=MERGE)))
    owner.get_vision_position_ids = lambda *a, **k: Qwen3VLModel.get_vision_position_ids(owner, *a, **k)
    grid = torch.tensor([[1, rows * MERGE, columns * MERGE]])
    position_ids, delta = Qwen3VLModel.get_rope_index(owner, input_ids, types_, image_grid_thw=grid)
    return {"ids": ids, "image_token": IMAGE_TOKEN, "rows": rows, "columns": columns,
            "position_ids": position_ids[:, 0].tolist(), "delta": int(delta.item())}


def table_case(name, layout, rotary, theta, section, positions):
    head_dim = 128
    rope = dict(rope_type="default", rope_theta=theta, mrope_section=section)
    if layout == "interleaved":
        rope["mrope_interleaved"] = True
        config = Qwen3VLTextConfig(hidden_size=head_dim * 4, num_attention_heads=4, num_key_value_heads=1,
                                   head_dim=head_dim, rope_parameters=rope)
    else:
        config = Qwen2_5_VLTextConfig(hidden_size=head_dim * 4, num_attention_heads=4, num_key_value_heads=1,
                                      rope_parameters=rope)
    module = rotary(config)
    ids = torch.tensor(positions, dtype=torch.long).unsqueeze(1)  # [3, 1, T]
    cos, sin = module(torch.zeros(1, ids.size(-1), head_dim), ids)
    return {"name": name, "layout": layout, "head_dim": head_dim, "theta": theta, "mrope_section": section,
            "positions": positions, "cos": cos[0].tolist(), "sin": sin[0].tolist()}


def main():
    prompt = prompt_case()
    far = [[0, 3, 700, 9000], [0, 11, 20, 40000], [0, 17, 35000, 2]]  # time, row, column ids apart
    cases = [table_case("qwen2.5-vl contiguous", "contiguous", Qwen2_5_VLRotaryEmbedding, 1000000.0,
                        [16, 24, 24], prompt["position_ids"]),
             table_case("qwen2.5-vl contiguous, far ids", "contiguous", Qwen2_5_VLRotaryEmbedding, 1000000.0,
                        [16, 24, 24], far),
             table_case("qwen3-vl interleaved", "interleaved", Qwen3VLTextRotaryEmbedding, 5000000.0,
                        [24, 20, 20], prompt["position_ids"]),
             table_case("qwen3-vl interleaved, far ids", "interleaved", Qwen3VLTextRotaryEmbedding, 5000000.0,
                        [24, 20, 20], far)]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"transformers": transformers.__version__, "torch": torch.__version__, "prompt": prompt,
                   "cases": cases}, f)
    print(OUT)


if __name__ == "__main__":
    main()
