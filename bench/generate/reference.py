#!/usr/bin/env python3
"""transformers half of the generation benchmark (run.sh): the family's *ForConditionalGeneration, CPU, float32,
greedy, eager attention. Prints one JSON line: prompt tokens, generated ids with the top-1 - top-2 logit gap of each
step, load / prefill (the image encoded inside the forward pass) / decode seconds, tokens/s, and this process's peak
RSS (also after load and after prefill, with the anonymous / file-backed split of the moment: transformers 5.23
maps float32 safetensors without copying, so the weights show up as file pages when first used).
    reference.py [--family internvl|mllama|qwen25vl|qwen3vl] --model DIR --image FILE --prompt TEXT
                 [--max-new-tokens N] [--max-tiles N] (internvl, mllama) [--vision-attn eager|sdpa] (mllama)
                 [--max-pixels N] (qwen25vl, qwen3vl)
What differs per family is in FAMILIES below (the defaults) and in its prepare function (processor, prompt, model
class, how the vision stage is timed):
  internvl  InternVL3 / InternVL3.5: GotOcr2ImageProcessor tiles at 448 px, the InternVL chat prompt with 256
            <IMG_CONTEXT> per tile, tokenized by the folder's tokenizer.json. No separate vision time.
  mllama    Llama 3.2 Vision: MllamaProcessor at 560 px, with Meta's intermediate-layer convention patched in
            (what docsift and the weights follow; meta_intermediate_convention in scripts/fixturegen/mllama.py).
            vision_s times vision_model + multi_modal_projector in one extra call before prefill (first, so cold
            as docsift's; before prefill, the text weights are not yet mapped in, so the eager scores do not stack
            on them in the peak); also rss_after_vision_mb. Each new token's cross-attention mask row is a copy
            of the last one (as generate does). Text attention is always eager; the vision tower is eager by
            default too: for a 4-tile page its [16, N, N] float32 scores (N = 6432) are 2.65 GB, two alive at
            once. --vision-attn sdpa runs it through PyTorch's SDPA instead (the flash kernel on the CPU, which
            takes the additive mask), as a second point of comparison.
  qwen25vl  Qwen2.5-VL: the checkpoint's chat template (one image, then the question, add_generation_prompt)
            through the folder's processor (AutoProcessor: Qwen2VLImageProcessor, 5.23's torchvision backend)
            with max_pixels set, and mm_token_type_ids passed, so the 3D (multimodal RoPE) positions come from
            get_rope_index as in generate(). Prefill passes logits_to_keep=1, as generate() runs it; vision_s is
            the vision tower's share of it (forward hooks, no extra call); decode positions come from the cached
            rope_deltas.
  qwen3vl   Qwen3-VL: the same as qwen25vl with Qwen3VLForConditionalGeneration (its template has no default
            system message; the release's preprocessor file names Qwen2VLImageProcessorFast, which 5.23 loads as
            the torchvision Qwen2VLImageProcessor). vision_s includes the DeepStack mergers (inside visual()).
"""
import argparse
import json
import os
import resource
import sys
import time
import warnings

