#!/usr/bin/env python3
"""Checkpoints with a real model's shapes and random weights, for the generation benchmarks (run.sh) and the
others that need one (bench/decoding, bench/memory_gpu, bench/run). Made locally, never committed.
    make_checkpoint.py OUT_DIR [KV_HEADS | FAMILY] [--family FAMILY] [qwen25vl options]
FAMILY is a key of FAMILIES below (default internvl3); a number in its place is internvl3's KV_HEADS.

internvl3   InternVL3-1B-shaped (-hf layout, bfloat16, about 1.9 GB). Shapes from docs/models.md, "Model
            sizes": InternViT-300M (1024 wide, 24 layers) and a Qwen2.5-0.5B-sized decoder (896 wide, 24 layers,
            14 heads, 2 KV heads, vocabulary 151674). The tiny test tokenizer is copied in; its ids all fall
            inside the vocabulary. KV_HEADS (default 2, the real model's) can be raised to 14 to make the KV
            cache 7x larger, for the GPU memory benchmark.
internvl35  InternVL3.5-1B-shaped instead (Qwen3-0.6B's decoder; bench/internvl_shapes.py).
mllama      Llama 3.2 11B Vision's widths with few layers (float32, about 8.3 GB): every width is the real
            11B's, only the layer counts are cut:
              text    hidden 4096, 32 heads / 8 KV heads (head_dim 128), intermediate 14336, vocabulary 128256
                      (+8 embedding rows), 4 layers with cross-attention at layer 3, llama3 RoPE (theta 500000,
                      factor 8, low 1, high 4, original 8192), RMSNorm eps 1e-5, bos 128000, eos [128001, 128008,
                      128009], pad 128004
              vision  hidden 1280, 16 heads, intermediate 5120, 560 px tiles of 14 px patches (1601 tokens), at
                      most 4 tiles, 2 local layers + 1 gated global layer, intermediate layers [0, 1], output 1280·3
            The parameter count (2.07 B) is dominated by the two 128264/128256 × 4096 tables (1.05 B) and the
            four 4096-wide decoder layers (0.22 B each). Weights are float32, drawn at a realistic scale as the
            mllama fixtures' (scripts/fixturegen/mllama.py: gates 0.3-1.0, norms about 1, matrices
            1/sqrt(fan_in), equal-norm embedding and lm_head rows), and written by transformers 5.23's
            save_pretrained, which writes the Hub's legacy names (vision_model.*, language_model.model.*,
            language_model.lm_head.weight, multi_modal_projector.*); checked on a small copy of the
            architecture. The model is built on the meta device, materialised without transformers' init and
            filled in place: peak RSS 8.4 GiB, about a minute. The tokenizer is the Llama 3 one of
            /work/shared/tokenizers/llama3 (or $LLAMA3_TOKENIZER) with <|image|> added as id 128256 and
            128004 / 128008 / 128010 renamed to their Llama 3.1+ names (<|finetune_right_pad_id|>, <|eom_id|>,
            <|python_tag|>), so the chat tokens and stop ids are the real model's.
qwen25vl    Qwen2.5-VL with the real shapes (--shape 3b|7b; fewer text / vision layers with --layers /
            --vision-depth) in the hub layout of the release (scripts/fixturegen/qwen25vl.py's config and JSON
            files), --dtype bfloat16|float32, shards of about --shard-mb MB; the Qwen2 tokenizer of
            /work/shared/tokenizers/qwen2 is copied in when there.
qwen3vl     Qwen3-VL whose decoder is exactly internvl35's (Qwen3-0.6B's: 1024 wide, 28 layers, 16 heads of 128,
            8 KV heads, intermediate 3072, vocabulary 151936, tied embeddings; bench/internvl_shapes.py), so that
            its decode speed compares with InternVL3.5's at the same shape, with interleaved multimodal RoPE
            (mrope_section [24, 20, 20], theta 5e6), and Qwen3-VL-2B's vision tower (24 blocks, 1024 wide, 16
            heads, intermediate 4096, 16 px patches merged 2x2, a 48x48 position table, DeepStack on blocks
            [5, 11, 17], gelu_pytorch_tanh) projecting to 1024. bfloat16 like internvl35's, in the release's
            layout (scripts/fixturegen/qwen3vl.py's config.json with the nested text_config, rope_theta +
            rope_scaling; preprocessor, video preprocessor, generation config, chat template without a default
            system message; one model.safetensors under model.visual.* and model.language_model.*, no lm_head
            as tied). The model is built on the meta device, materialised in float32 without transformers'
            init and filled in place by mllama's rule (mllama_fill), with the decoder's MLP output x6 as in
            the Qwen fixtures (else greedy decoding repeats one token; with it the bench's 32 tokens are all
            different); 0.986 B parameters, 1.97 GB, peak RSS about 6 GB, half a minute. The Qwen2 tokenizer
            of /work/shared/tokenizers/qwen2 (its vision tokens at the release's ids) is copied in.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import zlib

import numpy as np
import torch
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/: internvl_shapes
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))  # scripts/: fixturegen
from fixturegen import common  # noqa: E402
from fixturegen.common import read_names  # noqa: E402


# ----------------------------------------------------------------------------------------------------------
# InternVL3 / InternVL3.5

def internvl(out, family, kv_heads=2):
    from transformers import InternVLForConditionalGeneration
    from internvl_shapes import TOKENIZER, internvl3_config, internvl35_config
    config = internvl35_config("1b") if family == "internvl35" else internvl3_config("1b", kv_heads)
    torch.manual_seed(0)
    model = InternVLForConditionalGeneration(config).to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    shutil.copy(TOKENIZER, out)
    params = sum(p.numel() for p in model.parameters())
    print(f"{out}: {params / 1e6:.1f} M parameters")


# ----------------------------------------------------------------------------------------------------------
# Llama 3.2 Vision

LLAMA3_TOKENIZER = os.environ.get("LLAMA3_TOKENIZER", os.path.join(common.SHARED, "tokenizers", "llama3",
                                                                   "tokenizer.json"))
MLLAMA_SEED = 0
MLLAMA_IMAGE_TOKEN = 128256
MLLAMA_BOS, MLLAMA_PAD, MLLAMA_STOP_IDS = 128000, 128004, [128001, 128008, 128009]
MLLAMA_RENAMED = {128004: "<|finetune_right_pad_id|>", 128008: "<|eom_id|>", 128010: "<|python_tag|>"}
MLLAMA_ROPE = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
MLLAMA_VISION = dict(image_size=560, patch_size=14, hidden_size=1280, attention_heads=16, intermediate_size=5120,
                     num_hidden_layers=2, num_global_layers=1, intermediate_layers_indices=[0, 1],
                     vision_output_dim=1280 * 3, max_num_tiles=4, norm_eps=1e-5, hidden_act="gelu", num_channels=3,
                     supported_aspect_ratios=[[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])
MLLAMA_TEXT = dict(vocab_size=128256, hidden_size=4096, num_attention_heads=32, num_key_value_heads=8,
                   intermediate_size=14336, num_hidden_layers=4, cross_attention_layers=[3], rms_norm_eps=1e-5,
                   rope_parameters=MLLAMA_ROPE, max_position_embeddings=131072, tie_word_embeddings=False,
                   hidden_act="silu", bos_token_id=MLLAMA_BOS, eos_token_id=MLLAMA_STOP_IDS, pad_token_id=MLLAMA_PAD)
ROWS_NORMED = ("lm_head.weight", "model.language_model.embed_tokens.weight")
CHUNK_ROWS = 8192  # the two 2.1 GB tables are drawn in blocks of 8192 rows, never a second copy


def mllama_config(vision=MLLAMA_VISION, text=MLLAMA_TEXT):
    from transformers import MllamaConfig
    return MllamaConfig(vision_config=dict(vision), text_config=dict(text), image_token_index=MLLAMA_IMAGE_TOKEN)


def mllama_fill(name, p, hidden_v):
    """The mllama fixtures' randomize() for one parameter, in place, from a generator of its own (seeded by the
    name, so the values do not depend on the order or on the other tensors)."""
    from fixturegen.mllama import EMBEDDING_TABLES, GATES
    g = torch.Generator().manual_seed(MLLAMA_SEED * 1_000_003 + zlib.crc32(name.encode()))
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


def mllama_build(config):
    """The model with every parameter drawn by mllama_fill(), without transformers' own (slower) init."""
    from transformers import MllamaForConditionalGeneration
    with torch.device("meta"):
        model = MllamaForConditionalGeneration(config)
    model = model.to_empty(device="cpu").eval()
    params = dict(model.named_parameters())
    missing = set(model.state_dict()) - set(params)
    assert not missing, f"state_dict entries that are not parameters (would be saved unfilled): {sorted(missing)[:5]}"
    for name, p in params.items():
        mllama_fill(name, p, config.vision_config.hidden_size)
    return model


