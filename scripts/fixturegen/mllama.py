"""Tiny random Llama 3.2 Vision (Mllama) checkpoints and reference outputs from transformers, for the parity tests.

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_fixtures.py mllama

Nothing is downloaded. With fixed seeds it builds a tiny MllamaForConditionalGeneration (float32, eager
attention) shaped like the real 11B one in everything that matters to a port: 112 px tiles of 8x8 patches
(+ CLS = 65 tokens, padded to 72: the 1601 -> 1608 arithmetic with 7 pad tokens), 4 local + 2 gated global
vision layers, two intermediate layers, the real supported aspect ratios, a 5-layer text decoder with cross
attention at layers 1 and 3, llama3 RoPE whose blend region is hit (original_max_position_embeddings 64), an
embedding table with 8 extra rows and an lm_head without the <|image|> row. Random weights are drawn to a
realistic scale, all gates clearly non-zero, then rounded to bfloat16, so every checkpoint below holds the
same (bf16-exact) values and all of them reproduce the same reference. It uses the tiny Llama-3-style
tokenizer of tests/fixtures/tokenizers/tiny-llama and writes under tests/fixtures/mllama/:
  hub/        the Hub layout: legacy names (vision_model.*, language_model.model.*, language_model.lm_head.*,
              multi_modal_projector.*), one float32 model.safetensors, config.json as transformers 4.45
              wrote it (rope_theta + rope_scaling), preprocessor_config.json (size 112), tokenizer.json
  tree/       module-tree names (model.vision_model.*, model.language_model.*, model.multi_modal_projector.*,
              lm_head.weight), bfloat16 (what save_pretrained writes for a bfloat16 copy; exact, the weights
              are bf16-exact), 2 shards + model.safetensors.index.json, 5.x config (rope_parameters)
              (transformers 5.23's save_pretrained writes the *legacy* names, so the shards it wrote are
              renamed here; everything else in the folder is save_pretrained's own output)
  images/     four synthetic document images: one_tile (80x60, upscaled), grid_2x2 (400x360, downscaled),
              wide_1x3 (320x100, padded only) and tall_3x1 (150x400, downscaled; (3,1) beats (4,1) on area)
  reference/  per image <name>.safetensors: input_ids, cross_attention_mask [T,4], aspect_ratio_ids [1],
              aspect_ratio_mask [4], num_tiles, logits of the last prompt position, 16 greedy tokens;
              cross_attention_states [4*65, 64] (projector output, all 4 tile slots, CLS first per tile) for
              one_tile and grid_2x2; greedy_output_convention (see below) for one image; logits_meta_rows for
              grid_2x2; <name>.resized.png: the processor's uint8 resize before padding/normalisation
              (<name>.resized_pil.png where the PIL backend's resize differs); summary.json
The references follow Meta's convention for the intermediate vision layers (the INPUT of local layer i), not
the one of unpatched transformers 5.23 (the OUTPUT of layer i): see meta_intermediate_convention().
"""
import contextlib
import json
import os
import shutil

import numpy as np
import torch
from PIL import Image
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer
import transformers
from transformers import (MllamaConfig, MllamaForConditionalGeneration, MllamaImageProcessor,
                          MllamaImageProcessorPil, MllamaProcessor, PreTrainedTokenizerFast)
from transformers.image_utils import SizeDict
from transformers.modeling_outputs import BaseModelOutput
from transformers.models.mllama import modeling_mllama
from transformers.models.mllama.image_processing_mllama import (get_all_supported_aspect_ratios,
                                                                get_image_size_fit_to_canvas,
                                                                get_optimal_tiled_canvas)

from . import common
from .common import CLIP_MEAN, CLIP_STD, read_names, render, write_json

OUT = os.path.join(common.FIXTURES, "mllama")
TOKENIZER = os.path.join(common.TOKENIZERS, "tiny-llama", "tokenizer.json")
# Chosen among seeds 1-12 so that every image's 16 greedy tokens hold >= 11 distinct ids (no 2-token loops), none
# is a stop id, and both the 5.23 convention and Meta's row mask change the greedy tokens of every image.
SEED = 8
TILE = 112
MAX_TILES = 4
NEW_TOKENS = 16
# The 11B preprocessor has CLIP's mean/std (common.CLIP_MEAN / CLIP_STD; the class defaults are 0.5/0.5).
QUESTION = "What is the total amount? Answer with TOTAL: value."
# Text before <|image|> (wide_1x3) makes the rows before the image token longer than the 5 header tokens.
TEXT_FIRST = "Read this page. <|image|> What is the total amount?"

