"""Tiny random Qwen2.5-VL checkpoints and reference outputs from transformers, for the parity tests.

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_fixtures.py qwen25vl

Nothing is downloaded. With a fixed seed it builds a tiny Qwen2_5_VLForConditionalGeneration (float32, eager
attention) shaped like the real one in everything that matters to a port: a 4-block vision tower (hidden 32, 2
heads of 16, SiLU MLP with biases, RMSNorm) with 112 px attention windows in blocks 0 and 2 and full attention in
blocks 1 and 3 (fullatt_block_indexes [1, 3]), 2D rotary embeddings on 14 px patches, 2x2 patch merging to the
text width; a 2-layer Qwen2 decoder (hidden 64, 4 query heads and 2 key/value heads of 16, q/k/v biases) with
multimodal RoPE (mrope_section [2, 3, 3], theta 1e6). The tokenizer is tests/fixtures/tokenizers/tiny-qwen
plus the five Qwen2.5-VL vision tokens as special added tokens after its last id (the real ids are
151652..151656 in the same order); the embedding table is padded to a multiple of 128 rows as in the release
(152064 / 151936 rows for 151665 tokens), and lm_head has as many rows. Random weights are drawn to a realistic
scale (the decoder's MLP output x6, else greedy decoding repeats one token), then rounded to bfloat16, so a
bfloat16 copy and a float32 copy hold the same values. Checked on the way: each folder loads in transformers 5.23
with nothing missing or unexpected and gives back exactly the saved weights; the processors render the chat
template to EXPECTED_PROMPT; the 3D positions equal those of the release's algorithm; generate() equals an argmax
loop of full forwards; the cached decode step equals a full forward. Writes under tests/fixtures/qwen25vl/:
  hub/        the layout of the Qwen release on the Hub: flat config.json (text keys at the top level,
              rope_theta + rope_scaling {"type": "mrope"}, vision_config with in_chans, tie_word_embeddings
              true as in the 3B release), preprocessor_config.json (Qwen2VLImageProcessor, min_pixels 3136,
              max_pixels 100352 = 128*28*28 so the large image is scaled down), chat_template.json (the release's
              template), tokenizer.json, vocab.json + merges.txt, tokenizer_config.json, generation_config.json;
              bfloat16 weights in 2 shards + model.safetensors.index.json under the release's names
              (model.embed_tokens.*, model.layers.N.*, model.norm.*, visual.*), no lm_head.weight (tied)
  tf5/        exactly what transformers 5.23's save_pretrained writes (model + processor) for the same model
              UNTIED (its own random lm_head), float32: nested text_config, rope_parameters, processor_config.json,
              chat_template.jinja, ... (5.23 writes the legacy tensor names, see summary.json "tf5_tensor_names")
  images/     four synthetic document pages: small 150x97 (not a multiple of 28), mid 260x200 (several 112 px
              windows), large 500x400 (above max_pixels: scaled down), tiny 40x30 (below min_pixels: scaled up)
  reference/  pixels_<image>.safetensors: what the image processors give, identical for both folders (asserted),
                so stored once: pixel_values_pil [patches, 1176] (Qwen2VLImageProcessorPil, PIL bicubic),
                pixel_values_torch (Qwen2VLImageProcessor, the torchvision backend; 5.23 has no ...Fast class),
                image_grid_thw [1, 3], resized_pil / resized_torch uint8 [H, W, 3] (after resize, before
                rescale/normalize)
              <layout>_<image>.safetensors (layout hub or tf5): the model run on the pixels of the processor
                AutoProcessor picks for that folder: input_ids [T], mm_token_type_ids [T], position_ids [3, T]
                (get_rope_index), rope_deltas (scalar), vision_hidden [patches, 32] (last block output, window
                order), window_index [merged] and cu_window_seqlens (the window permutation of merged tokens and
                the window bounds in patches), image_embeds [merged, 64] (merger output, raster order), logits
                [vocab] of the last prompt position, greedy [12] (generate, do_sample False, new tokens only),
                logits_step2 [vocab] (after feeding greedy[0] with the KV cache, position T + rope_deltas)
              summary.json: shapes, grids, processors, pil/torch differences, greedy tokens and text, versions
  config-7b/  Qwen2.5-VL-7B-Instruct's config.json and preprocessor_config.json as the Hub has them (no
              tokenizer: the 11 MB real one is not committed; tests put the tiny one beside them)
  config-3b/  Qwen2.5-VL-3B-Instruct's config.json and preprocessor_config.json

The random checkpoint with the real shapes for the CPU speed bench is bench/generate/make_checkpoint.py
--family qwen25vl (it reads real_config(), hub_name() and the release's JSON files from here).
"""
import json
import os
import shutil

import numpy as np
import torch
from safetensors.torch import save_file
from tokenizers import AddedToken, Tokenizer
import transformers
from transformers import (AutoImageProcessor, AutoProcessor, GenerationConfig, Qwen2_5_VLConfig,
                          Qwen2_5_VLForConditionalGeneration)