def mllama_check_small_save():
    """save_pretrained of this architecture at small widths writes exactly the legacy names."""
    from fixturegen.mllama import hub_name
    vision = dict(MLLAMA_VISION, image_size=28, hidden_size=32, attention_heads=2, intermediate_size=64,
                  vision_output_dim=96)
    text = dict(MLLAMA_TEXT, vocab_size=300, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
                intermediate_size=128, bos_token_id=1, eos_token_id=[2], pad_token_id=3)
    small = mllama_build(mllama_config(vision, text))
    with tempfile.TemporaryDirectory() as d:
        small.save_pretrained(d)
        got = read_names(d)
    want = {hub_name(k) for k in small.state_dict()}
    assert set(got) == want, f"save_pretrained's names changed: {sorted(set(got) ^ want)[:6]}"


def mllama_write_tokenizer(out):
    from tokenizers import Tokenizer
    with open(LLAMA3_TOKENIZER, encoding="utf-8") as f:
        tok = json.load(f)
    added = {a["id"]: a for a in tok["added_tokens"]}
    for i, name in MLLAMA_RENAMED.items():
        assert added[i]["content"].startswith("<|reserved_special_token_") or added[i]["content"] == name, added[i]
        assert name not in tok["model"]["vocab"]
        added[i]["content"] = name
    image = MLLAMA_IMAGE_TOKEN
    if image in added:
        assert added[image]["content"] == "<|image|>", added[image]
    else:
        assert max(added) == image - 1, f"the tokenizer's last id is {max(added)}, not {image - 1}"
        tok["added_tokens"].append({"id": image, "content": "<|image|>", "single_word": False, "lstrip": False,
                                    "rstrip": False, "normalized": False, "special": True})
    path = os.path.join(out, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    t = Tokenizer.from_file(path)
    for name, i in (("<|image|>", image), ("<|begin_of_text|>", MLLAMA_BOS), ("<|end_of_text|>", 128001),
                    ("<|finetune_right_pad_id|>", MLLAMA_PAD), ("<|start_header_id|>", 128006),
                    ("<|end_header_id|>", 128007), ("<|eom_id|>", 128008), ("<|eot_id|>", 128009),
                    ("<|python_tag|>", 128010)):
        assert t.token_to_id(name) == i, (name, t.token_to_id(name), i)
    ids = t.encode("<|begin_of_text|><|image|>Total?", add_special_tokens=False).ids
    assert ids[:2] == [MLLAMA_BOS, image], ids


def mllama(out):
    from fixturegen.mllama import hub_name, preprocessor_config
    os.makedirs(out, exist_ok=True)
    mllama_check_small_save()
    model = mllama_build(mllama_config())
    params = sum(p.numel() for p in model.parameters())
    assert model.lm_head.weight.shape == (128256, 4096)
    assert model.model.language_model.embed_tokens.weight.shape == (128264, 4096)
    # 5 GB shards, as the Hub's 11B checkpoint (the 2.1 GB tables each fit in one).
    model.save_pretrained(out, max_shard_size="5GB")
    written = {k: dtype for k, (_, dtype) in read_names(out).items()}
    assert set(written) == {hub_name(k) for k in model.state_dict()} and set(written.values()) == {"F32"}
    mllama_write_tokenizer(out)
    common.write_json(preprocessor_config(tile=560), os.path.join(out, "preprocessor_config.json"))
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.endswith(".safetensors"))
    print(f"{out}: {params / 1e9:.3f} B parameters ({params:,}), {size / 1e9:.2f} GB of float32 safetensors "
          f"in {sum(1 for f in os.listdir(out) if f.endswith('.safetensors'))} shards")


