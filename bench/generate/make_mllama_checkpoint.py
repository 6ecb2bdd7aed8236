#!/usr/bin/env python3
"""A Llama 3.2 11B Vision-shaped checkpoint with random weights and few layers, for the Mllama generation
benchmark (bench/generate/run_mllama.sh). Made locally, never committed (about 8.3 GB of float32).
    make_mllama_checkpoint.py OUT_DIR
Every width is the real 11B's (docs/models.md, "Model sizes"); only the layer counts are cut:
  text    hidden 4096, 32 heads / 8 KV heads (head_dim 128), intermediate 14336, vocabulary 128256 (+8
          embedding rows), 4 layers with cross-attention at layer 3, llama3 RoPE (theta 500000, factor 8,
          low 1, high 4, original 8192), RMSNorm eps 1e-5, bos 128000, eos [128001, 128008, 128009], pad 128004
  vision  hidden 1280, 16 heads, intermediate 5120, 560 px tiles of 14 px patches (1601 tokens), at most 4
          tiles, 2 local layers + 1 gated global layer, intermediate layers [0, 1], output 1280·3
The parameter count (2.07 B) is dominated by the two 128264/128256 × 4096 tables (1.05 B) and the four
4096-wide decoder layers (0.22 B each). Weights are float32, drawn at a realistic scale as
scripts/make_mllama_fixtures.py does (gates 0.3-1.0, norms about 1, matrices 1/sqrt(fan_in), equal-norm
embedding and lm_head rows), and written by transformers 5.23's save_pretrained, which writes the Hub's
legacy names (vision_model.*, language_model.model.*, language_model.lm_head.weight,
multi_modal_projector.*); checked below on a small copy of the architecture. The model is built on the meta
device, materialised without transformers' init and filled in place: peak RSS 8.4 GiB, about a minute.
The tokenizer is the Llama 3 one of /work/shared/tokenizers/llama3 (or $LLAMA3_TOKENIZER) with <|image|>
added as id 128256 and 128004 / 128008 / 128010 renamed to their Llama 3.1+ names (<|finetune_right_pad_id|>,
<|eom_id|>, <|python_tag|>), so the chat tokens and stop ids are the real model's.
"""
import json
import os
import sys
import tempfile
import zlib

import torch
from safetensors import safe_open
from transformers import MllamaConfig, MllamaForConditionalGeneration

# Module-tree names -> the Hub's legacy names: the fixture script's mapping, one copy for both.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from make_mllama_fixtures import hub_name  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENIZER = os.environ.get("LLAMA3_TOKENIZER", os.path.join(os.path.dirname(ROOT), "shared", "tokenizers", "llama3",
                                                               "tokenizer.json"))
SEED = 0
IMAGE_TOKEN = 128256
BOS, PAD, STOP_IDS = 128000, 128004, [128001, 128008, 128009]
RENAMED = {128004: "<|finetune_right_pad_id|>", 128008: "<|eom_id|>", 128010: "<|python_tag|>"}
ROPE = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
        "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