from transformers.image_utils import SizeDict
from transformers.vision_utils import get_vision_window_index

from . import common
from .common import CLIP_MEAN, CLIP_STD, TOKENIZERS, read_names, render

OUT = os.path.join(common.FIXTURES, "qwen25vl")
# Chosen among seeds 1-20: for both layouts and all four images the 12 greedy tokens hold >= 9 distinct ids, no
# stop id and no padding row, and the smallest top-1 - top-2 logit gap over all 96 greedy steps is 0.016 (most
# seeds have one under 0.01), so a float32 port reproduces the tokens with room to spare.
SEED = 12
NEW_TOKENS = 12
QUESTION = "Extract the fields."
MIN_PIXELS, MAX_PIXELS = 3136, 128 * 28 * 28
VISION_TOKENS = ["<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]
# tiny-qwen ids: 1112 <|endoftext|>, 1113 <|im_start|>, 1114 <|im_end|>; the vision tokens get 1123..1127.
BOS = PAD = 1112
IM_START, IM_END = 1113, 1114
VISION_START, VISION_END, VISION_PAD, IMAGE_PAD, VIDEO_PAD = range(1123, 1128)
TOKENIZER_SIZE = 1128
VOCAB = 1152  # padded to a multiple of 128, as the release pads 151665 tokens to 152064 (7B) / 151936 (3B)
STOP_IDS = [IM_END, BOS]  # generation_config's eos_token_id, as the release has it

# Qwen2.5-VL-7B-Instruct's chat_template.json (the 3B and 72B have the same one).
CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
    "{% endif %}<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}{{ message['content'] }}"
    "<|im_end|>\n{% else %}{% for content in message['content'] %}{% if content['type'] == 'image' or 'image' in "
    "content or 'image_url' in content %}{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}"
    "Picture {{ image_count.value }}: {% endif %}<|vision_start|><|image_pad|><|vision_end|>{% elif content['type'] "
    "== 'video' or 'video' in content %}{% set video_count.value = video_count.value + 1 %}{% if add_vision_id %}"
    "Video {{ video_count.value }}: {% endif %}<|vision_start|><|video_pad|><|vision_end|>{% elif 'text' in content "
    "%}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endif %}{% endfor %}{% if add_generation_prompt "
    "%}<|im_start|>assistant\n{% endif %}")
MESSAGES = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": QUESTION}]}]
EXPECTED_PROMPT = ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
                   "<|vision_start|><|image_pad|><|vision_end|>" + QUESTION + "<|im_end|>\n<|im_start|>assistant\n")

VISION = dict(depth=4, hidden_size=32, num_heads=2, intermediate_size=64, hidden_act="silu", patch_size=14,
              spatial_merge_size=2, temporal_patch_size=2, window_size=112, fullatt_block_indexes=[1, 3],
              out_hidden_size=64, in_channels=3, tokens_per_second=2)
TEXT = dict(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=128, hidden_act="silu", rms_norm_eps=1e-6, max_position_embeddings=4096,
            rope_parameters={"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [2, 3, 3]},
            use_sliding_window=False, bos_token_id=BOS, eos_token_id=IM_END)
IMAGES = {  # name: (width, height, seed, font size, lines, expected resized (height, width))
    "small": (150, 97, 1, 11, ["INVOICE 0042", "Acme Pty Ltd", "TOTAL $33.00"], (84, 140)),
    "mid": (260, 200, 2, 14, ["TAX INVOICE", "Acme Pty Ltd", "ABN 51 824 753 556", "Date 12/03/2024",
                              "Widgets x3  $30.00", "GST  $3.00", "TOTAL $33.00"], (196, 252)),
    "large": (500, 400, 3, 20, ["RECEIPT  Blue Gum Cafe", "12 Mar 2024  10:42", "Flat white      4.50",
                                "Banana bread    5.00", "Orange juice    6.00", "Subtotal       15.50",
                                "GST             1.41", "TOTAL AUD      15.50", "EFTPOS APPROVED",
                                "Thank you!"], (280, 336)),
    "tiny": (40, 30, 4, 8, ["INV", "$33"], (56, 84)),
}


# ----------------------------------------------------------------------------------------------------------
# Tokenizer

def build_tokenizer():
    """tiny-qwen's tokenizer.json with the five vision tokens added as special tokens (next free ids)."""
    tok = Tokenizer.from_file(os.path.join(TOKENIZERS, "tiny-qwen", "tokenizer.json"))
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in VISION_TOKENS])
    ids = [tok.token_to_id(t) for t in VISION_TOKENS]
    assert ids == [VISION_START, VISION_END, VISION_PAD, IMAGE_PAD, VIDEO_PAD], ids
    assert tok.get_vocab_size(with_added_tokens=True) == TOKENIZER_SIZE
    assert [tok.token_to_id(t) for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>")] == [BOS, IM_START, IM_END]
    return tok


def tokenizer_config(tok):
    """tokenizer_config.json as the release has it (Qwen2Tokenizer, eos <|im_end|>, pad <|endoftext|>)."""
    added = json.loads(tok.to_str())["added_tokens"]
    decoder = {str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip", "single_word",
                                                 "special")} for t in added}
    specials = ["<|im_start|>", "<|im_end|>"] + VISION_TOKENS
    return {"add_bos_token": False, "add_prefix_space": False, "added_tokens_decoder": decoder,
            "additional_special_tokens": specials, "bos_token": None, "chat_template": CHAT_TEMPLATE,
            "clean_up_tokenization_spaces": False, "eos_token": "<|im_end|>", "errors": "replace",
            "model_max_length": 131072, "pad_token": "<|endoftext|>", "split_special_tokens": False,
            "tokenizer_class": "Qwen2Tokenizer", "unk_token": None}


