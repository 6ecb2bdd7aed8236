"""Tiny random Qwen3-VL checkpoints and reference outputs from transformers, for the parity tests.

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_fixtures.py qwen3vl

Nothing is downloaded. With a fixed seed it builds three tiny Qwen3VLForConditionalGeneration models (float32,
eager attention) shaped like the real ones in everything that matters to a port: a 4-block vision tower (hidden
32, 2 heads of 16, gelu_pytorch_tanh MLP with biases, LayerNorm) on 16 px patches with a bias in the patch
embedding, a learned 8x8 grid of position embeddings (num_position_embeddings 64) resampled bilinearly
(align_corners) to each image's patch grid and added after the patch embedding, 2D rotary embeddings, 2x2 patch
merging to the text width (LayerNorm before the shuffle, exact GELU) and DeepStack mergers (LayerNorm after the
shuffle) on the blocks of deepstack_visual_indexes, whose outputs are added to the image positions of the hidden
state after decoder layers 0, 1, ... (in that order, whatever the block indexes are); a 3-layer Qwen3 decoder
(hidden 64, 4 query heads of head_dim 32 where 64 / 4 would be 16, RMSNorm on every query and key head, no
biases) with interleaved multimodal RoPE (mrope_section [6, 5, 5] over the 16 frequencies, mrope_interleaved,
theta 5e6: frequency j rotates by the height position when j % 3 == 1 and j < 15, by the width position when
j % 3 == 2 and j < 15, else by the temporal one). The three models differ so that the parity tests cover both
file layouts, tied and untied embeddings, GQA and MQA, and several DeepStack sets:
  hub        tied embeddings, 2 key/value heads (GQA), deepstack_visual_indexes [0, 2]
  tf5        untied, 1 key/value head (MQA), deepstack_visual_indexes [1]
  tf5-deep3  untied, 2 key/value heads, deepstack_visual_indexes [0, 1, 3] (all three decoder layers get one)
The tokenizer is tests/fixtures/tokenizers/tiny-qwen plus the five vision tokens as special added tokens after
its last id (1123..1127; the real ids are 151652..151656 in the same order), the embedding table padded to 1152
rows (the release pads 151669 tokens to 151936). Random weights are drawn to a realistic scale (the decoder's MLP
output x6 as in qwen25vl, and the position table at std 0.5, so that the resampled embeddings are about half the
patch embedding's size), then rounded to bfloat16, so a bfloat16 copy and a float32 copy hold the same values. Checked on the way: each folder loads in transformers 5.23 with nothing
missing or unexpected and gives back exactly the saved weights; the chat template is byte for byte the release's
(SHA-256 pinned) and the processors render it to EXPECTED_PROMPT; the 3D positions equal those of the release's
algorithm; the rotary tables equal the interleaving rule above; the position embeddings are what is added after
the patch embedding, and equal both F.interpolate(bilinear, align_corners) of the 8x8 table and the release's
(transformers 4.57) linspace algorithm; a hand-written decoder loop (image embeddings scattered, DeepStack
features added after the first k layers) gives the model's logits; generate() equals an argmax loop of full
forwards; the cached decode step equals a full forward.
Writes under tests/fixtures/qwen3vl/:
  hub/        the layout of the Qwen3-VL release on the Hub (as transformers 4.57 wrote it): config.json with a
              nested text_config (model_type qwen3_vl_text, rope_theta + rope_scaling {mrope_interleaved,
              mrope_section, rope_type default}, tie_word_embeddings true as in the 4B release) and vision_config
              (model_type "qwen3_vl", the release's quirk, deepstack_visual_indexes, num_position_embeddings);
              preprocessor_config.json (the release's keys: size {longest_edge 131072 = 128*32*32, shortest_edge
              4096} so that the large image is scaled down and the tiny one up, Qwen2VLImageProcessorFast, mean =
              std = 0.5), video_preprocessor_config.json (the release's, needed by AutoProcessor),
              chat_template.json (the release's template), tokenizer.json, vocab.json + merges.txt,
              tokenizer_config.json, generation_config.json; bfloat16 weights in 2 shards +
              model.safetensors.index.json under the release's names (model.language_model.*, model.visual.*),
              no lm_head.weight (tied)
  tf5/        exactly what transformers 5.23's save_pretrained writes (model + processor read from hub/) for the
              tf5 model, saved in bfloat16 (the values are bfloat16-rounded already; the references load them in
              float32): rope_parameters, processor_config.json, chat_template.jinja, ...
  tf5-deep3/  the same for the tf5-deep3 model
  images/     four synthetic document pages: small 150x97 (not a multiple of 32), mid 260x200, large 500x400
              (above max_pixels: scaled down), tiny 40x30 (below min_pixels: scaled up)
  reference/  pixels_<image>.safetensors: what the image processors give, identical for the three folders
                (asserted), so stored once: image_grid_thw [1, 3], resized_pil / resized_torch uint8 [H, W, 3]
                (after resize, before rescale/normalize), resized_pil_classic where Pillow 13's resize differs
                from the classic order (horizontal pass, then vertical: Pillow <= 12 and docsift; small only),
                and for tiny only pixel_values_pil
                [patches, 1536] (Qwen2VLImageProcessorPil, PIL bicubic) and pixel_values_torch
                (Qwen2VLImageProcessor, the torchvision backend; 5.23 has no ...Fast class: the hub folder's
                Qwen2VLImageProcessorFast loads it). The float pixels of small, mid and large are left out: they
                are exactly (to float rounding, asserted) the documented function of the uint8 resize
                (2 * x / 255 - 1 in the patch order of qwen25vl.patchify with patch 16), checked in full on tiny
              <layout>_<image>.safetensors (layout hub, tf5 or tf5-deep3; tf5-deep3 on small and mid only): the
                model run on the pixels of the processor AutoProcessor picks for that folder: input_ids [T],
                mm_token_type_ids [T], position_ids [3, T] (get_rope_index), rope_deltas (scalar), pos_embeds
                [patches, 32] (the resampled position embeddings added after the patch embedding, in the
                processor's merge-block patch order), vision_hidden [patches, 32] (last block output), deepstack
                [k, merged, 64] (the DeepStack merger outputs in deepstack_visual_indexes order), image_embeds
                [merged, 64] (merger output), logits [vocab] of the last prompt position, greedy [12] (generate,
                do_sample False, new tokens only), logits_step2 [vocab] (after feeding greedy[0] with the KV cache,
                position T + rope_deltas on all three axes)
              summary.json: shapes, grids, processors, pil/torch differences, the models' differences (tying,
                key/value heads, DeepStack indexes), greedy tokens and text, versions, tensor names
  config-8b/  Qwen3-VL-8B-Instruct's config.json and preprocessor_config.json as the Hub has them (no tokenizer),
              and tensors.json: every stored tensor's name and shape (bfloat16) and the release's shard count,
              from which tests/e2e/test_cli.cpp writes a sparse checkpoint of the real shapes for `inspect`
  config-4b/  the same for Qwen3-VL-4B-Instruct (tied: no lm_head.weight)
"""
import copy
import hashlib
import json
import math
import os
import shutil