VISION = dict(image_size=560, patch_size=14, hidden_size=1280, attention_heads=16, intermediate_size=5120,
              num_hidden_layers=2, num_global_layers=1, intermediate_layers_indices=[0, 1], vision_output_dim=1280 * 3,
              max_num_tiles=4, norm_eps=1e-5, hidden_act="gelu", num_channels=3,
              supported_aspect_ratios=[[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])
TEXT = dict(vocab_size=128256, hidden_size=4096, num_attention_heads=32, num_key_value_heads=8, intermediate_size=14336,
            num_hidden_layers=4, cross_attention_layers=[3], rms_norm_eps=1e-5, rope_parameters=ROPE,
            max_position_embeddings=131072, tie_word_embeddings=False, hidden_act="silu",
            bos_token_id=BOS, eos_token_id=STOP_IDS, pad_token_id=PAD)

GATES = ("gate", "gate_attn", "gate_ffn", "cross_attn_attn_gate", "cross_attn_mlp_gate")
EMBEDDING_TABLES = ("class_embedding", "gated_positional_embedding.embedding", "tile_embedding.weight",
                    "pre_tile_positional_embedding.embedding.weight", "post_tile_positional_embedding.embedding.weight")
ROWS_NORMED = ("lm_head.weight", "model.language_model.embed_tokens.weight")
CHUNK_ROWS = 8192  # the two 2.1 GB tables are drawn in blocks of 8192 rows, never a second copy


def make_config(vision=VISION, text=TEXT):
    return MllamaConfig(vision_config=dict(vision), text_config=dict(text), image_token_index=IMAGE_TOKEN)


def fill(name, p, hidden_v):
    """scripts/make_mllama_fixtures.py's randomize() for one parameter, in place, from a generator of its own
    (seeded by the name, so the values do not depend on the order or on the other tensors)."""
    g = torch.Generator().manual_seed(SEED * 1_000_003 + zlib.crc32(name.encode()))
    last = name.rsplit(".", 1)[-1]
    with torch.no_grad():
        if name in ROWS_NORMED:
            # Rows of equal norm: with raw Gaussian rows a few "hub" tokens win every argmax.
            for r in range(0, p.shape[0], CHUNK_ROWS):
                block = p[r:r + CHUNK_ROWS]
                block.normal_(generator=g)
                block.div_(block.norm(dim=1, keepdim=True).clamp_min(1e-12)).mul_(4.0)
        elif last in GATES:
            p.uniform_(0.3, 1.0, generator=g)  # tanh(gate) well inside (0, 1): every gated branch matters
        elif name.endswith(EMBEDDING_TABLES):
            p.normal_(0.0, hidden_v ** -0.5, generator=g)
        elif name.endswith("bias"):
            p.normal_(0.0, 0.05, generator=g)
        elif "norm" in name:  # LayerNorm / RMSNorm weights, q_norm / k_norm included
            p.normal_(1.0, 0.1, generator=g)
        elif p.dim() >= 2:
            p.normal_(0.0, p[0].numel() ** -0.5, generator=g)
        else:
            p.normal_(0.0, 0.02, generator=g)


def build(config):
    """The model with every parameter drawn by fill(), without transformers' own (slower) init."""
    with torch.device("meta"):
        model = MllamaForConditionalGeneration(config)
    model = model.to_empty(device="cpu").eval()
    params = dict(model.named_parameters())
    missing = set(model.state_dict()) - set(params)
    assert not missing, f"state_dict entries that are not parameters (would be saved unfilled): {sorted(missing)[:5]}"
    for name, p in params.items():
        fill(name, p, config.vision_config.hidden_size)
    return model


def written_names(folder):
    names = {}
    for fn in sorted(os.listdir(folder)):
        if fn.endswith(".safetensors"):
            with safe_open(os.path.join(folder, fn), "pt") as f:
                for k in f.keys():
                    names[k] = f.get_slice(k).get_dtype()
    return names


def check_small_save():
    """save_pretrained of this architecture at small widths writes exactly the legacy names."""
    vision = dict(VISION, image_size=28, hidden_size=32, attention_heads=2, intermediate_size=64, vision_output_dim=96)
    text = dict(TEXT, vocab_size=300, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
                bos_token_id=1, eos_token_id=[2], pad_token_id=3)
    small = build(make_config(vision, text))
    with tempfile.TemporaryDirectory() as d:
        small.save_pretrained(d)
        got = written_names(d)
    want = {hub_name(k) for k in small.state_dict()}
    assert set(got) == want, f"save_pretrained's names changed: {sorted(set(got) ^ want)[:6]}"


def write_tokenizer(out):
    with open(TOKENIZER, encoding="utf-8") as f:
        tok = json.load(f)
    added = {a["id"]: a for a in tok["added_tokens"]}
    for i, name in RENAMED.items():
        assert added[i]["content"].startswith("<|reserved_special_token_") or added[i]["content"] == name, added[i]
        assert name not in tok["model"]["vocab"]
        added[i]["content"] = name
    if IMAGE_TOKEN in added:
        assert added[IMAGE_TOKEN]["content"] == "<|image|>", added[IMAGE_TOKEN]
    else:
        assert max(added) == IMAGE_TOKEN - 1, f"the tokenizer's last id is {max(added)}, not {IMAGE_TOKEN - 1}"
        tok["added_tokens"].append({"id": IMAGE_TOKEN, "content": "<|image|>", "single_word": False, "lstrip": False,
                                    "rstrip": False, "normalized": False, "special": True})
    path = os.path.join(out, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    from tokenizers import Tokenizer
    t = Tokenizer.from_file(path)
    for name, i in (("<|image|>", IMAGE_TOKEN), ("<|begin_of_text|>", BOS), ("<|end_of_text|>", 128001),
                    ("<|finetune_right_pad_id|>", PAD), ("<|start_header_id|>", 128006), ("<|end_header_id|>", 128007),
                    ("<|eom_id|>", 128008), ("<|eot_id|>", 128009), ("<|python_tag|>", 128010)):
        assert t.token_to_id(name) == i, (name, t.token_to_id(name), i)
    ids = t.encode("<|begin_of_text|><|image|>Total?", add_special_tokens=False).ids
    assert ids[:2] == [BOS, IMAGE_TOKEN], ids


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    check_small_save()
    config = make_config()
    model = build(config)
    params = sum(p.numel() for p in model.parameters())
    assert model.lm_head.weight.shape == (128256, 4096)
    assert model.model.language_model.embed_tokens.weight.shape == (128264, 4096)
    # 5 GB shards, as the Hub's 11B checkpoint (the 2.1 GB tables each fit in one).
    model.save_pretrained(out, max_shard_size="5GB")
    written = written_names(out)
    assert set(written) == {hub_name(k) for k in model.state_dict()} and set(written.values()) == {"F32"}
    write_tokenizer(out)
    with open(os.path.join(out, "preprocessor_config.json"), "w") as f:
        json.dump({"do_convert_rgb": True, "do_normalize": True, "do_pad": True, "do_rescale": True, "do_resize": True,
                   "image_mean": [0.48145466, 0.4578275, 0.40821073], "image_processor_type": "MllamaImageProcessor",
                   "image_std": [0.26862954, 0.26130258, 0.27577711], "max_image_tiles": 4,
                   "processor_class": "MllamaProcessor", "resample": 2, "rescale_factor": 0.00392156862745098,
                   "size": {"height": 560, "width": 560}}, f, indent=2)
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.endswith(".safetensors"))
    print(f"{out}: {params / 1e9:.3f} B parameters ({params:,}), {size / 1e9:.2f} GB of float32 safetensors "
          f"in {sum(1 for f in os.listdir(out) if f.endswith('.safetensors'))} shards")


if __name__ == "__main__":
    main()