# ----------------------------------------------------------------------------------------------------------
# Model

def build_config(tie):
    config = Qwen2_5_VLConfig(vision_config=VISION, text_config=TEXT, image_token_id=IMAGE_PAD,
                              video_token_id=VIDEO_PAD, vision_start_token_id=VISION_START,
                              vision_end_token_id=VISION_END, tie_word_embeddings=tie)
    config._attn_implementation = "eager"
    return config


def randomize(model, seed):
    """Weights of a realistic scale (common.randomize), then rounded to bf16."""
    g = common.randomize(model, seed, norm_keys=("norm", "ln_q"))  # RMSNorm weights
    with torch.no_grad():
        # A strong decoder MLP: otherwise the last position's state is the attention average over the many image
        # tokens, and with tied embeddings the token itself wins (lm_head . embed = |row|^2); greedy decoding
        # then repeats one token.
        for layer in model.model.language_model.layers:
            layer.mlp.down_proj.weight.mul_(6.0)
    common.equal_norm_rows((model.model.language_model.embed_tokens.weight, model.lm_head.weight), g,
                           unused_from=TOKENIZER_SIZE)
    common.round_to_bfloat16(model)


def build_models(seed):
    """(tied, untied): the same weights, but the untied model has its own lm_head."""
    torch.manual_seed(seed)
    untied = Qwen2_5_VLForConditionalGeneration(build_config(False)).eval()
    randomize(untied, seed)
    tied = Qwen2_5_VLForConditionalGeneration(build_config(True)).eval()
    state = {k: v for k, v in untied.state_dict().items() if k != "lm_head.weight"}
    missing, unexpected = tied.load_state_dict(state, strict=False)
    assert not unexpected and set(missing) <= {"lm_head.weight"}, (missing, unexpected)
    assert tied.lm_head.weight.data_ptr() == tied.model.language_model.embed_tokens.weight.data_ptr()
    assert not torch.equal(untied.lm_head.weight, untied.model.language_model.embed_tokens.weight)
    for m in (tied, untied):
        m.set_attn_implementation("eager")
    return tied, untied


def hub_name(tree):
    """Module-tree name (transformers >= 4.52) -> the release's name."""
    for prefix, legacy in (("model.language_model.", "model."), ("model.visual.", "visual.")):
        if tree.startswith(prefix):
            return legacy + tree[len(prefix):]
    if tree == "lm_head.weight":
        return tree
    raise SystemExit(f"unmapped tensor {tree}")


# ----------------------------------------------------------------------------------------------------------
# Configs

def hub_config(text, vision, vocab, tie, dtype="bfloat16", max_window_layers=None):
    """config.json as Qwen published it: text keys flat at the top level, rope_scaling {"type": "mrope"},
    vision_config without model_type and with in_chans (key order as in the release)."""
    return {
        "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0,
        "bos_token_id": text["bos"], "eos_token_id": text["eos"],
        "vision_start_token_id": text["ids"][0], "vision_end_token_id": text["ids"][1],
        "vision_token_id": text["ids"][2], "image_token_id": text["ids"][3], "video_token_id": text["ids"][4],
        "hidden_act": "silu", "hidden_size": text["hidden_size"], "initializer_range": 0.02,
        "intermediate_size": text["intermediate_size"], "max_position_embeddings": text["max_position_embeddings"],
        "max_window_layers": max_window_layers or text["num_hidden_layers"], "model_type": "qwen2_5_vl",
        "num_attention_heads": text["num_attention_heads"], "num_hidden_layers": text["num_hidden_layers"],
        "num_key_value_heads": text["num_key_value_heads"], "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
        "sliding_window": 32768, "tie_word_embeddings": tie, "torch_dtype": dtype, "transformers_version": "4.41.2",
        "use_cache": True, "use_sliding_window": False,
        "vision_config": {"depth": vision["depth"], "hidden_act": "silu", "hidden_size": vision["hidden_size"],
                          "intermediate_size": vision["intermediate_size"], "num_heads": vision["num_heads"],
                          "in_chans": 3, "out_hidden_size": vision["out_hidden_size"], "patch_size": 14,
                          "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                          "fullatt_block_indexes": vision["fullatt_block_indexes"], "tokens_per_second": 2,
                          "temporal_patch_size": 2},
        "rope_scaling": {"type": "mrope", "mrope_section": text["mrope_section"]},
        "vocab_size": vocab,
    }


