#!/usr/bin/env python3
"""An InternVL3-1B-shaped checkpoint with random weights (-hf layout, bfloat16), for the generation
benchmark. Made locally, never committed (about 1.9 GB).
    make_checkpoint.py OUT_DIR [KV_HEADS]
Shapes from model-porting-notes.md §1.2 (InternVL3-1B): InternViT-300M (1024 wide, 24 layers) and a
Qwen2.5-0.5B-sized decoder (896 wide, 24 layers, 14 heads, 2 KV heads, vocabulary 151674). The tiny
test tokenizer is copied in; its ids all fall inside the vocabulary. KV_HEADS (default 2, the real
model's) can be raised to 14 to make the KV cache 7x larger, for the GPU memory benchmark.
"""
import os
import shutil
import sys

import torch
from tokenizers import Tokenizer
from transformers import InternVLConfig, InternVLForConditionalGeneration

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    out = sys.argv[1]
    kv_heads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    tok_path = os.path.join(ROOT, "tests", "fixtures", "tokenizers", "tiny-qwen", "tokenizer.json")
    tok = Tokenizer.from_file(tok_path)
    config = InternVLConfig(
        vision_config=dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                           attention_bias=True, use_qk_norm=False, norm_type="layer_norm", layer_norm_eps=1e-6,
                           image_size=[448, 448], patch_size=[14, 14], hidden_act="gelu", use_mean_pooling=True),
        text_config=dict(model_type="qwen2", hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=kv_heads, vocab_size=151674, rms_norm_eps=1e-6,
                         max_position_embeddings=32768, hidden_act="silu", tie_word_embeddings=False,
                         rope_parameters={"rope_type": "dynamic", "factor": 2.0, "rope_theta": 1000000.0}),
        image_token_id=tok.token_to_id("<IMG_CONTEXT>"), downsample_ratio=0.5, projector_hidden_act="gelu",
        vision_feature_layer=-1, vision_feature_select_strategy="default", tie_word_embeddings=False)
    torch.manual_seed(0)
    model = InternVLForConditionalGeneration(config).to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    shutil.copy(tok_path, out)
    params = sum(p.numel() for p in model.parameters())
    print(f"{out}: {params / 1e6:.1f} M parameters")


if __name__ == "__main__":
    main()