import numpy as np
from PIL import Image
import torch
import torch.nn.functional as F
from safetensors.torch import save_file
import transformers
from transformers import (AutoImageProcessor, AutoProcessor, GenerationConfig, Qwen3VLConfig,
                          Qwen3VLForConditionalGeneration)
from transformers.vision_utils import get_vision_interpolation_indices_and_weights

from . import common, qwen25vl
from .common import TOKENIZERS, read_names, render
from .qwen25vl import (BOS, IM_END, IMAGE_PAD, PAD, STOP_IDS, TOKENIZER_SIZE, VIDEO_PAD, VISION_END, VISION_PAD,
                       VISION_START, VISION_TOKENS, VOCAB, dump)

OUT = os.path.join(common.FIXTURES, "qwen3vl")
# Chosen among seeds 1-24: for the three models and all their images (10 runs) the 12 greedy tokens hold >= 10
# distinct ids, no stop id and no padding row, and the smallest top-1 - top-2 logit gap over all 120 greedy steps
# is 0.047 (most seeds have one under 0.01 or a run that stops or repeats), so a float32 port reproduces the
# tokens with room to spare. Each model draws from SEED + its offset in LAYOUTS.
SEED = 3
NEW_TOKENS = 12
QUESTION = "Extract the fields."
MIN_PIXELS, MAX_PIXELS = 4096, 128 * 32 * 32
PATCH = 16
MEAN = STD = [0.5, 0.5, 0.5]