# ----------------------------------------------------------------------------------------------------------
# Qwen2.5-VL

QWEN_TOKENIZER = os.path.join(common.SHARED, "tokenizers", "qwen2", "tokenizer.json")


def qwen25vl(out_dir, shape, layers, vision_depth, dtype, shard_mb):
    """Random weights with the real shapes (fewer layers if asked), in the hub layout; one tensor at a time, so
    memory stays at the largest tensor (the embedding table) rather than the model."""
    from tokenizers import Tokenizer
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
    from fixturegen.qwen25vl import (CHAT_TEMPLATE, dump, hub_name, real_config, real_preprocessor_config,
                                     release_generation_config, tokenizer_config)
    dtype_t = {"bfloat16": torch.bfloat16, "float32": torch.float32}[dtype]
    config_json = real_config(shape, layers, vision_depth, dtype)
    os.makedirs(out_dir, exist_ok=True)
    for fn in os.listdir(out_dir):
        if fn.endswith(".safetensors") or fn.endswith(".json"):
            os.remove(os.path.join(out_dir, fn))
    dump(config_json, os.path.join(out_dir, "config.json"))
    config = Qwen2_5_VLConfig.from_pretrained(out_dir)
    with torch.device("meta"):
        skeleton = Qwen2_5_VLForConditionalGeneration(config)
    shapes = {hub_name(k): tuple(v.shape) for k, v in skeleton.state_dict().items()
              if not (config.tie_word_embeddings and k == "lm_head.weight")}
    del skeleton
    order = sorted(shapes, key=lambda n: (n.startswith("visual."), n))
    g = torch.Generator().manual_seed(0)
    item = torch.empty((), dtype=dtype_t).element_size()
    total = sum(int(np.prod(s)) * item for s in shapes.values())
    shards = max(1, -(-total // (shard_mb * 1000 * 1000)))
    groups, acc, part = [], 0, 0
    for n in order:
        size = int(np.prod(shapes[n])) * item
        if acc and acc + size > total / shards * (part + 1) and part < shards - 1:
            part += 1
        groups.append(part)
        acc += size
    weight_map = {}
    for s in range(shards):
        fn = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        tensors = {}
        for n, p in zip(order, groups):
            if p != s:
                continue
            shp = shapes[n]
            if n.endswith("bias"):
                t = torch.randn(shp, generator=g) * 0.02
            elif "norm" in n or "ln_q" in n:
                t = torch.ones(shp)
            else:
                t = torch.randn(shp, generator=g) / (int(np.prod(shp[1:])) ** 0.5 if len(shp) > 1 else 50.0)
            tensors[n] = t.to(dtype_t)
        save_file(tensors, os.path.join(out_dir, fn), metadata={"format": "pt"})
        weight_map.update({n: fn for n in tensors})
        print(f"  {fn}: {len(tensors)} tensors")
    dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))},
         os.path.join(out_dir, "model.safetensors.index.json"))
    dump(release_generation_config(151643, [151645, 151643], 151643), os.path.join(out_dir, "generation_config.json"))
    dump(real_preprocessor_config(), os.path.join(out_dir, "preprocessor_config.json"))
    dump({"chat_template": CHAT_TEMPLATE}, os.path.join(out_dir, "chat_template.json"))
    if os.path.exists(QWEN_TOKENIZER):  # so that AutoProcessor can read the folder too
        shutil.copyfile(QWEN_TOKENIZER, os.path.join(out_dir, "tokenizer.json"))
        dump(tokenizer_config(Tokenizer.from_file(QWEN_TOKENIZER)), os.path.join(out_dir, "tokenizer_config.json"))
    print(f"bench checkpoint: {shape}, {config_json['num_hidden_layers']} text layers, vision depth "
          f"{config_json['vision_config']['depth']}, {dtype}, {total / 1e9:.2f} GB in {shards} shard(s) -> {out_dir}")