REAL_IDS = dict(bos=151643, eos=151645, ids=[151652, 151653, 151654, 151655, 151656])
REAL_VISION = dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16,
                   fullatt_block_indexes=[7, 15, 23, 31])
REAL = {  # shape -> (text, vision out, vocab, tie, max_window_layers), as in the two releases' config.json
    "7b": (dict(REAL_IDS, hidden_size=3584, intermediate_size=18944, max_position_embeddings=128000,
                num_attention_heads=28, num_hidden_layers=28, num_key_value_heads=4, mrope_section=[16, 24, 24]),
           3584, 152064, False, 28),
    "3b": (dict(REAL_IDS, hidden_size=2048, intermediate_size=11008, max_position_embeddings=128000,
                num_attention_heads=16, num_hidden_layers=36, num_key_value_heads=2, mrope_section=[16, 24, 24]),
           2048, 151936, True, 70),
}


def real_config(shape, layers=None, vision_depth=None, dtype="bfloat16"):
    text, out_hidden, vocab, tie, max_window_layers = REAL[shape]
    text = dict(text, num_hidden_layers=layers or text["num_hidden_layers"])
    vision = dict(REAL_VISION, out_hidden_size=out_hidden)
    if vision_depth:
        full = [i for i in vision["fullatt_block_indexes"] if i < vision_depth] or [vision_depth - 1]
        vision.update(depth=vision_depth, fullatt_block_indexes=full)
    return hub_config(text, vision, vocab, tie, dtype, max_window_layers)


def real_preprocessor_config(max_pixels=12845056):
    """preprocessor_config.json of the 3B and 7B releases."""
    return {"min_pixels": MIN_PIXELS, "max_pixels": max_pixels, "patch_size": 14, "temporal_patch_size": 2,
            "merge_size": 2, "image_mean": CLIP_MEAN, "image_std": CLIP_STD,
            "image_processor_type": "Qwen2VLImageProcessor", "processor_class": "Qwen2_5_VLProcessor"}


def tiny_preprocessor_config():
    """The release's keys, max_pixels lowered, and the processor defaults written out."""
    return dict(real_preprocessor_config(MAX_PIXELS), do_resize=True, do_rescale=True,
                rescale_factor=0.00392156862745098, do_normalize=True, do_convert_rgb=True, resample=3)


def release_generation_config(bos, eos, pad):
    """generation_config.json of the instruct releases (sampling defaults; the references are greedy)."""
    return {"bos_token_id": bos, "pad_token_id": pad, "do_sample": True, "eos_token_id": eos,
            "repetition_penalty": 1.05, "temperature": 0.1, "top_p": 0.001, "top_k": 1,
            "transformers_version": "4.37.0"}


def dump(obj, path):
    common.write_json(obj, path, newline=True, ensure_ascii=False)


# ----------------------------------------------------------------------------------------------------------
# Checkpoints

def write_sharded(tensors, folder, shards):
    """tensors (name -> tensor, in the order wanted) split into `shards` files of about equal size + index."""
    total = sum(t.numel() * t.element_size() for t in tensors.values())
    names, cut, acc, part = list(tensors), [], 0, 1
    for n in names:
        if acc >= total * part / shards and part < shards:
            part += 1
        cut.append(part)
        acc += tensors[n].numel() * tensors[n].element_size()
    weight_map = {}
    for s in range(1, shards + 1):
        fn = f"model-{s:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n].contiguous() for n, c in zip(names, cut) if c == s}
        save_file(part, os.path.join(folder, fn), metadata={"format": "pt"})
        weight_map.update({n: fn for n in part})
    dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))},
         os.path.join(folder, "model.safetensors.index.json"))
    return sorted(set(weight_map.values()))