import torch
from PIL import Image


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_now_mb():
    """Current anonymous and file-backed resident memory (MB) from /proc/self/status."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile"):
                out[key] = int(value.split()[0]) / 1024
    return out


def load(model_class, args, result):
    start = time.perf_counter()
    model = model_class.from_pretrained(args.model, dtype=torch.float32, attn_implementation="eager").eval()
    result["load_s"] = time.perf_counter() - start
    result["rss_after_load_mb"] = {"peak": peak_mb(), **rss_now_mb()}
    return model


# ----------------------------------------------------------------------------------------------------------
# Per family: the model, the prefill inputs, what each decode step passes besides the token and the cache, and
# what to record after prefill. Each fills result with what it measures on the way.

def internvl(args, result):
    from tokenizers import Tokenizer
    from transformers import GotOcr2ImageProcessor, InternVLForConditionalGeneration
    model = load(InternVLForConditionalGeneration, args, result)
    tok = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    processor = GotOcr2ImageProcessor(crop_to_patches=True, min_patches=1, max_patches=args.max_tiles,
                                      size={"height": 448, "width": 448}, resample=3,
                                      image_mean=(0.485, 0.456, 0.406), image_std=(0.229, 0.224, 0.225))
    pixel_values = processor(images=[Image.open(args.image).convert("RGB")], return_tensors="pt")["pixel_values"]
    tiles = pixel_values.shape[0]
    text = ("<|im_start|>user\n<img>" + "<IMG_CONTEXT>" * (256 * tiles) + "</img>\n" + args.prompt +
            "<|im_end|>\n<|im_start|>assistant\n")
    input_ids = torch.tensor([tok.encode(text, add_special_tokens=False).ids])
    result.update(tiles=tiles, prompt_tokens=int(input_ids.shape[1]))
    return model, {"input_ids": input_ids, "pixel_values": pixel_values}, {}, None


def mllama(args, result):
    from tokenizers import Tokenizer
    from transformers import MllamaForConditionalGeneration, MllamaProcessor, PreTrainedTokenizerFast
    from fixturegen.mllama import chat_prompt, image_processor, meta_intermediate_convention
    meta_intermediate_convention().__enter__()  # for the whole process
    processor = MllamaProcessor(
        image_processor=image_processor(tile=560, max_tiles=args.max_tiles),
        tokenizer=PreTrainedTokenizerFast(tokenizer_file=f"{args.model}/tokenizer.json", bos_token="<|begin_of_text|>",
                                          eos_token="<|eot_id|>"))
    text = chat_prompt("<|image|>" + args.prompt)
    inputs = processor(images=[Image.open(args.image).convert("RGB")], text=text, add_special_tokens=False,
                       return_tensors="pt")
    tok = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    assert inputs["input_ids"][0].tolist() == tok.encode(text, add_special_tokens=False).ids
    result.update(vision_attn=args.vision_attn, tiles=int(inputs["aspect_ratio_mask"][0, 0].sum()),
                  prompt_tokens=int(inputs["input_ids"].shape[1]))

    model = load(MllamaForConditionalGeneration, args, result)
    if args.vision_attn != "eager":
        model.set_attn_implementation({"vision_config": args.vision_attn, "text_config": "eager"})
    vision, projector = model.model.vision_model, model.model.multi_modal_projector
    assert vision.config._attn_implementation == args.vision_attn
    assert model.model.language_model.config._attn_implementation == "eager"
    with torch.inference_mode():
        start = time.perf_counter()
        out = vision(pixel_values=inputs["pixel_values"], aspect_ratio_ids=inputs["aspect_ratio_ids"],
                     aspect_ratio_mask=inputs["aspect_ratio_mask"]).last_hidden_state
        states = projector(out).reshape(-1, out.shape[-2], model.config.text_config.hidden_size)
        result["vision_s"] = time.perf_counter() - start
        s = states.double()
        result["cross_attention_states"] = {"shape": list(states.shape), "sum": float(s.sum()),
                                            "abs_sum": float(s.abs().sum())}
        del states, s
    result["rss_after_vision_mb"] = {"peak": peak_mb(), **rss_now_mb()}
    keys = ("input_ids", "attention_mask", "pixel_values", "aspect_ratio_ids", "aspect_ratio_mask",
            "cross_attention_mask")
    return model, {k: inputs[k] for k in keys}, {"cross_attention_mask": inputs["cross_attention_mask"][:, -1:]}, None


def qwen25vl(args, result):
    from transformers import Qwen2_5_VLForConditionalGeneration
    return qwen_vl(Qwen2_5_VLForConditionalGeneration, args, result)


def qwen3vl(args, result):
    from transformers import Qwen3VLForConditionalGeneration
    return qwen_vl(Qwen3VLForConditionalGeneration, args, result)


def qwen_vl(model_class, args, result):
    """Qwen2.5-VL and Qwen3-VL: one image through the folder's processor and chat template."""
    from transformers import AutoProcessor
    # The max_pixels keyword is what 5.23 puts above the folder's own max_pixels (a size= keyword loses to the
    # file's key); 5.23 warns that the keyword is deprecated.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        processor = AutoProcessor.from_pretrained(args.model, max_pixels=args.max_pixels)
    ip = processor.image_processor
    assert type(ip).__name__ == "Qwen2VLImageProcessor", type(ip).__name__  # torchvision, not ...Pil
    assert ip.size["longest_edge"] == args.max_pixels, ip.size
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": args.prompt}]}]
    text = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    inputs = processor(text=[text], images=[Image.open(args.image).convert("RGB")], return_tensors="pt")
    grid = inputs["image_grid_thw"][0].tolist()
    result.update(image_processor=type(ip).__name__, grid_thw=grid, patches=grid[0] * grid[1] * grid[2],
                  prompt_tokens=int(inputs["input_ids"].shape[1]))

    model = load(model_class, args, result)
    assert model.model.language_model.config._attn_implementation == "eager"
    assert model.model.visual.config._attn_implementation == "eager"
    # The vision tower's share of prefill: visual() runs once inside the forward pass.
    marks = {}
    model.model.visual.register_forward_pre_hook(lambda *_: marks.__setitem__("vision_start", time.perf_counter()))
    model.model.visual.register_forward_hook(lambda *_: marks.__setitem__("vision_end", time.perf_counter()))

    def after_prefill():
        result["vision_s"] = marks["vision_end"] - marks["vision_start"]
        assert model.model.rope_deltas is not None  # decode positions: T + i + rope_deltas on all three axes
        result["rope_deltas"] = int(model.model.rope_deltas.reshape(-1)[0])

    keys = ("input_ids", "attention_mask", "pixel_values", "image_grid_thw", "mm_token_type_ids")
    return model, dict({k: inputs[k] for k in keys}, logits_to_keep=1), {}, after_prefill