# Qwen3-VL-8B-Instruct's chat_template.json (the 4B and the other Instruct releases have the same one). Unlike
# Qwen2.5-VL's, it adds no default system message.
CHAT_TEMPLATE = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {%- if messages[0].content is string %}
            {{- messages[0].content }}
        {%- else %}
            {%- for content in messages[0].content %}
                {%- if 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with \
function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within \
<tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\
\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\\n' }}
        {%- if messages[0].content is string %}
            {{- messages[0].content }}
        {%- else %}
            {%- for content in messages[0].content %}
                {%- if 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- set image_count = namespace(value=0) %}
{%- set video_count = namespace(value=0) %}
{%- for message in messages %}
    {%- if message.role == "user" %}
        {{- '<|im_start|>' + message.role + '\\n' }}
        {%- if message.content is string %}
            {{- message.content }}
        {%- else %}
            {%- for content in message.content %}
                {%- if content.type == 'image' or 'image' in content or 'image_url' in content %}
                    {%- set image_count.value = image_count.value + 1 %}
                    {%- if add_vision_id %}Picture {{ image_count.value }}: {% endif -%}
                    <|vision_start|><|image_pad|><|vision_end|>
                {%- elif content.type == 'video' or 'video' in content %}
                    {%- set video_count.value = video_count.value + 1 %}
                    {%- if add_vision_id %}Video {{ video_count.value }}: {% endif -%}
                    <|vision_start|><|video_pad|><|vision_end|>
                {%- elif 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role + '\\n' }}
        {%- if message.content is string %}
            {{- message.content }}
        {%- else %}
            {%- for content_item in message.content %}
                {%- if 'text' in content_item %}
                    {{- content_item.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if (loop.first and message.content) or (not loop.first) %}
                    {{- '\\n' }}
                {%- endif %}
                {%- if tool_call.function %}
                    {%- set tool_call = tool_call.function %}
                {%- endif %}
                {{- '<tool_call>\\n{"name": "' }}
                {{- tool_call.name }}
                {{- '", "arguments": ' }}
                {%- if tool_call.arguments is string %}
                    {{- tool_call.arguments }}
                {%- else %}
                    {{- tool_call.arguments | tojson }}
                {%- endif %}
                {{- '}\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {%- if message.content is string %}
            {{- message.content }}
        {%- else %}
            {%- for content in message.content %}
                {%- if content.type == 'image' or 'image' in content or 'image_url' in content %}
                    {%- set image_count.value = image_count.value + 1 %}
                    {%- if add_vision_id %}Picture {{ image_count.value }}: {% endif -%}
                    <|vision_start|><|image_pad|><|vision_end|>
                {%- elif content.type == 'video' or 'video' in content %}
                    {%- set video_count.value = video_count.value + 1 %}
                    {%- if add_vision_id %}Video {{ video_count.value }}: {% endif -%}
                    <|vision_start|><|video_pad|><|vision_end|>
                {%- elif 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
# The release's template is 5292 bytes with this SHA-256 (Qwen/Qwen3-VL-8B-Instruct-GGUF's chat template, the
# same text as the Instruct releases' chat_template.json).
CHAT_TEMPLATE_SHA256 = "3636d0f0bd6bef02654cdffdc447b79cb2cef8ab02cc75267345946291a489e4"
MESSAGES = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": QUESTION}]}]
EXPECTED_PROMPT = ("<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>" + QUESTION
                   + "<|im_end|>\n<|im_start|>assistant\n")

VISION = dict(depth=4, hidden_size=32, num_heads=2, intermediate_size=64, hidden_act="gelu_pytorch_tanh",
              patch_size=PATCH, spatial_merge_size=2, temporal_patch_size=2, in_channels=3, out_hidden_size=64,
              num_position_embeddings=64)
MROPE_SECTION = [6, 5, 5]
ROPE_THETA = 5000000
TEXT = dict(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=3, num_attention_heads=4, head_dim=32,
            intermediate_size=128, hidden_act="silu", rms_norm_eps=1e-6, max_position_embeddings=262144,
            attention_bias=False, bos_token_id=BOS, eos_token_id=IM_END,
            rope_parameters={"rope_type": "default", "rope_theta": float(ROPE_THETA), "mrope_section": MROPE_SECTION,
                             "mrope_interleaved": True})
IMAGES = {  # name: (width, height, seed, font size, lines, expected resized (height, width)), as qwen25vl's
    "small": qwen25vl.IMAGES["small"][:5] + ((96, 160),),
    "mid": qwen25vl.IMAGES["mid"][:5] + ((192, 256),),
    "large": qwen25vl.IMAGES["large"][:5] + ((320, 384),),
    "tiny": qwen25vl.IMAGES["tiny"][:5] + ((64, 96),),
}
FLOAT_PIXELS = ("tiny",)  # the image whose float pixel values are stored (the others: their uint8 resize)
# layout -> (tie_word_embeddings, num_key_value_heads, deepstack_visual_indexes, images, seed offset)
LAYOUTS = {
    "hub": (True, 2, [0, 2], tuple(IMAGES), 0),
    "tf5": (False, 1, [1], tuple(IMAGES), 1),
    "tf5-deep3": (False, 2, [0, 1, 3], ("small", "mid"), 2),
}


# ----------------------------------------------------------------------------------------------------------
# Model

def build_config(tie, kv_heads, deepstack):
    config = Qwen3VLConfig(vision_config=dict(VISION, deepstack_visual_indexes=deepstack),
                           text_config=dict(TEXT, num_key_value_heads=kv_heads), image_token_id=IMAGE_PAD,
                           video_token_id=VIDEO_PAD, vision_start_token_id=VISION_START,
                           vision_end_token_id=VISION_END, tie_word_embeddings=tie)
    config._attn_implementation = "eager"
    return config


def randomize(model, seed):
    """Weights of a realistic scale (common.randomize), then rounded to bf16."""
    def rule(name, p, g):
        if name.endswith("pos_embed.weight"):  # as strong as the patch embedding, so the resampling matters
            return torch.randn(p.shape, generator=g) * 0.5
        return None
    g = common.randomize(model, seed, rule)
    with torch.no_grad():
        # A strong decoder MLP, as in qwen25vl: otherwise greedy decoding repeats one token.
        for layer in model.model.language_model.layers:
            layer.mlp.down_proj.weight.mul_(6.0)
    tables = [model.model.language_model.embed_tokens.weight]
    if not model.config.tie_word_embeddings:
        tables.append(model.lm_head.weight)
    common.equal_norm_rows(tables, g, unused_from=TOKENIZER_SIZE)
    common.round_to_bfloat16(model)


def build_model(layout, seed):
    tie, kv_heads, deepstack, _, offset = LAYOUTS[layout]
    torch.manual_seed(seed + offset)
    model = Qwen3VLForConditionalGeneration(build_config(tie, kv_heads, deepstack)).eval()
    randomize(model, seed + offset)
    model.set_attn_implementation("eager")
    tied = model.lm_head.weight.data_ptr() == model.model.language_model.embed_tokens.weight.data_ptr()
    assert tied == tie, f"{layout}: lm_head tying is {tied}"
    return model


# ----------------------------------------------------------------------------------------------------------
# Configs

REAL_IDS = dict(bos=151643, eos=151645, ids=[151652, 151653, 151654, 151655, 151656])
REAL = {  # shape -> (text, vision, vocab, tie, parameters in billions), as in the two releases' config.json
    "8b": (dict(hidden_size=4096, intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32,
                num_key_value_heads=8, head_dim=128, max_position_embeddings=262144, mrope_section=[24, 20, 20]),
           dict(depth=27, hidden_size=1152, intermediate_size=4304, num_heads=16, out_hidden_size=4096,
                num_position_embeddings=2304, deepstack_visual_indexes=[8, 16, 24]), 151936, False, 8.77),
    "4b": (dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32,
                num_key_value_heads=8, head_dim=128, max_position_embeddings=262144, mrope_section=[24, 20, 20]),
           dict(depth=24, hidden_size=1024, intermediate_size=4096, num_heads=16, out_hidden_size=2560,
                num_position_embeddings=2304, deepstack_visual_indexes=[5, 11, 17]), 151936, True, 4.44),
}


def hub_config(text, vision, vocab, tie, ids):
    """config.json as Qwen published it (written by transformers 4.57.0.dev0): the text keys nested with
    rope_theta + rope_scaling, the vision_config's model_type "qwen3_vl", keys in alphabetical order. The tied
    (4B) release repeats tie_word_embeddings inside text_config; the untied 8B has it at the top level only."""
    text_config = {
        "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": ids["bos"], "dtype": "bfloat16",
        "eos_token_id": ids["eos"], "head_dim": text["head_dim"], "hidden_act": "silu",
        "hidden_size": text["hidden_size"], "initializer_range": 0.02, "intermediate_size": text["intermediate_size"],
        "max_position_embeddings": text["max_position_embeddings"], "model_type": "qwen3_vl_text",
        "num_attention_heads": text["num_attention_heads"], "num_hidden_layers": text["num_hidden_layers"],
        "num_key_value_heads": text["num_key_value_heads"], "rms_norm_eps": 1e-06,
        "rope_scaling": {"mrope_interleaved": True, "mrope_section": text["mrope_section"], "rope_type": "default"},
        "rope_theta": ROPE_THETA}
    if tie:
        text_config["tie_word_embeddings"] = True
    text_config.update({"use_cache": True, "vocab_size": vocab})
    vision_config = {
        "deepstack_visual_indexes": vision["deepstack_visual_indexes"], "depth": vision["depth"],
        "hidden_act": "gelu_pytorch_tanh", "hidden_size": vision["hidden_size"], "in_channels": 3,
        "initializer_range": 0.02, "intermediate_size": vision["intermediate_size"], "model_type": "qwen3_vl",
        "num_heads": vision["num_heads"], "num_position_embeddings": vision["num_position_embeddings"],
        "out_hidden_size": vision["out_hidden_size"], "patch_size": PATCH, "spatial_merge_size": 2,
        "temporal_patch_size": 2}
    return {"architectures": ["Qwen3VLForConditionalGeneration"], "image_token_id": ids["ids"][3],
            "model_type": "qwen3_vl", "text_config": text_config, "tie_word_embeddings": tie,
            "transformers_version": "4.57.0.dev0", "video_token_id": ids["ids"][4], "vision_config": vision_config,
            "vision_end_token_id": ids["ids"][1], "vision_start_token_id": ids["ids"][0]}


def real_config(shape):
    text, vision, vocab, tie, _ = REAL[shape]
    return hub_config(text, vision, vocab, tie, REAL_IDS)


def preprocessor_config(shortest=65536, longest=16777216):
    """preprocessor_config.json of the Qwen3-VL releases (sizes in pixels: min_pixels 256*256, max 4096*4096)."""
    return {"size": {"longest_edge": longest, "shortest_edge": shortest}, "patch_size": PATCH,
            "temporal_patch_size": 2, "merge_size": 2, "image_mean": MEAN, "image_std": STD,
            "processor_class": "Qwen3VLProcessor", "image_processor_type": "Qwen2VLImageProcessorFast"}


def video_preprocessor_config():
    """video_preprocessor_config.json of the releases (AutoProcessor needs one; the images do not use it)."""
    return {"size": {"longest_edge": 25165824, "shortest_edge": 4096}, "patch_size": PATCH,
            "temporal_patch_size": 2, "merge_size": 2, "image_mean": MEAN, "image_std": STD,
            "processor_class": "Qwen3VLProcessor", "video_processor_type": "Qwen3VLVideoProcessor"}


def release_generation_config(bos, eos, pad):
    """generation_config.json of the Instruct releases (sampling defaults; the references are greedy)."""
    return {"bos_token_id": bos, "pad_token_id": pad, "do_sample": True, "eos_token_id": eos, "top_k": 20,
            "top_p": 0.8, "repetition_penalty": 1.0, "temperature": 0.7, "transformers_version": "4.56.0"}


def tokenizer_config(tok):
    """qwen25vl's tokenizer_config.json with this release's template and context length."""
    return dict(qwen25vl.tokenizer_config(tok), chat_template=CHAT_TEMPLATE, model_max_length=262144)


# ----------------------------------------------------------------------------------------------------------
# Checkpoints

def write_hub(model, folder, tok):
    os.makedirs(folder)
    # The release's tensor names are transformers' module names (model.language_model.*, model.visual.*).
    state = {k: v.to(torch.bfloat16) for k, v in model.state_dict().items() if k != "lm_head.weight"}
    order = sorted(state, key=lambda n: (n.startswith("model.visual."), n))  # language model first
    shards = qwen25vl.write_sharded({n: state[n] for n in order}, folder, 2)
    text = dict(TEXT, num_key_value_heads=model.config.text_config.num_key_value_heads, mrope_section=MROPE_SECTION)
    vision = dict(VISION, deepstack_visual_indexes=list(model.config.vision_config.deepstack_visual_indexes))
    ids = dict(bos=BOS, eos=IM_END, ids=[VISION_START, VISION_END, VISION_PAD, IMAGE_PAD, VIDEO_PAD])
    dump(hub_config(text, vision, VOCAB, True, ids), os.path.join(folder, "config.json"))
    dump(release_generation_config(BOS, STOP_IDS, PAD), os.path.join(folder, "generation_config.json"))
    dump(preprocessor_config(MIN_PIXELS, MAX_PIXELS), os.path.join(folder, "preprocessor_config.json"))
    dump(video_preprocessor_config(), os.path.join(folder, "video_preprocessor_config.json"))
    dump({"chat_template": CHAT_TEMPLATE}, os.path.join(folder, "chat_template.json"))
    dump(tokenizer_config(tok), os.path.join(folder, "tokenizer_config.json"))
    tok.save(os.path.join(folder, "tokenizer.json"))
    for fn in ("vocab.json", "merges.txt"):  # the BPE of tiny-qwen; the added tokens live in tokenizer_config
        shutil.copy(os.path.join(TOKENIZERS, "tiny-qwen-slow", fn), folder)
    return shards


def write_tf5(model, folder, hub_folder):
    """save_pretrained's own output: the model in bfloat16 (its values are bfloat16-rounded already, so nothing
    changes but the size on disk), and the processor read from hub/."""
    model.generation_config = GenerationConfig.from_pretrained(hub_folder)
    copy.deepcopy(model).to(torch.bfloat16).save_pretrained(folder)
    AutoProcessor.from_pretrained(hub_folder).save_pretrained(folder)


def rope_tables(inv_freq, position_ids):
    """cos and sin of the interleaved multimodal RoPE, written out: frequency j takes the height position when
    j % 3 == 1 and j < 3 * mrope_section[1], the width position when j % 3 == 2 and j < 3 * mrope_section[2],
    else the temporal one; the halves repeat (rotate_half convention). position_ids [3, T] -> [T, head_dim]."""
    j = torch.arange(len(inv_freq))
    axis = torch.zeros_like(j)
    axis[(j % 3 == 1) & (j < 3 * MROPE_SECTION[1])] = 1
    axis[(j % 3 == 2) & (j < 3 * MROPE_SECTION[2])] = 2
    angles = position_ids.double()[axis].T * inv_freq.double()  # [T, hd/2]
    angles = torch.cat([angles, angles], -1)
    return angles.cos(), angles.sin()


def load(folder, reference):
    """from_pretrained in float32; the weights must come back exactly, with nothing missing or left over."""
    model, info = Qwen3VLForConditionalGeneration.from_pretrained(
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
    lm, visual = model.model.language_model, model.model.visual
    for a, b in ((lm.rotary_emb, reference.model.language_model.rotary_emb),
                 (visual.rotary_pos_emb, reference.model.visual.rotary_pos_emb)):
        assert torch.equal(a.inv_freq, b.inv_freq), f"{folder}: RoPE differs"
    assert lm.rotary_emb.mrope_section == MROPE_SECTION and lm.config.rope_parameters["mrope_interleaved"]
    assert lm.config.rope_parameters["rope_theta"] == ROPE_THETA and lm.config.head_dim == 32
    inv = 1.0 / (ROPE_THETA ** (torch.arange(0, 32, 2, dtype=torch.float) / 32))
    assert torch.equal(lm.rotary_emb.inv_freq, inv)
    pos = torch.stack([torch.arange(40), 100 + torch.arange(40) % 7, 200 + torch.arange(40) // 7])
    cos, sin = lm.rotary_emb(torch.zeros(1, dtype=torch.float32), pos[:, None])
    want_cos, want_sin = rope_tables(inv, pos)
    assert torch.allclose(cos[0].double(), want_cos, atol=1e-5) and torch.allclose(sin[0].double(), want_sin, atol=1e-5)
    v = model.config.vision_config
    assert (v.depth, v.num_position_embeddings, v.patch_size, visual.num_grid_per_side) == (4, 64, PATCH, 8)
    assert list(v.deepstack_visual_indexes) == list(reference.config.vision_config.deepstack_visual_indexes)
    assert (visual.interpolation_mode, visual.interpolation_align_corners) == ("bilinear", True)
    assert model.config.text_config.rms_norm_eps == 1e-6 and model.config.image_token_id == IMAGE_PAD
    return model


# ----------------------------------------------------------------------------------------------------------
# Images

def pixels(folder, img, expect_hw):
    """Both backends' pixel values, grid and resize for one folder's image processor settings."""
    out = {}
    for backend in ("pil", "torch"):
        ip = AutoImageProcessor.from_pretrained(folder, backend="pil" if backend == "pil" else "torchvision")
        assert (ip.size["shortest_edge"], ip.size["longest_edge"]) == (MIN_PIXELS, MAX_PIXELS)
        assert ip.resample == 3 and list(ip.image_mean) == MEAN and list(ip.image_std) == STD
        assert (ip.patch_size, ip.merge_size, ip.temporal_patch_size) == (PATCH, 2, 2)
        enc = ip(images=[img], return_tensors="pt")
        u8 = qwen25vl.resized(ip, img)
        assert tuple(u8.shape[:2]) == expect_hw, (u8.shape, expect_hw)
        pv = enc["pixel_values"].float().contiguous()
        # The pixel values are exactly (to float rounding) the documented function of the uint8 resize.
        want = qwen25vl.patchify(u8, PATCH, MEAN, STD)
        assert torch.allclose(want, pv, atol=2e-6, rtol=0), float((want - pv).abs().max())
        out[f"pixel_values_{backend}"] = pv
        out[f"resized_{backend}"] = u8
        out[f"class_{backend}"] = type(ip).__name__
        if backend == "pil":
            # Pillow up to 12 resamples horizontally, then vertically; Pillow 13 (the one here) sometimes takes
            # the vertical pass first, which changes some bytes. The classic order, exact (a one-axis resize is
            # one pass), is kept where the two differ: docsift's Pillow resize is the classic one.
            classic = np.asarray(img.resize((expect_hw[1], img.height), Image.BICUBIC)
                                 .resize((expect_hw[1], expect_hw[0]), Image.BICUBIC))
            classic = torch.from_numpy(np.ascontiguousarray(classic))
            if not torch.equal(classic, u8):
                out["resized_pil_classic"] = classic
        grid = enc["image_grid_thw"].to(torch.int64)
        assert grid.tolist() == [[1, expect_hw[0] // PATCH, expect_hw[1] // PATCH]]
        out["image_grid_thw"] = grid.contiguous()
    return out


# ----------------------------------------------------------------------------------------------------------
# Model runs

def interpolate_pos_embeds(table, gh, gw):
    """The 8x8 table resampled with F.interpolate (bilinear, align_corners) to [gh, gw], in merge-block order."""
    side = int(table.shape[0] ** 0.5)
    grid = table.view(side, side, -1).permute(2, 0, 1)[None]
    up = F.interpolate(grid, size=(gh, gw), mode="bilinear", align_corners=True)[0].permute(1, 2, 0)
    return up.reshape(gh // 2, 2, gw // 2, 2, -1).permute(0, 2, 1, 3, 4).reshape(gh * gw, -1)


def release_pos_embeds(table, gh, gw):
    """The release's algorithm (transformers 4.57's fast_pos_embed_interpolate, one image): linspace positions,
    four taps whose weights are cast to the table's dtype, summed in that dtype, then merge-block order."""
    side = int(table.shape[0] ** 0.5)
    h_idx, w_idx = torch.linspace(0, side - 1, gh), torch.linspace(0, side - 1, gw)
    hf, wf = h_idx.int(), w_idx.int()
    hc, wc = (hf + 1).clip(max=side - 1), (wf + 1).clip(max=side - 1)
    dh, dw = h_idx - hf, w_idx - wf
    idx = [(hf[:, None] * side + wf[None]).flatten(), (hf[:, None] * side + wc[None]).flatten(),
           (hc[:, None] * side + wf[None]).flatten(), (hc[:, None] * side + wc[None]).flatten()]
    weights = [((1 - dh)[:, None] * (1 - dw)[None]).flatten(), ((1 - dh)[:, None] * dw[None]).flatten(),
               (dh[:, None] * (1 - dw)[None]).flatten(), (dh[:, None] * dw[None]).flatten()]
    taps = [table[i] * w.to(table.dtype)[:, None] for i, w in zip(idx, weights)]
    pos = taps[0] + taps[1] + taps[2] + taps[3]
    return pos.view(gh // 2, 2, gw // 2, 2, -1).permute(0, 2, 1, 3, 4).reshape(gh * gw, -1)


def vision_run(model, pixel_values, grid):
    """The tower's outputs and the position embeddings it adds (as 5.23 computes them, checked against what the
    first block receives and against the two independent resamplings above)."""
    visual = model.model.visual
    idx, weights = get_vision_interpolation_indices_and_weights(
        grid, num_grid_per_side=visual.num_grid_per_side, mode=visual.interpolation_mode,
        align_corners=visual.interpolation_align_corners, spatial_merge_size=visual.spatial_merge_size)
    captured = []
    hook = visual.blocks[0].register_forward_pre_hook(lambda m, args, kwargs: captured.append(args[0].clone()),
                                                      with_kwargs=True)
    try:
        with torch.no_grad():
            vis = visual(pixel_values, grid_thw=grid)
            pos = (visual.pos_embed(idx) * weights[:, :, None]).sum(1)
            patches = visual.patch_embed(pixel_values)
    finally:
        hook.remove()
    assert len(captured) == 1 and torch.equal(captured[0], patches + pos)
    _, gh, gw = (int(x) for x in grid[0])
    table = visual.pos_embed.weight.detach()
    check = {"pos_embeds_max_diff_vs_interpolate": float((interpolate_pos_embeds(table, gh, gw) - pos).abs().max()),
             "pos_embeds_max_diff_vs_release": float((release_pos_embeds(table, gh, gw) - pos).abs().max())}
    assert max(check.values()) < 1e-5, check  # float rounding: a few ulps of values up to about 2
    # In bfloat16 the release sums bf16 products of bf16-rounded weights; 5.23 multiplies by float32 weights,
    # sums in float32 and rounds once: the two differ by up to about one bf16 step.
    bf = table.to(torch.bfloat16)
    tf5 = (F.embedding(idx, bf) * weights[:, :, None]).sum(1).to(torch.bfloat16)
    check["pos_embeds_bf16_max_diff_tf5_vs_release"] = float((tf5.float() - release_pos_embeds(bf, gh, gw).float())
                                                             .abs().max())
    return vis, pos.float().contiguous(), check


def decoder_by_hand(model, ids, image_embeds, deepstack, position_ids):
    """The decoder written out: image embeddings in place of the pad tokens, the interleaved RoPE of the 3D
    positions, DeepStack feature i added to the image positions of the output of decoder layer i (i < k)."""
    lm = model.model.language_model
    with torch.no_grad():
        h = lm.embed_tokens(ids).clone()
        mask = ids == IMAGE_PAD
        h[mask] = image_embeds
        cos, sin = lm.rotary_emb(h, position_ids)
        t = ids.shape[1]
        causal = torch.full((t, t), float("-inf")).triu(1)[None, None]
        for i, layer in enumerate(lm.layers):
            h = layer(h, position_embeddings=(cos, sin), attention_mask=causal)
            if i < len(deepstack):
                h = h.clone()
                h[mask] = h[mask] + deepstack[i]
        return model.lm_head(lm.norm(h))[0, -1]


def model_inputs(inputs):
    return {k: inputs[k] for k in ("input_ids", "attention_mask", "pixel_values", "image_grid_thw",
                                   "mm_token_type_ids")}


def run_model(model, inputs, checks=True):
    base = model_inputs(inputs)
    ids = base["input_ids"]
    vis, pos_embeds, pos_check = vision_run(model, base["pixel_values"], base["image_grid_thw"])
    with torch.no_grad():
        feats = model.model.get_image_features(base["pixel_values"], base["image_grid_thw"])
        image_embeds = torch.cat(feats.pooler_output, 0).float().contiguous()
        assert torch.equal(image_embeds, vis.pooler_output)
        deepstack = torch.stack([f.float() for f in vis.deepstack_features]).contiguous()
        assert deepstack.shape[0] == len(model.config.vision_config.deepstack_visual_indexes)
        assert torch.equal(deepstack, torch.stack([torch.cat(f, 0) for f in feats.deepstack_features]))
        position_ids, deltas = model.model.get_rope_index(ids, base["mm_token_type_ids"], base["image_grid_thw"])
        model.model.rope_deltas = None
        out = model(**base, use_cache=True)
        logits = out.logits[0, -1].float().contiguous()
        if checks:
            by_hand = decoder_by_hand(model, ids, image_embeds, deepstack, position_ids)
            assert torch.allclose(by_hand, logits, atol=1e-4), float((by_hand - logits).abs().max())
        # Greedy with generate (KV cache), checked against an argmax loop of full forwards without cache.
        # (5.23 fills what the given generation config leaves unset from the folder's generation_config.json;
        # the sampling settings there do not apply with do_sample False, and repetition_penalty is reset.)
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
    ref = {"input_ids": ids[0].to(torch.int64).contiguous(),
           "mm_token_type_ids": base["mm_token_type_ids"][0].to(torch.int64).contiguous(),
           "position_ids": position_ids[:, 0].to(torch.int64).contiguous(),
           "rope_deltas": deltas.reshape(()).to(torch.int64), "pos_embeds": pos_embeds,
           "vision_hidden": vis.last_hidden_state.float().contiguous(), "deepstack": deepstack,
           "image_embeds": image_embeds, "logits": logits,
           "greedy": torch.tensor(tokens, dtype=torch.int64), "logits_step2": step2}
    return ref, min(margins), pos_check


def greedy_ok(tokens):
    return len(set(tokens)) >= 7 and not set(tokens) & set(STOP_IDS) and max(tokens) < TOKENIZER_SIZE


# ----------------------------------------------------------------------------------------------------------

def parameter_count(model):
    return sum(p.numel() for p in model.parameters())  # a tied table once


REAL_SHARDS = {"8b": 4, "4b": 2}  # model-0000N-of-0000M.safetensors files in the releases


def write_real_configs(out):
    counts = {}
    for shape in ("8b", "4b"):
        folder = os.path.join(out, f"config-{shape}")
        os.makedirs(folder)
        dump(real_config(shape), os.path.join(folder, "config.json"))
        dump(preprocessor_config(), os.path.join(folder, "preprocessor_config.json"))
        cfg = Qwen3VLConfig.from_pretrained(folder)
        text, vision, vocab, tie, billions = REAL[shape]
        t, v = cfg.text_config, cfg.vision_config
        assert (t.hidden_size, t.num_hidden_layers, t.num_key_value_heads, t.head_dim, t.vocab_size,
                cfg.tie_word_embeddings) == (text["hidden_size"], 36, 8, 128, vocab, tie)
        assert t.rope_parameters["mrope_section"] == [24, 20, 20] and t.rope_parameters["mrope_interleaved"]
        assert t.rope_parameters["rope_theta"] == ROPE_THETA and t.max_position_embeddings == 262144
        assert (v.model_type, v.depth, v.out_hidden_size, list(v.deepstack_visual_indexes)) == (
            "qwen3_vl_vision", vision["depth"], vision["out_hidden_size"], vision["deepstack_visual_indexes"])
        with torch.device("meta"):
            model = Qwen3VLForConditionalGeneration(cfg)
        n = parameter_count(model)
        assert round(n / 1e9, 2) == billions, (shape, n)
        vis = sum(p.numel() for p in model.model.visual.parameters())
        counts[shape] = {"parameters": n, "vision": vis, "language_and_head": n - vis}
        # Every tensor's name and shape as the release stores them (bfloat16; a tied lm_head is not stored):
        # the inspect test writes a sparse checkpoint of the real shapes from this list.
        tensors = [[k, list(v.shape)] for k, v in model.state_dict().items() if not (tie and k == "lm_head.weight")]
        assert sum(math.prod(s) for _, s in tensors) == n
        with open(os.path.join(folder, "tensors.json"), "w") as f:  # one tensor a line
            f.write('{"dtype": "BF16", "shards": %d, "tensors": [\n' % REAL_SHARDS[shape])
            f.write(",\n".join(json.dumps(x) for x in tensors) + "\n]}\n")
        print(f"config-{shape}: {n} parameters ({n / 1e9:.2f}B; vision {vis}, language and head {n - vis})")
    # No tokenizer: the 11 MB real one would dominate the fixtures.
    return counts


def check_template():
    data = CHAT_TEMPLATE.encode()
    assert len(data) == 5292 and hashlib.sha256(data).hexdigest() == CHAT_TEMPLATE_SHA256, (
        len(data), hashlib.sha256(data).hexdigest())


def main(out=OUT):
    check_template()
    common.make_dirs(out, ("images", "reference"))
    tok = qwen25vl.build_tokenizer()

    built = {d: build_model(d, SEED) for d in LAYOUTS}
    hub = os.path.join(out, "hub")
    shards = write_hub(built["hub"], hub, tok)
    for d in ("tf5", "tf5-deep3"):
        write_tf5(built[d], os.path.join(out, d), hub)
    models = {d: load(os.path.join(out, d), built[d]) for d in LAYOUTS}
    names = {d: read_names(os.path.join(out, d)) for d in LAYOUTS}
    assert set(names["hub"]) == {k for k in built["hub"].state_dict() if k != "lm_head.weight"}
    real_counts = write_real_configs(out)

    summary = {"transformers": transformers.__version__, "torch": torch.__version__, "seed": SEED,
               "new_tokens": NEW_TOKENS, "question": QUESTION, "prompt": EXPECTED_PROMPT,
               "min_pixels": MIN_PIXELS, "max_pixels": MAX_PIXELS, "tokenizer_size": TOKENIZER_SIZE,
               "vocab_size": VOCAB, "stop_ids": STOP_IDS,
               "special_tokens": {t: tok.token_to_id(t) for t in ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
                                  + VISION_TOKENS},
               "mrope_section": MROPE_SECTION, "rope_theta": ROPE_THETA, "hub_shards": shards,
               "hub_tensor_names_example": sorted(names["hub"])[:3],
               "tf5_tensor_names": sorted(names["tf5"]), "tf5_dtypes": sorted({d for _, d in names["tf5"].values()}),
               "real_parameters": real_counts, "layouts": {}, "images": {}}
    processors = {d: AutoProcessor.from_pretrained(os.path.join(out, d)) for d in LAYOUTS}
    for d, proc in processors.items():
        assert proc.apply_chat_template(MESSAGES, tokenize=False, add_generation_prompt=True) == EXPECTED_PROMPT
        tie, kv_heads, deepstack, images, _ = LAYOUTS[d]
        cfg = models[d].config
        assert (cfg.tie_word_embeddings, cfg.text_config.num_key_value_heads,
                list(cfg.vision_config.deepstack_visual_indexes)) == (tie, kv_heads, deepstack)
        summary["layouts"][d] = {"processor": type(proc).__name__,
                                 "image_processor": type(proc.image_processor).__name__,
                                 "tokenizer": type(proc.tokenizer).__name__, "tie_word_embeddings": tie,
                                 "num_key_value_heads": kv_heads, "deepstack_visual_indexes": deepstack,
                                 "images": list(images), "dtypes": sorted({t for _, t in names[d].values()}),
                                 "tensors": len(names[d])}

    margins = []
    for name, (width, height, seed, font_size, lines, expect_hw) in IMAGES.items():
        img = render(width, height, seed, font_size, lines)
        img.save(os.path.join(out, "images", name + ".png"))
        pix = {d: pixels(os.path.join(out, d), img, expect_hw) for d in LAYOUTS}
        for d in LAYOUTS:
            for k, a in pix["hub"].items():
                b = pix[d][k]
                assert (a == b) if isinstance(a, str) else torch.equal(a, b), f"{name}: {k} differs in {d}"
        p = pix["hub"]
        save_file({k: v for k, v in p.items()
                   if not k.startswith("class_") and (name in FLOAT_PIXELS or not k.startswith("pixel_values_"))},
                  os.path.join(out, "reference", f"pixels_{name}.safetensors"), metadata={"format": "pt"})
        diff = (p["pixel_values_pil"] - p["pixel_values_torch"]).abs()
        u8diff = (p["resized_pil"].int() - p["resized_torch"].int()).abs()
        grid = p["image_grid_thw"][0].tolist()
        entry = {"size_wh": [width, height], "resized_hw": list(expect_hw), "grid_thw": grid,
                 "patches": grid[1] * grid[2], "merged_tokens": grid[1] * grid[2] // 4,
                 "float_pixels_stored": name in FLOAT_PIXELS,
                 "pil_class": p["class_pil"], "torch_class": p["class_torch"],
                 "max_abs_pixel_diff_pil_torch": float(diff.max()), "mean_abs_pixel_diff_pil_torch": float(diff.mean()),
                 "resized_u8_max_diff_pil_torch": int(u8diff.max()),
                 "resized_u8_bytes_differing": int((u8diff > 0).sum()), "layouts": {}}
        for d, model in models.items():
            if name not in LAYOUTS[d][3]:
                continue
            proc = processors[d]
            inputs = proc(text=[EXPECTED_PROMPT], images=[img], return_tensors="pt")
            used = "pil" if type(proc.image_processor).__name__.endswith("Pil") else "torch"
            assert torch.equal(inputs["pixel_values"].float(), p[f"pixel_values_{used}"])
            ids = inputs["input_ids"][0].tolist()
            n = entry["merged_tokens"]
            assert ids == tok.encode(EXPECTED_PROMPT.replace("<|image_pad|>", "<|image_pad|>" * n),
                                     add_special_tokens=False).ids
            assert inputs["mm_token_type_ids"][0].tolist() == [int(i == IMAGE_PAD) for i in ids]
            ref, margin, pos_check = run_model(model, inputs)
            margins.append(margin)
            release_pos, release_delta = qwen25vl.rope_index_release(inputs["input_ids"][0], inputs["image_grid_thw"])
            assert torch.equal(ref["position_ids"], release_pos) and int(ref["rope_deltas"]) == release_delta
            with torch.no_grad():  # the in-memory model gives the same numbers
                built[d].model.rope_deltas = None
                assert torch.equal(built[d](**model_inputs(inputs)).logits[0, -1], ref["logits"])
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
                "shapes": {k: list(v.shape) for k, v in ref.items()}, "greedy": tokens,
                "greedy_text": tok.decode(tokens, skip_special_tokens=False),
                "greedy_min_top2_logit_gap": round(margin, 6), "logits_std": round(float(ref["logits"].std()), 4),
                "logits_argmax": int(ref["logits"].argmax()),
                **{k: float(f"{v:.3g}") for k, v in pos_check.items()}}
            print(f"{name} [{d}]: {width}x{height} -> {expect_hw[1]}x{expect_hw[0]}, grid {grid}, {len(ids)} tokens, "
                  f"rope_deltas {int(ref['rope_deltas'])}, processor {type(proc.image_processor).__name__}, "
                  f"greedy {tokens}, margin {margin:.4f}")
        greedy = [tuple(e["greedy"]) for e in entry["layouts"].values()]
        assert len(set(greedy)) == len(greedy), f"{name}: two models give the same greedy tokens"
        summary["images"][name] = entry
        print(f"    pil vs torch: max |dpixel| {entry['max_abs_pixel_diff_pil_torch']:.4f}, resized bytes differing "
              f"{entry['resized_u8_bytes_differing']} (max {entry['resized_u8_max_diff_pil_torch']})")
    summary["greedy_min_top2_logit_gap"] = round(min(margins), 6)
    print(f"smallest top-1 - top-2 logit gap over all greedy steps: {min(margins):.4f}")
    dump(summary, os.path.join(out, "reference", "summary.json"))
    common.print_sizes(out)