def write_hub(tied, folder, tok):
    os.makedirs(folder)
    state = {hub_name(k): v.to(torch.bfloat16) for k, v in tied.state_dict().items() if k != "lm_head.weight"}
    # The release's shards put the language model first and the vision tower after it.
    order = sorted(state, key=lambda n: (n.startswith("visual."), n))
    shards = write_sharded({n: state[n] for n in order}, folder, 2)
    ids = dict(bos=BOS, eos=IM_END, ids=[VISION_START, VISION_END, VISION_PAD, IMAGE_PAD, VIDEO_PAD])
    text = dict(ids, **{k: TEXT[k] for k in ("hidden_size", "intermediate_size", "max_position_embeddings",
                                             "num_attention_heads", "num_hidden_layers", "num_key_value_heads")},
                mrope_section=TEXT["rope_parameters"]["mrope_section"])
    dump(hub_config(text, VISION, VOCAB, True), os.path.join(folder, "config.json"))
    dump(release_generation_config(BOS, STOP_IDS, PAD), os.path.join(folder, "generation_config.json"))
    dump(tiny_preprocessor_config(), os.path.join(folder, "preprocessor_config.json"))
    dump({"chat_template": CHAT_TEMPLATE}, os.path.join(folder, "chat_template.json"))
    dump(tokenizer_config(tok), os.path.join(folder, "tokenizer_config.json"))
    tok.save(os.path.join(folder, "tokenizer.json"))
    for fn in ("vocab.json", "merges.txt"):  # the BPE of tiny-qwen; the added tokens live in tokenizer_config
        shutil.copy(os.path.join(TOKENIZERS, "tiny-qwen-slow", fn), folder)
    return shards


def write_tf5(untied, folder, hub_folder):
    """save_pretrained's own output: the untied float32 model, and the processor read from hub/."""
    untied.generation_config = GenerationConfig.from_pretrained(hub_folder)
    untied.save_pretrained(folder)
    AutoProcessor.from_pretrained(hub_folder).save_pretrained(folder)


def load(folder, reference):
    """from_pretrained in float32; the weights must come back exactly, with nothing missing or left over."""
    model, info = Qwen2_5_VLForConditionalGeneration.from_pretrained(
        folder, dtype=torch.float32, attn_implementation="eager", output_loading_info=True)
    model.eval()
    problems = {k: v for k, v in info.items() if v and k != "error_msgs"} | (
        {"error_msgs": info["error_msgs"]} if info.get("error_msgs") else {})
    assert not problems, f"{folder}: {problems}"
    sd, ref = model.state_dict(), reference.state_dict()
    assert set(sd) == set(ref), f"{folder}: {set(sd) ^ set(ref)}"
    bad = [k for k in ref if not torch.equal(sd[k].float(), ref[k])]
    assert not bad, f"{folder}: {bad[:5]}"
    assert model.config.tie_word_embeddings == reference.config.tie_word_embeddings
    tied = model.lm_head.weight.data_ptr() == model.model.language_model.embed_tokens.weight.data_ptr()
    assert tied == reference.config.tie_word_embeddings, f"{folder}: lm_head tying differs"
    for a, b in ((model.model.language_model.rotary_emb, reference.model.language_model.rotary_emb),
                 (model.model.visual.rotary_pos_emb, reference.model.visual.rotary_pos_emb)):
        assert torch.equal(a.inv_freq, b.inv_freq), f"{folder}: RoPE differs"
    assert model.model.language_model.rotary_emb.mrope_section == [2, 3, 3]
    v = model.config.vision_config
    assert (v.depth, v.fullatt_block_indexes, v.window_size, v.tokens_per_second) == (4, [1, 3], 112, 2)
    assert model.config.text_config.rms_norm_eps == 1e-6 and model.config.image_token_id == IMAGE_PAD
    return model, info


# ----------------------------------------------------------------------------------------------------------
# Images

def resized(processor, img):
    """The processor's resize() called directly: uint8 [H, W, 3], before rescale / normalize."""
    size = SizeDict(shortest_edge=processor.size["shortest_edge"], longest_edge=processor.size["longest_edge"])
    factor = processor.patch_size * processor.merge_size
    if isinstance(processor, transformers.Qwen2VLImageProcessorPil):
        out = processor.resize(np.asarray(img).transpose(2, 0, 1), size=size, resample=processor.resample,
                               factor=factor)
        assert out.dtype == np.uint8
        return torch.from_numpy(np.ascontiguousarray(out.transpose(1, 2, 0)))
    t = torch.from_numpy(np.array(img)).permute(2, 0, 1).contiguous()[None]
    out = processor.resize(t, size=size, resample=processor.resample, factor=factor)
    assert out.dtype == torch.uint8
    return out[0].permute(1, 2, 0).contiguous()