# family -> (prepare, default options)
FAMILIES = {
    "internvl": (internvl, dict(max_tiles=1, max_new_tokens=32)),
    "mllama": (mllama, dict(max_tiles=4, max_new_tokens=16, vision_attn="eager")),
    "qwen25vl": (qwen25vl, dict(max_new_tokens=32, max_pixels=448 * 448)),
    "qwen3vl": (qwen3vl, dict(max_new_tokens=32, max_pixels=448 * 448)),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", choices=FAMILIES, default="internvl")
    parser.add_argument("--model", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--max-new-tokens", type=int)
    parser.add_argument("--max-tiles", type=int, help="internvl (default 1), mllama (default 4)")
    parser.add_argument("--vision-attn", choices=("eager", "sdpa"), help="mllama: the vision tower's attention")
    parser.add_argument("--max-pixels", type=int, help="qwen25vl, qwen3vl (default 448*448)")
    args = parser.parse_args()
    prepare, defaults = FAMILIES[args.family]
    for option in ("max_tiles", "vision_attn", "max_pixels"):
        if getattr(args, option) is not None and option not in defaults:
            parser.error(f"--{option.replace('_', '-')} is not an option of {args.family}")
    for option, value in defaults.items():
        if getattr(args, option) is None:
            setattr(args, option, value)

    result = {"impl": "transformers", "threads": torch.get_num_threads()}
    model, inputs, step_inputs, after_prefill = prepare(args, result)
    ids, gaps = [], []

    def take(logits):
        top2 = torch.topk(logits, 2)
        gaps.append(float(top2.values[0] - top2.values[1]))
        ids.append(int(top2.indices[0]))
        return top2.indices[0].view(1, 1)

    with torch.inference_mode():
        start = time.perf_counter()
        out = model(**inputs, use_cache=True)
        result["prefill_s"] = time.perf_counter() - start
        result["rss_after_prefill_mb"] = {"peak": peak_mb(), **rss_now_mb()}
        if after_prefill:
            after_prefill()
        next_id = take(out.logits[0, -1])
        cache = out.past_key_values
        start = time.perf_counter()
        for _ in range(args.max_new_tokens - 1):
            out = model(input_ids=next_id, past_key_values=cache, use_cache=True, **step_inputs)
            cache = out.past_key_values
            next_id = take(out.logits[0, -1])
        decode_s = time.perf_counter() - start
    result.update({
        "ids": ids, "top2_gaps": [round(g, 5) for g in gaps], "decode_s": decode_s,
        "prefill_tokens_per_s": result["prompt_tokens"] / result["prefill_s"],
        "decode_tokens_per_s": (len(ids) - 1) / decode_s if decode_s > 0 else 0.0,
        "decode_ms_per_token": 1000 * decode_s / (len(ids) - 1) if len(ids) > 1 else 0.0,
        "peak_rss_mb": peak_mb()})
    print(json.dumps(result))


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))  # fixturegen
    main()