# ----------------------------------------------------------------------------------------------------------
# Qwen3-VL

QWEN3VL_VISION = dict(depth=24, hidden_size=1024, intermediate_size=4096, num_heads=16, num_position_embeddings=2304,
                      deepstack_visual_indexes=[5, 11, 17])  # Qwen3-VL-2B's tower
QWEN3VL_MROPE = [24, 20, 20]  # the releases' sections for head_dim 128
QWEN3VL_MAX_POSITIONS = 262144
QWEN3VL_DOWN_PROJ_SCALE = 6.0  # scripts/fixturegen/qwen25vl.py's randomize()


def qwen3vl_text():
    """internvl35's decoder (internvl_shapes.TEXT35["1b"]) as fixturegen.qwen3vl.hub_config's text keys, with the
    InternVL3.5 config it must equal."""
    from internvl_shapes import TEXT35, internvl35_config
    text = dict(TEXT35["1b"], max_position_embeddings=QWEN3VL_MAX_POSITIONS, mrope_section=QWEN3VL_MROPE)
    tie = text.pop("tie_word_embeddings")
    return text, tie, internvl35_config("1b").text_config


def qwen3vl(out):
    from tokenizers import Tokenizer
    from transformers import Qwen3VLConfig, Qwen3VLForConditionalGeneration
    from fixturegen.qwen25vl import dump
    from fixturegen.qwen3vl import (CHAT_TEMPLATE, REAL_IDS, hub_config, preprocessor_config, release_generation_config,
                                    tokenizer_config, video_preprocessor_config)
    text, tie, internvl35_text = qwen3vl_text()
    vision = dict(QWEN3VL_VISION, out_hidden_size=text["hidden_size"])
    os.makedirs(out, exist_ok=True)
    for fn in os.listdir(out):
        if fn.endswith(".safetensors") or fn.endswith(".json"):
            os.remove(os.path.join(out, fn))
    dump(hub_config(text, vision, internvl35_text.vocab_size, tie, REAL_IDS), os.path.join(out, "config.json"))
    config = Qwen3VLConfig.from_pretrained(out)  # what transformers reads from the release's layout
    t, v = config.text_config, config.vision_config
    same = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
            "intermediate_size", "vocab_size", "rms_norm_eps", "hidden_act", "attention_bias")
    assert {k: getattr(t, k) for k in same} == {k: getattr(internvl35_text, k) for k in same}, "not internvl35's"
    assert config.tie_word_embeddings == internvl35_text.tie_word_embeddings == tie
    assert t.rope_parameters["mrope_section"] == QWEN3VL_MROPE and t.rope_parameters["mrope_interleaved"]
    assert list(v.deepstack_visual_indexes) == QWEN3VL_VISION["deepstack_visual_indexes"]
    assert v.out_hidden_size == t.hidden_size

    with torch.device("meta"):
        model = Qwen3VLForConditionalGeneration(config)
    # float32 to draw in (the config's text dtype, bfloat16, would make the meta decoder bfloat16), then tied again:
    # to_empty gives the tied table and lm_head a tensor each.
    model = model.to_empty(device="cpu").float().eval()
    model.tie_weights()
    embed = model.model.language_model.embed_tokens.weight
    assert (model.lm_head.weight.data_ptr() == embed.data_ptr()) == tie
    params = dict(model.named_parameters())  # a tied table once, under its embedding name
    state = model.state_dict()
    skipped = set(state) - set(params)
    assert skipped == ({"lm_head.weight"} if tie else set()), f"state_dict entries left unfilled: {sorted(skipped)[:5]}"
    for name, p in params.items():
        mllama_fill(name, p, v.hidden_size)
    with torch.no_grad():  # a strong decoder MLP, as in the Qwen fixtures: else greedy decoding repeats one token
        for layer in model.model.language_model.layers:
            layer.mlp.down_proj.weight.mul_(QWEN3VL_DOWN_PROJ_SCALE)
    tensors = {k: state[k].to(torch.bfloat16).contiguous() for k in sorted(params)}
    assert all(k.startswith(("model.visual.", "model.language_model.", "lm_head.")) for k in tensors)
    count = sum(p.numel() for p in params.values())
    del model, params, state, embed
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    del tensors

    tok = Tokenizer.from_file(QWEN_TOKENIZER)
    names = ("<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>")
    assert [tok.token_to_id(n) for n in names] == REAL_IDS["ids"], "not the release's vision token ids"
    assert [tok.token_to_id(n) for n in ("<|endoftext|>", "<|im_end|>")] == [REAL_IDS["bos"], REAL_IDS["eos"]]
    shutil.copyfile(QWEN_TOKENIZER, os.path.join(out, "tokenizer.json"))
    dump(tokenizer_config(tok), os.path.join(out, "tokenizer_config.json"))
    dump({"chat_template": CHAT_TEMPLATE}, os.path.join(out, "chat_template.json"))
    dump(preprocessor_config(), os.path.join(out, "preprocessor_config.json"))
    dump(video_preprocessor_config(), os.path.join(out, "video_preprocessor_config.json"))
    # transformers reads it back with nothing missing, unexpected or mismatched (bfloat16: the file is mapped).
    _, info = Qwen3VLForConditionalGeneration.from_pretrained(out, dtype=torch.bfloat16, output_loading_info=True)
    problems = {k: v for k, v in info.items() if v and k != "error_msgs"}
    assert not problems, f"transformers 5.23 does not load it cleanly: {problems}"
    # Last (run.sh's sign that the folder is complete).
    dump(release_generation_config(REAL_IDS["bos"], [REAL_IDS["eos"], REAL_IDS["bos"]], REAL_IDS["bos"]),
         os.path.join(out, "generation_config.json"))
    size = os.path.getsize(os.path.join(out, "model.safetensors"))
    print(f"{out}: {count / 1e9:.3f} B parameters ({count:,}), {size / 1e9:.2f} GB of bfloat16; decoder = "
          f"internvl35's ({t.num_hidden_layers} layers, {t.hidden_size} wide), vision depth {v.depth}")