# Tokenizer ids (tiny-llama): 1202 <|begin_of_text|>, 1203 <|end_of_text|>, 1204/1205 header ids,
# 1206 <|eom_id|>, 1207 <|eot_id|>, 1208 <|image|>. vocab_size = 1208, so lm_head has no <|image|> row and
# embed_tokens has 1208 + 8 rows, as in the real model. The tokenizer has no pad token: 1203 stands in.
IMAGE_TOKEN = 1208
BOS, PAD, STOP_IDS = 1202, 1203, [1203, 1206, 1207]
ROPE = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
        "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
VISION = dict(image_size=TILE, patch_size=14, hidden_size=32, attention_heads=2, intermediate_size=64,
              num_hidden_layers=4, num_global_layers=2, intermediate_layers_indices=[1, 3], vision_output_dim=32 * 3,
              max_num_tiles=MAX_TILES, norm_eps=1e-5, hidden_act="gelu", num_channels=3,
              supported_aspect_ratios=[[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])
TEXT = dict(vocab_size=1208, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
            num_hidden_layers=5, cross_attention_layers=[1, 3], rms_norm_eps=1e-5, rope_parameters=ROPE,
            max_position_embeddings=4096, tie_word_embeddings=False, hidden_act="silu",
            bos_token_id=BOS, eos_token_id=STOP_IDS, pad_token_id=PAD)
IMAGES = {  # name: (width, height, seed, font size, lines, user text, expected (h_tiles, w_tiles))
    "one_tile": (80, 60, 1, 11, ["INVOICE", "Acme", "TOTAL $33"], QUESTION, (1, 1)),
    "grid_2x2": (400, 360, 2, 22, ["TAX INVOICE", "Acme Pty Ltd", "ABN 51 824 753 556", "Date 12/03/2024",
                                   "Widgets x3  $30.00", "GST  $3.00", "TOTAL $33.00"], QUESTION, (2, 2)),
    "wide_1x3": (320, 100, 3, 16, ["RECEIPT  Blue Gum Cafe", "Flat white 4.50  Bread 5.00", "TOTAL AUD 9.50"],
                 TEXT_FIRST, (1, 3)),
    "tall_3x1": (150, 400, 4, 15, ["STATEMENT", "Acct 0042", "Jan  12.00", "Feb  15.50", "Mar   9.25",
                                   "Apr  11.00", "May  20.00", "Jun   7.75", "Fees  2.50", "TOTAL 78.00"],
                 QUESTION, (3, 1)),
}


def chat_prompt(user_text):
    """The Llama 3.2 Vision instruct template for one user turn (BOS written once, as text)."""
    return ("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" + user_text +
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")


def user_text_for(user_text):
    """The question alone gets the image in front, as the template does; TEXT_FIRST already holds <|image|>."""
    return user_text if "<|image|>" in user_text else "<|image|>" + user_text


GATES = ("gate", "gate_attn", "gate_ffn", "cross_attn_attn_gate", "cross_attn_mlp_gate")
EMBEDDING_TABLES = ("class_embedding", "gated_positional_embedding.embedding", "tile_embedding.weight",
                    "pre_tile_positional_embedding.embedding.weight", "post_tile_positional_embedding.embedding.weight")


def randomize(model, seed):
    """Weights of a realistic scale (common.randomize), every gate clearly open, then rounded to bfloat16."""
    hidden_v = model.config.vision_config.hidden_size

    def rule(name, p, g):
        if name.rsplit(".", 1)[-1] in GATES:
            # The init leaves most gates at 0 (branch off); 0.3-1.0 keeps tanh(gate) well inside (0, 1) so
            # both sides of (1 - tanh g)·pos + tanh g·tile_pos, and every gated branch, matter.
            return 0.3 + 0.7 * torch.rand(p.shape, generator=g)
        if name.endswith(EMBEDDING_TABLES):
            # Vision position / tile / CLS tables: the 1/sqrt(hidden) scale of the real init, not 1/sqrt(fan_in)
            # (a tile_embedding row is 4*65*32 wide and would otherwise be ~0).
            return torch.randn(p.shape, generator=g) * hidden_v ** -0.5
        return None

    g = common.randomize(model, seed, rule)  # LayerNorm / RMSNorm weights, q_norm / k_norm included, by "norm"
    common.equal_norm_rows((model.lm_head.weight, model.model.language_model.embed_tokens.weight), g)
    common.round_to_bfloat16(model)


# ----------------------------------------------------------------------------------------------------------
# Weight names

def hub_name(tree):
    """Module-tree name (transformers >= 4.52 modules) -> the Hub's legacy name (what the converter wrote)."""
    if tree == "lm_head.weight":
        return "language_model.lm_head.weight"
    for prefix, legacy in (("model.language_model.", "language_model.model."), ("model.vision_model.", "vision_model."),
                           ("model.multi_modal_projector.", "multi_modal_projector.")):
        if tree.startswith(prefix):
            return legacy + tree[len(prefix):]
    raise SystemExit(f"unmapped tensor {tree}")


def print_layout(title, shapes):
    print(f"--- {title}: {len(shapes)} tensors")
    for name in sorted(shapes):
        print(f"    {name:72s} {list(shapes[name])}")


# ----------------------------------------------------------------------------------------------------------
# Configs

# The keys PretrainedConfig.to_dict() of transformers 4.45 wrote into every nested config of the real
# config.json (generation defaults and bookkeeping); a reader must skip them.
LEGACY_NOISE = {"_name_or_path": "", "add_cross_attention": False, "architectures": None, "bad_words_ids": None,
                "begin_suppress_tokens": None, "chunk_size_feed_forward": 0, "cross_attention_hidden_size": None,
                "decoder_start_token_id": None, "diversity_penalty": 0.0, "do_sample": False, "early_stopping": False,
                "encoder_no_repeat_ngram_size": 0, "exponential_decay_length_penalty": None, "finetuning_task": None,
                "forced_bos_token_id": None, "forced_eos_token_id": None, "id2label": {"0": "LABEL_0", "1": "LABEL_1"},
                "is_decoder": False, "is_encoder_decoder": False, "label2id": {"LABEL_0": 0, "LABEL_1": 1},
                "length_penalty": 1.0, "max_length": 20, "min_length": 0, "no_repeat_ngram_size": 0,
                "num_beam_groups": 1, "num_beams": 1, "num_return_sequences": 1, "output_attentions": False,
                "output_hidden_states": False, "output_scores": False, "prefix": None, "problem_type": None,
                "pruned_heads": {}, "remove_invalid_values": False, "repetition_penalty": 1.0, "return_dict": True,
                "return_dict_in_generate": False, "sep_token_id": None, "suppress_tokens": None,
                "task_specific_params": None, "temperature": 1.0, "tf_legacy_loss": False, "tie_encoder_decoder": False,
                "tokenizer_class": None, "top_k": 50, "top_p": 1.0, "torchscript": False, "typical_p": 1.0,
                "use_bfloat16": False}


def hub_config(dtype="float32"):
    """config.json in the shape transformers 4.45 wrote it for meta-llama/Llama-3.2-11B-Vision-Instruct:
    rope_theta + rope_scaling {rope_type llama3, ...} in text_config, the generic keys of every sub-config
    (note vision_config's "tie_word_embeddings": true, the PretrainedConfig default) and torch_dtype."""
    rope_scaling = {k: v for k, v in ROPE.items() if k != "rope_theta"}
    text = dict(LEGACY_NOISE, **{k: v for k, v in TEXT.items() if k != "rope_parameters"},
                rope_theta=ROPE["rope_theta"], rope_scaling=rope_scaling, dropout=0, initializer_range=0.02,
                use_cache=True, model_type="mllama_text_model", torch_dtype=dtype)
    vision = dict(LEGACY_NOISE, **VISION, bos_token_id=None, eos_token_id=None, pad_token_id=None,
                  tie_word_embeddings=True, initializer_range=0.02, model_type="mllama_vision_model",
                  torch_dtype=dtype)
    return {"architectures": ["MllamaForConditionalGeneration"], "image_token_index": IMAGE_TOKEN,
            "model_type": "mllama", "text_config": dict(sorted(text.items())), "torch_dtype": dtype,
            "transformers_version": "4.45.0.dev0", "vision_config": dict(sorted(vision.items()))}


def hub_generation_config():
    """generation_config.json of the instruct model (sampling defaults; the references are greedy)."""
    return {"bos_token_id": BOS, "do_sample": True, "eos_token_id": STOP_IDS, "pad_token_id": PAD,
            "temperature": 0.6, "top_p": 0.9, "transformers_version": "4.45.0.dev0"}


def image_processor(tile=TILE, max_tiles=MAX_TILES):
    """The 11B's image processor (bilinear, CLIP mean/std), tile size 560 -> 112 (560 for the bench)."""
    return MllamaImageProcessor(size={"height": tile, "width": tile}, max_image_tiles=max_tiles, resample=2,
                                do_resize=True, do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
                                image_mean=CLIP_MEAN, image_std=CLIP_STD, do_pad=True, do_convert_rgb=True)


def preprocessor_config(tile=TILE):
    """The 11B preprocessor_config.json, tile size 560 -> 112 (560 for the bench checkpoint)."""
    return {"do_convert_rgb": True, "do_normalize": True, "do_pad": True, "do_rescale": True, "do_resize": True,
            "image_mean": CLIP_MEAN, "image_processor_type": "MllamaImageProcessor", "image_std": CLIP_STD,
            "max_image_tiles": MAX_TILES, "processor_class": "MllamaProcessor", "resample": 2,
            "rescale_factor": 0.00392156862745098, "size": {"height": tile, "width": tile}}


# ----------------------------------------------------------------------------------------------------------
# Checkpoints

def write_checkpoints(model, out):
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    tree_shapes = {k: v.shape for k, v in state.items()}
    hub_state = {hub_name(k): v for k, v in state.items()}

    # hub/: one float32 file with the legacy names, 4.45-style config.
    hub = os.path.join(out, "hub")
    save_file(hub_state, os.path.join(hub, "model.safetensors"), metadata={"format": "pt"})
    write_json(hub_config("float32"), os.path.join(hub, "config.json"))
    write_json(hub_generation_config(), os.path.join(hub, "generation_config.json"))
    write_json(preprocessor_config(), os.path.join(hub, "preprocessor_config.json"))

    # tree/: save_pretrained's own sharded output of a bfloat16 copy, then the keys renamed to the module
    # tree. transformers 5.23 reverses its load-time key mapping on save, so save_pretrained writes the
    # *legacy* names (checked below). bfloat16 keeps the fixtures small and covers bfloat16 weights.
    tree = os.path.join(out, "tree")
    copy = MllamaForConditionalGeneration(model.config).eval()
    copy.load_state_dict(model.state_dict())
    copy.to(torch.bfloat16).save_pretrained(tree, max_shard_size="600KB")
    del copy
    written = read_names(tree)
    assert set(written) == set(hub_state), "save_pretrained no longer writes the legacy names: revisit tree/"
    to_tree = {hub_name(k): k for k in state}
    with open(os.path.join(tree, "model.safetensors.index.json")) as f:
        index = json.load(f)
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) >= 2, shards
    for shard in shards:
        path = os.path.join(tree, shard)
        with safe_open(path, "pt") as f:
            meta = f.metadata()
        tensors = load_file(path)
        save_file({to_tree[k]: v for k, v in tensors.items()}, path, metadata=meta)
    index["weight_map"] = {to_tree[k]: v for k, v in sorted(index["weight_map"].items(), key=lambda kv: to_tree[kv[0]])}
    write_json(index, os.path.join(tree, "model.safetensors.index.json"))

    for d in (hub, tree):
        shutil.copy(TOKENIZER, d)
    print_layout("tree/ (module-tree names, as model.state_dict())", tree_shapes)
    print_layout("hub/ (legacy names)", {k: v.shape for k, v in hub_state.items()})
    b = read_names(tree)
    assert set(b) == set(state) and all(dt == "BF16" for _, dt in b.values())
    return shards


def check_reloads(model, out):
    """Every folder must load in transformers 5.23 back to exactly the same float32 weights (the bf16 one too:
    the weights are bf16-exact). Returns the loaded models, whose logits are compared with the reference later
    (that also checks the config of each folder: eps, layer lists, RoPE, ...)."""
    ref = model.state_dict()
    loaded = {}
    for d in ("hub", "tree"):
        m = MllamaForConditionalGeneration.from_pretrained(os.path.join(out, d), dtype=torch.float32,
                                                           attn_implementation="eager").eval()
        sd = m.state_dict()
        assert set(sd) == set(ref), d
        bad = [k for k in ref if not torch.equal(sd[k].float(), ref[k])]
        assert not bad, f"{d}: {bad[:5]}"
        inv = m.model.language_model.rotary_emb.inv_freq
        assert torch.equal(inv, model.model.language_model.rotary_emb.inv_freq), f"{d}: RoPE differs"
        loaded[d] = m
    print("reload: hub/ and tree/ (bfloat16) give bit-identical float32 weights and the same llama3 inv_freq")
    return loaded


# ----------------------------------------------------------------------------------------------------------
# Patches: Meta's conventions on top of transformers 5.23

@contextlib.contextmanager
def meta_intermediate_convention():
    """Meta's reference (and transformers 4.x, vLLM, TGI) take, for intermediate_layers_indices[i], the INPUT of
    local vision layer i. transformers 5.23's MllamaVisionEncoder appends each layer's OUTPUT to hidden_states and
    MllamaVisionModel.forward reads output.hidden_states[i], i.e. one layer later. This swaps in the 4.x encoder
    loop: record each layer's input, then the final output, so hidden_states[i] is the input of layer i again
    (the global encoder uses the same class, but its hidden_states are never read)."""
    original = modeling_mllama.MllamaVisionEncoder.forward

    def forward(self, hidden_states, attention_mask=None):
        states = ()
        for layer in self.layers:
            states = states + (hidden_states,)
            hidden_states = layer(hidden_states=hidden_states, attention_mask=attention_mask)
        states = states + (hidden_states,)
        return BaseModelOutput(last_hidden_state=hidden_states, hidden_states=states)

    modeling_mllama.MllamaVisionEncoder.forward = forward
    try:
        yield
    finally:
        modeling_mllama.MllamaVisionEncoder.forward = original


@contextlib.contextmanager
def meta_text_rows():
    """Meta's CrossAttention multiplies the attention output by full_text_row_masked_out_mask before wo, so rows
    with no image to attend to (the text before <|image|>) get no cross-attention update at all; transformers
    applies that mask only to the MLP branch, and such rows get a gated uniform average of the image values.
    o_proj has no bias, so masking its output is the same as masking its input. (The MLP branch is already
    masked by transformers, as by Meta.)"""
    original = modeling_mllama.MllamaCrossAttentionDecoderLayer.forward

    def forward(self, hidden_states, cross_attention_states, cross_attention_mask, attention_mask,
                full_text_row_masked_out_mask, position_ids=None, past_key_values=None, use_cache=False,
                position_embeddings=None, **kwargs):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, _ = self.cross_attn(hidden_states=hidden_states, attention_mask=cross_attention_mask,
                                           cross_attention_states=cross_attention_states,
                                           past_key_values=past_key_values, **kwargs)
        hidden_states = full_text_row_masked_out_mask[:, 0] * hidden_states  # the Meta difference
        hidden_states = residual + self.cross_attn_attn_gate.tanh() * hidden_states
        residual = hidden_states
        hidden_states = self.mlp(self.post_attention_layernorm(hidden_states))
        hidden_states = full_text_row_masked_out_mask[:, 0] * hidden_states
        return residual + self.cross_attn_mlp_gate.tanh() * hidden_states

    modeling_mllama.MllamaCrossAttentionDecoderLayer.forward = forward
    try:
        yield
    finally:
        modeling_mllama.MllamaCrossAttentionDecoderLayer.forward = original


# ----------------------------------------------------------------------------------------------------------
# Images

def plan(width, height):
    """Canvas, tile grid and resize target from the processor's own functions."""
    canvas_h, canvas_w = (int(x) for x in get_optimal_tiled_canvas(height, width, MAX_TILES, TILE))
    new_h, new_w = (int(x) for x in get_image_size_fit_to_canvas(height, width, canvas_h, canvas_w, TILE))
    return (canvas_h // TILE, canvas_w // TILE), (new_h, new_w)


def resized_u8(inputs, grid, new_hw):
    """The uint8 image after the processor's resize, before padding and normalisation, recovered from the tiles
    (the processor resizes uint8, so un-normalising and rounding is exact; asserted)."""
    pv = inputs["pixel_values"][0, 0]  # [4, 3, T, T]
    gh, gw = grid
    mean = torch.tensor(CLIP_MEAN).view(3, 1, 1)
    std = torch.tensor(CLIP_STD).view(3, 1, 1)
    canvas = pv[:gh * gw].view(gh, gw, 3, TILE, TILE).permute(2, 0, 3, 1, 4).reshape(3, gh * TILE, gw * TILE)
    u8 = torch.round((canvas * std + mean) * 255).clamp(0, 255).to(torch.uint8)
    assert torch.allclose((u8.float() / 255 - mean) / std, canvas, atol=1e-5), "tiles are not uint8-exact"
    new_h, new_w = new_hw
    pad = u8[:, new_h:, :].float().sum() + u8[:, :, new_w:].float().sum()
    assert pad == 0, "padding is not 0 before normalisation"
    assert torch.all(pv[gh * gw:] == 0), "unused tile slots are not exact zeros"
    return u8[:, :new_h, :new_w].permute(1, 2, 0).contiguous()


def direct_resize(processor, img):
    """The processor's resize() called directly (checks resized_u8 and gives the PIL backend's result)."""
    if isinstance(processor, MllamaImageProcessor):
        t = torch.from_numpy(np.array(img)).permute(2, 0, 1).contiguous()
        out, _ = processor.resize(t, size=SizeDict(height=TILE, width=TILE), max_image_tiles=MAX_TILES,
                                  resample=processor.resample)
        return out.permute(1, 2, 0).contiguous()
    arr = np.asarray(img).transpose(2, 0, 1)
    out, _ = processor.resize(arr, size=SizeDict(height=TILE, width=TILE), max_image_tiles=MAX_TILES,
                              resample=processor.resample)
    return torch.from_numpy(np.round(np.asarray(out, dtype=np.float32)).astype(np.uint8)).permute(1, 2, 0).contiguous()


# ----------------------------------------------------------------------------------------------------------
# Model runs

def model_inputs(inputs):
    return {k: inputs[k] for k in ("input_ids", "attention_mask", "pixel_values", "aspect_ratio_ids",
                                   "aspect_ratio_mask", "cross_attention_mask")}


def last_logits(model, inputs):
    with torch.no_grad():
        return model(**model_inputs(inputs)).logits[0, -1].float().contiguous()


def greedy(model, inputs):
    """16 greedy tokens (and the smallest top-1 - top-2 logit gap on the way) twice: a plain argmax loop over full forwards (no cache, the cross-attention mask row of
    each new token a copy of the last one, as transformers does) and model.generate with its KV cache."""
    base = model_inputs(inputs)
    ids, mask, cam = base["input_ids"], base["attention_mask"], base["cross_attention_mask"]
    tokens, margins = [], []
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            logits = model(**dict(base, input_ids=ids, attention_mask=mask, cross_attention_mask=cam)).logits[0, -1]
            top2 = torch.topk(logits, 2).values
            margins.append(float(top2[0] - top2[1]))
            nxt = int(torch.argmax(logits))
            tokens.append(nxt)
            ids = torch.cat([ids, torch.tensor([[nxt]])], 1)
            mask = torch.cat([mask, torch.ones(1, 1, dtype=mask.dtype)], 1)
            cam = torch.cat([cam, cam[:, -1:]], 1)
        out = model.generate(**base, do_sample=False, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS,
                             eos_token_id=STOP_IDS, pad_token_id=PAD)
    generated = out[0, base["input_ids"].shape[1]:].tolist()
    assert generated == tokens, f"generate {generated} != argmax loop {tokens}"
    # No stop token: then min_new_tokens (which masks the stop ids) and "ignore eos" give the same tokens.
    assert not set(tokens) & set(STOP_IDS), f"a stop token was generated: {tokens}"
    return tokens, min(margins)


def cross_attention_states(model, inputs):
    """Projector output for all 4 tile slots, [4*65, 64], CLS first in each tile."""
    with torch.no_grad():
        vision = model.model.vision_model(pixel_values=inputs["pixel_values"],
                                          aspect_ratio_ids=inputs["aspect_ratio_ids"],
                                          aspect_ratio_mask=inputs["aspect_ratio_mask"]).last_hidden_state
        states = model.model.multi_modal_projector(vision)
    return states.reshape(-1, states.shape[-1]).float().contiguous()


# ----------------------------------------------------------------------------------------------------------

def main(out=OUT):
    torch.manual_seed(SEED)
    common.make_dirs(out, ("hub", "tree", "images", "reference"))

    tok = Tokenizer.from_file(TOKENIZER)
    assert tok.token_to_id("<|image|>") == IMAGE_TOKEN and tok.token_to_id("<|begin_of_text|>") == BOS
    config = MllamaConfig(vision_config=VISION, text_config=TEXT, image_token_index=IMAGE_TOKEN)
    config._attn_implementation = "eager"
    model = MllamaForConditionalGeneration(config).eval()
    model.set_attn_implementation("eager")
    assert model.model.vision_model.config._attn_implementation == "eager"
    assert model.model.language_model.config._attn_implementation == "eager"
    randomize(model, SEED)
    assert model.lm_head.weight.shape[0] == 1208 and model.model.language_model.embed_tokens.weight.shape[0] == 1216

    shards = write_checkpoints(model, out)
    reloaded = check_reloads(model, out)

    processor = MllamaProcessor(image_processor=image_processor(),
                                tokenizer=PreTrainedTokenizerFast(tokenizer_file=TOKENIZER, bos_token="<|begin_of_text|>",
                                                                  eos_token="<|eot_id|>"))
    pil_processor = MllamaImageProcessorPil(size={"height": TILE, "width": TILE}, max_image_tiles=MAX_TILES,
                                            resample=2, image_mean=CLIP_MEAN, image_std=CLIP_STD)
    supported = get_all_supported_aspect_ratios(MAX_TILES)
    summary = {"transformers": transformers.__version__, "torch": torch.__version__, "seed": SEED,
               "tile_size": TILE, "max_tiles": MAX_TILES, "new_tokens": NEW_TOKENS, "image_token_id": IMAGE_TOKEN,
               "stop_ids": STOP_IDS, "tree_shards": shards,
               "intermediate_layers_indices": VISION["intermediate_layers_indices"],
               "convention": "references use Meta's intermediate-layer convention (input of local layer i); "
                             "greedy_output_convention uses unpatched transformers 5.23 (output of layer i)",
               "image_processor": "MllamaImageProcessor (torchvision backend, transformers 5.23 default)",
               "images": {}}
    convention_stored = None
    for name, (width, height, seed, font_size, lines, user, expect_grid) in IMAGES.items():
        img = render(width, height, seed, font_size, lines)
        img.save(os.path.join(out, "images", name + ".png"))
        grid, new_hw = plan(width, height)
        assert grid == expect_grid, f"{name}: grid {grid}, expected {expect_grid}"
        if name == "wide_1x3":
            assert new_hw == (height, width), f"{name} must be padded only, resize target {new_hw}"
        user_text = user_text_for(user)
        prompt = chat_prompt(user_text)
        inputs = processor(images=[img], text=prompt, add_special_tokens=False, return_tensors="pt")
        ids = inputs["input_ids"][0]
        assert ids.tolist() == tok.encode(prompt, add_special_tokens=False).ids
        assert ids.tolist().count(BOS) == 1 and ids.tolist().count(IMAGE_TOKEN) == 1
        tiles = grid[0] * grid[1]
        ar_id = supported.index(grid) + 1
        assert inputs["aspect_ratio_ids"].tolist() == [[ar_id]]
        assert inputs["aspect_ratio_mask"][0, 0].tolist() == [1] * tiles + [0] * (MAX_TILES - tiles)

        # The processor's resize, byte for byte, before padding and normalisation.
        u8 = resized_u8(inputs, grid, new_hw)
        assert torch.equal(u8, direct_resize(processor.image_processor, img)), f"{name}: resize() disagrees"
        Image.fromarray(u8.numpy()).save(os.path.join(out, "reference", name + ".resized.png"))
        u8_pil = direct_resize(pil_processor, img)
        pil_differs = int((u8_pil.int() - u8.int()).abs().gt(0).sum())
        if pil_differs:
            Image.fromarray(u8_pil.numpy()).save(os.path.join(out, "reference", name + ".resized_pil.png"))

        with meta_intermediate_convention():
            logits = last_logits(model, inputs)
            tokens, margin = greedy(model, inputs)
            states = cross_attention_states(model, inputs)
            with meta_text_rows():
                logits_meta = last_logits(model, inputs)
                tokens_meta, _ = greedy(model, inputs)
        logits_output = last_logits(model, inputs)
        tokens_output, _ = greedy(model, inputs)
        states_output = cross_attention_states(model, inputs)
        assert len(set(tokens)) >= 8, f"{name}: greedy decoding loops on a few tokens: {tokens}"
        assert not torch.equal(states, states_output), "the two conventions give the same vision output"
        assert not torch.allclose(logits, logits_output, atol=1e-4), f"{name}: conventions give the same logits"
        assert not torch.allclose(logits, logits_meta, atol=1e-4), f"{name}: Meta's row mask changes nothing"
        # Each folder, read back by transformers (the bf16 one upcast to float32), reproduces the reference.
        with meta_intermediate_convention():
            for d, m in reloaded.items():
                assert torch.equal(last_logits(m, inputs), logits), f"{name}: {d}/ gives other logits"

        tensors = {"input_ids": ids.to(torch.int64).contiguous(),
                   "cross_attention_mask": inputs["cross_attention_mask"][0, :, 0].to(torch.int64).contiguous(),
                   "aspect_ratio_ids": inputs["aspect_ratio_ids"][0].to(torch.int64).contiguous(),
                   "aspect_ratio_mask": inputs["aspect_ratio_mask"][0, 0].to(torch.int64).contiguous(),
                   "num_tiles": torch.tensor(tiles, dtype=torch.int64),
                   "logits": logits,
                   "greedy": torch.tensor(tokens, dtype=torch.int64)}
        if name in ("one_tile", "grid_2x2"):
            tensors["cross_attention_states"] = states
        if name == "grid_2x2":
            tensors["logits_meta_rows"] = logits_meta
        if convention_stored is None and tokens_output != tokens:
            tensors["greedy_output_convention"] = torch.tensor(tokens_output, dtype=torch.int64)
            convention_stored = name
        save_file(tensors, os.path.join(out, "reference", name + ".safetensors"))

        cam = inputs["cross_attention_mask"][0, :, 0]
        first_image_row = int(ids.tolist().index(IMAGE_TOKEN))
        assert cam[:first_image_row].sum() == 0 and torch.all(cam[first_image_row:, :tiles] == 1)
        assert torch.all(cam[:, tiles:] == 0)
        summary["images"][name] = {
            "size_wh": [width, height], "user_text": user_text, "grid_hw": list(grid), "num_tiles": tiles,
            "aspect_ratio_id": ar_id, "resized_hw": list(new_hw), "resized_by": "none" if new_hw == (height, width)
            else ("upscale" if new_hw[0] > height else "downscale"), "prompt_tokens": len(ids),
            "image_token_position": first_image_row, "greedy": tokens, "greedy_output_convention": tokens_output,
            "greedy_meta_rows": tokens_meta, "greedy_min_top2_logit_gap": round(margin, 6), "greedy_text": tok.decode(tokens, skip_special_tokens=False),
            "logits_argmax": int(torch.argmax(logits)), "pil_resize_bytes_differing": pil_differs,
            "max_abs_logit_diff_output_convention": float((logits - logits_output).abs().max()),
            "max_abs_logit_diff_meta_rows": float((logits - logits_meta).abs().max())}
        print(f"{name}: {width}x{height} -> grid {grid} (aspect id {ar_id}), resized to {new_hw[1]}x{new_hw[0]}, "
              f"{len(ids)} prompt tokens, image at {first_image_row}, PIL-resize bytes differing {pil_differs}\n"
              f"    greedy (Meta)     {tokens}\n    greedy (5.23 out) {tokens_output}\n"
              f"    greedy (Meta rows){tokens_meta}\n"
              f"    |dlogits| output convention {summary['images'][name]['max_abs_logit_diff_output_convention']:.4f}, "
              f"Meta rows {summary['images'][name]['max_abs_logit_diff_meta_rows']:.4f}")
    assert convention_stored is not None, "the output convention never changes the greedy tokens: change the seed"
    summary["greedy_output_convention_in"] = convention_stored
    write_json(summary, os.path.join(out, "reference", "summary.json"))
    common.print_sizes(out)