def patchify(u8, patch=14, mean=CLIP_MEAN, std=CLIP_STD):
    """uint8 [H, W, 3] -> [patches, 3*2*patch*patch], the documented layout: patches in 2x2 merge blocks,
    block-raster order; each row channel-major, the frame repeated for temporal_patch_size 2, then patch x patch
    pixels. (Qwen3-VL: patch 16, mean = std = 0.5.)"""
    mean, std = torch.tensor(mean).view(3, 1, 1), torch.tensor(std).view(3, 1, 1)
    x = (u8.permute(2, 0, 1).float() / 255 - mean) / std
    c, h, w = x.shape
    gh, gw = h // patch, w // patch
    x = x.reshape(c, gh // 2, 2, patch, gw // 2, 2, patch).permute(1, 4, 2, 5, 0, 3, 6)  # bh, bw, mh, mw, c, ph, pw
    x = x[:, :, :, :, :, None].expand(-1, -1, -1, -1, -1, 2, -1, -1)
    return x.reshape(gh * gw, c * 2 * patch * patch)


def pixels(folder, img, expect_hw):
    """Both backends' pixel values, grid and resize for one folder's image processor settings."""
    out = {}
    for backend in ("pil", "torch"):
        ip = AutoImageProcessor.from_pretrained(folder, backend="pil" if backend == "pil" else "torchvision")
        assert (ip.size["shortest_edge"], ip.size["longest_edge"]) == (MIN_PIXELS, MAX_PIXELS)
        assert ip.resample == 3 and list(ip.image_mean) == CLIP_MEAN
        enc = ip(images=[img], return_tensors="pt")
        u8 = resized(ip, img)
        assert tuple(u8.shape[:2]) == expect_hw, (u8.shape, expect_hw)
        pv = enc["pixel_values"].float().contiguous()
        # The pixel values are exactly (to float rounding) the documented function of the uint8 resize.
        assert torch.allclose(patchify(u8), pv, atol=2e-6, rtol=0), float((patchify(u8) - pv).abs().max())
        out[f"pixel_values_{backend}"] = pv
        out[f"resized_{backend}"] = u8
        out[f"class_{backend}"] = type(ip).__name__
        grid = enc["image_grid_thw"].to(torch.int64)
        assert grid.tolist() == [[1, expect_hw[0] // 14, expect_hw[1] // 14]]
        out["image_grid_thw"] = grid.contiguous()
    return out


# ----------------------------------------------------------------------------------------------------------
# Model runs

def rope_index_release(ids, grid_thw):
    """The 3D positions as the Qwen2.5-VL release computed them (transformers 4.49's get_rope_index for one
    image): text counts on from the previous maximum + 1; the image's t/h/w are start + (0, row, column)."""
    ids = ids.tolist()
    start = ids.index(IMAGE_PAD)
    n = ids.count(IMAGE_PAD)
    _, h, w = (int(x) for x in grid_thw[0])
    h, w = h // 2, w // 2
    assert n == h * w and ids[start:start + n] == [IMAGE_PAD] * n
    pos = [[i] * 3 for i in range(start)]
    pos += [[start, start + r, start + c] for r in range(h) for c in range(w)]
    nxt = max(max(p) for p in pos) + 1
    pos += [[nxt + i] * 3 for i in range(len(ids) - start - n)]
    pos = torch.tensor(pos, dtype=torch.int64).T
    return pos, int(pos.max()) + 1 - len(ids)


def model_inputs(inputs):
    return {k: inputs[k] for k in ("input_ids", "attention_mask", "pixel_values", "image_grid_thw",
                                   "mm_token_type_ids")}


def run_model(model, inputs):
    base = model_inputs(inputs)
    ids = base["input_ids"]
    with torch.no_grad():
        vis = model.model.visual(base["pixel_values"], grid_thw=base["image_grid_thw"])
        feats = model.model.get_image_features(base["pixel_values"], base["image_grid_thw"])
        image_embeds = torch.cat(feats.pooler_output, 0).float().contiguous()
        assert torch.equal(image_embeds, vis.pooler_output)
        position_ids, deltas = model.model.get_rope_index(ids, base["mm_token_type_ids"], base["image_grid_thw"])
        out = model(**base, use_cache=True)
        logits = out.logits[0, -1].float().contiguous()
        # Greedy with generate (KV cache), checked against an argmax loop of full forwards without cache.
        # (5.23 fills what the given generation config leaves unset from the folder's generation_config.json,
        # whose repetition_penalty 1.05 would apply: it is reset here.)
        gen = model.generate(**base, generation_config=GenerationConfig(
            do_sample=False, max_new_tokens=NEW_TOKENS, eos_token_id=STOP_IDS, pad_token_id=PAD,
            repetition_penalty=1.0))
        tokens = gen[0, ids.shape[1]:].tolist()
        loop, cur, mm, margins = [], ids, base["mm_token_type_ids"], []
        for _ in range(NEW_TOKENS):
            step = model(**dict(base, input_ids=cur, attention_mask=torch.ones_like(cur), mm_token_type_ids=mm),
                         use_cache=False).logits[0, -1]
            top2 = torch.topk(step, 2).values
            margins.append(float(top2[0] - top2[1]))
            loop.append(int(step.argmax()))
            cur = torch.cat([cur, torch.tensor([[loop[-1]]])], 1)
            mm = torch.cat([mm, torch.zeros(1, 1, dtype=mm.dtype)], 1)
        assert tokens == loop, f"generate {tokens} != argmax loop {loop}"
        # Decode step 2 with the KV cache: the new token sits at position T + rope_deltas on all three axes.
        model.model.rope_deltas = None
        out = model(**base, use_cache=True)
        t = ids.shape[1]
        pos2 = torch.full((3, 1, 1), t + int(deltas), dtype=torch.int64)
        step2 = model(input_ids=torch.tensor([[tokens[0]]]), past_key_values=out.past_key_values,
                      position_ids=pos2, use_cache=True).logits[0, -1].float().contiguous()
        full2 = model(**dict(base, input_ids=cur[:, :t + 1], attention_mask=torch.ones(1, t + 1, dtype=torch.int64),
                             mm_token_type_ids=mm[:, :t + 1]), use_cache=False).logits[0, -1]
        assert torch.allclose(step2, full2, atol=1e-4), float((step2 - full2).abs().max())
    window_index, cu_window = get_vision_window_index(base["image_grid_thw"], 2, 112, 14)
    return {"input_ids": ids[0].to(torch.int64).contiguous(),
            "mm_token_type_ids": base["mm_token_type_ids"][0].to(torch.int64).contiguous(),
            "position_ids": position_ids[:, 0].to(torch.int64).contiguous(),
            "rope_deltas": deltas.reshape(()).to(torch.int64),
            "vision_hidden": vis.last_hidden_state.float().contiguous(),
            "window_index": window_index.to(torch.int64).contiguous(),
            "cu_window_seqlens": cu_window.to(torch.int64).contiguous(),
            "image_embeds": image_embeds, "logits": logits,
            "greedy": torch.tensor(tokens, dtype=torch.int64), "logits_step2": step2}, min(margins)


def greedy_ok(tokens):
    return len(set(tokens)) >= 7 and not set(tokens) & set(STOP_IDS) and max(tokens) < TOKENIZER_SIZE


# ----------------------------------------------------------------------------------------------------------

def write_real_configs(out):
    for shape in ("7b", "3b"):
        folder = os.path.join(out, f"config-{shape}")
        os.makedirs(folder)
        dump(real_config(shape), os.path.join(folder, "config.json"))
        dump(real_preprocessor_config(), os.path.join(folder, "preprocessor_config.json"))
        cfg = Qwen2_5_VLConfig.from_pretrained(folder)  # 5.23 reads the flat layout
        text, out_hidden, vocab, tie, _ = REAL[shape]
        assert (cfg.text_config.hidden_size, cfg.text_config.vocab_size, cfg.tie_word_embeddings,
                cfg.vision_config.out_hidden_size) == (text["hidden_size"], vocab, tie, out_hidden)
        assert cfg.text_config.rope_parameters["mrope_section"] == [16, 24, 24]
    # No tokenizer: the 11 MB real one would dominate the fixtures. The inspect test puts the tiny
    # tokenizer beside these configs and points their token ids at it.
    return 0


def main(out=OUT):
    common.make_dirs(out, ("images", "reference"))
    tok = build_tokenizer()

    tied, untied = build_models(SEED)
    hub, tf5 = os.path.join(out, "hub"), os.path.join(out, "tf5")
    shards = write_hub(tied, hub, tok)
    write_tf5(untied, tf5, hub)
    models = {"hub": load(hub, tied)[0], "tf5": load(tf5, untied)[0]}
    tf5_names = read_names(tf5)
    assert set(read_names(hub)) == {hub_name(k) for k in tied.state_dict() if k != "lm_head.weight"}
    tokenizer_bytes = write_real_configs(out)

    summary = {"transformers": transformers.__version__, "torch": torch.__version__, "seed": SEED,
               "new_tokens": NEW_TOKENS, "question": QUESTION, "prompt": EXPECTED_PROMPT,
               "min_pixels": MIN_PIXELS, "max_pixels": MAX_PIXELS, "tokenizer_size": TOKENIZER_SIZE,
               "vocab_size": VOCAB, "stop_ids": STOP_IDS,
               "special_tokens": {t: tok.token_to_id(t) for t in ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
                                  + VISION_TOKENS},
               "hub_shards": shards, "hub_tensor_names_example": sorted(read_names(hub))[:3],
               "tf5_tensor_names": sorted(tf5_names), "tf5_dtypes": sorted({d for _, d in tf5_names.values()}),
               "qwen2_tokenizer_json_bytes": tokenizer_bytes, "layouts": {}, "images": {}}
    processors = {d: AutoProcessor.from_pretrained(os.path.join(out, d)) for d in ("hub", "tf5")}
    for d, proc in processors.items():
        assert proc.apply_chat_template(MESSAGES, tokenize=False, add_generation_prompt=True) == EXPECTED_PROMPT
        summary["layouts"][d] = {"processor": type(proc).__name__,
                                 "image_processor": type(proc.image_processor).__name__,
                                 "tokenizer": type(proc.tokenizer).__name__,
                                 "tie_word_embeddings": models[d].config.tie_word_embeddings}

    for name, (width, height, seed, font_size, lines, expect_hw) in IMAGES.items():
        img = render(width, height, seed, font_size, lines)
        img.save(os.path.join(out, "images", name + ".png"))
        pix = {d: pixels(os.path.join(out, d), img, expect_hw) for d in ("hub", "tf5")}
        for k, a in pix["hub"].items():
            b = pix["tf5"][k]
            assert (a == b) if isinstance(a, str) else torch.equal(a, b), f"{name}: {k} differs between the folders"
        p = pix["hub"]
        # The large image's float patches (5 MB) are left out: its uint8 resize is checked, and the
        # patch order and normalisation are checked on the other three.
        save_file({k: v for k, v in p.items()
                   if not k.startswith("class_") and not (name == "large" and k.startswith("pixel_values_"))},
                  os.path.join(out, "reference", f"pixels_{name}.safetensors"), metadata={"format": "pt"})
        diff = (p["pixel_values_pil"] - p["pixel_values_torch"]).abs()
        u8diff = (p["resized_pil"].int() - p["resized_torch"].int()).abs()
        grid = p["image_grid_thw"][0].tolist()
        entry = {"size_wh": [width, height], "resized_hw": list(expect_hw), "grid_thw": grid,
                 "patches": grid[1] * grid[2], "merged_tokens": grid[1] * grid[2] // 4,
                 "pil_class": p["class_pil"], "torch_class": p["class_torch"],
                 "max_abs_pixel_diff_pil_torch": float(diff.max()), "mean_abs_pixel_diff_pil_torch": float(diff.mean()),
                 "resized_u8_max_diff_pil_torch": int(u8diff.max()),
                 "resized_u8_bytes_differing": int((u8diff > 0).sum()), "layouts": {}}
        for d, model in models.items():
            proc = processors[d]
            inputs = proc(text=[EXPECTED_PROMPT], images=[img], return_tensors="pt")
            used = "pil" if type(proc.image_processor).__name__.endswith("Pil") else "torch"
            assert torch.equal(inputs["pixel_values"].float(), p[f"pixel_values_{used}"])
            ids = inputs["input_ids"][0].tolist()
            n = entry["merged_tokens"]
            assert ids == tok.encode(EXPECTED_PROMPT.replace("<|image_pad|>", "<|image_pad|>" * n),
                                     add_special_tokens=False).ids
            assert inputs["mm_token_type_ids"][0].tolist() == [int(i == IMAGE_PAD) for i in ids]
            ref, margin = run_model(model, inputs)
            release_pos, release_delta = rope_index_release(inputs["input_ids"][0], inputs["image_grid_thw"])
            assert torch.equal(ref["position_ids"], release_pos) and int(ref["rope_deltas"]) == release_delta
            memory = tied if d == "hub" else untied  # the in-memory model gives the same numbers
            with torch.no_grad():
                assert torch.equal(memory(**model_inputs(inputs)).logits[0, -1], ref["logits"])
            tokens = ref["greedy"].tolist()
            assert greedy_ok(tokens), f"{d}/{name}: weak greedy tokens {tokens}"
            # (One metadata key only: safetensors writes several in a random order, and the bytes would vary.)
            save_file(ref, os.path.join(out, "reference", f"{d}_{name}.safetensors"), metadata={"format": "pt"})
            image_at = ids.index(IMAGE_PAD)
            entry["layouts"][d] = {
                "file": f"{d}_{name}.safetensors", "auto_image_processor": type(proc.image_processor).__name__,
                "pixel_values": f"pixels_{name}.safetensors:pixel_values_{used}", "prompt_tokens": len(ids),
                "image_pad_first": image_at, "image_pad_count": n, "rope_deltas": int(ref["rope_deltas"]),
                "text_after_image_starts_at": int(ref["position_ids"][0, image_at + n]),
                "windows": len(ref["cu_window_seqlens"]) - 1,
                "shapes": {k: list(v.shape) for k, v in ref.items()}, "greedy": tokens,
                "greedy_text": tok.decode(tokens, skip_special_tokens=False),
                "greedy_min_top2_logit_gap": round(margin, 6), "logits_std": round(float(ref["logits"].std()), 4),
                "logits_argmax": int(ref["logits"].argmax())}
            print(f"{name} [{d}]: {width}x{height} -> {expect_hw[1]}x{expect_hw[0]}, grid {grid}, {len(ids)} tokens, "
                  f"rope_deltas {int(ref['rope_deltas'])}, {entry['layouts'][d]['windows']} windows, "
                  f"processor {type(proc.image_processor).__name__}, greedy {tokens}")
        assert entry["layouts"]["hub"]["greedy"] != entry["layouts"]["tf5"]["greedy"]
        summary["images"][name] = entry
        print(f"    pil vs torch: max |dpixel| {entry['max_abs_pixel_diff_pil_torch']:.4f}, resized bytes differing "
              f"{entry['resized_u8_bytes_differing']} (max {entry['resized_u8_max_diff_pil_torch']})")
    dump(summary, os.path.join(out, "reference", "summary.json"))
    common.print_sizes(out)