# ----------------------------------------------------------------------------------------------------------

# family -> how to make it from the parsed arguments
FAMILIES = {
    "internvl3": lambda a: internvl(a.out, "internvl3", a.kv_heads),
    "internvl35": lambda a: internvl(a.out, "internvl35"),
    "mllama": lambda a: mllama(a.out),
    "qwen25vl": lambda a: qwen25vl(a.out, a.shape, a.layers, a.vision_depth, a.dtype, a.shard_mb),
    "qwen3vl": lambda a: qwen3vl(a.out),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], usage=__doc__.split("\n")[2].strip(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[3:]))
    ap.add_argument("out", metavar="OUT_DIR")
    ap.add_argument("variant", nargs="?", metavar="KV_HEADS | FAMILY",
                    help="internvl3's KV head count (default 2), or a family")
    ap.add_argument("--family", choices=FAMILIES)
    ap.add_argument("--shape", choices=("3b", "7b"), default="3b", help="qwen25vl: the release's shape")
    ap.add_argument("--layers", type=int, help="qwen25vl: text decoder layers (default: the real count)")
    ap.add_argument("--vision-depth", type=int,
                    help="qwen25vl: vision blocks (default 32; full attention every 8th kept)")
    ap.add_argument("--dtype", choices=("bfloat16", "float32"), default="bfloat16", help="qwen25vl")
    ap.add_argument("--shard-mb", type=int, default=1000, help="qwen25vl")
    args = ap.parse_args(argv)
    args.kv_heads = 2
    family = args.family
    if args.variant is not None:
        if args.variant.isdigit():
            family, args.kv_heads = family or "internvl3", int(args.variant)
        elif args.variant in FAMILIES and family in (None, args.variant):
            family = args.variant
        else:
            ap.error(f"{args.variant}: not a KV head count nor a family ({', '.join(FAMILIES)}), or not --family's")
    if args.kv_heads != 2 and family != "internvl3":
        ap.error("KV_HEADS is internvl3's")
    FAMILIES[family or "internvl3"](args)


if __name__ == "__main__":
    main()
