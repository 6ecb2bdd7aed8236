#!/usr/bin/env python3
"""transformers half of the Qwen2.5-VL generation benchmark (bench/generate/run_qwen25vl.sh):
Qwen2_5_VLForConditionalGeneration, eager attention (vision and text), CPU, float32, greedy. The prompt is the
checkpoint's chat template (one image, then the question, add_generation_prompt) through the folder's processor
(AutoProcessor: Qwen2VLImageProcessor, 5.23's torchvision backend) with max_pixels set, and mm_token_type_ids
passed, so the 3D (multimodal RoPE) positions come from get_rope_index as in generate(). Prefill is one forward
pass with the image encoded inside it (the vision tower's share is taken with forward hooks, no extra call) and
logits_to_keep=1, as generate() runs it; decode steps feed one token with the KV cache (positions from the cached
rope_deltas). Prints one JSON line: prompt tokens, grid, generated ids with the top-1 - top-2 logit gap of each
step, vision / prefill / decode seconds, tokens/s, and this process's peak RSS (also after load and after prefill,
with the anonymous / file-backed split of the moment: 5.23 maps float32 safetensors without copying).
    reference_qwen25vl.py --model DIR --image FILE --prompt TEXT [--max-pixels 200704] [--max-new-tokens 32]
"""
import argparse
import json
import resource
import time
import warnings

import torch
from PIL import Image
from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--max-pixels", type=int, default=448 * 448)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    args = parser.parse_args()

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
    result = {"impl": "transformers", "threads": torch.get_num_threads(), "image_processor": type(ip).__name__,
              "grid_thw": grid, "patches": grid[0] * grid[1] * grid[2],
              "prompt_tokens": int(inputs["input_ids"].shape[1])}

    start = time.perf_counter()
    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(args.model, dtype=torch.float32,
                                                               attn_implementation="eager").eval()
    assert model.model.language_model.config._attn_implementation == "eager"
    assert model.model.visual.config._attn_implementation == "eager"
    result["load_s"] = time.perf_counter() - start
    result["rss_after_load_mb"] = {"peak": peak_mb(), **rss_now_mb()}

    # The vision tower's share of prefill: visual() runs once inside the forward pass.
    marks = {}
    model.model.visual.register_forward_pre_hook(lambda *_: marks.__setitem__("vision_start", time.perf_counter()))
    model.model.visual.register_forward_hook(lambda *_: marks.__setitem__("vision_end", time.perf_counter()))
    base = {k: inputs[k] for k in ("input_ids", "attention_mask", "pixel_values", "image_grid_thw",
                                   "mm_token_type_ids")}
    with torch.inference_mode():
        start = time.perf_counter()
        out = model(**base, use_cache=True, logits_to_keep=1)
        result["prefill_s"] = time.perf_counter() - start
        result["vision_s"] = marks["vision_end"] - marks["vision_start"]
        result["rss_after_prefill_mb"] = {"peak": peak_mb(), **rss_now_mb()}
        assert model.model.rope_deltas is not None  # decode positions: T + i + rope_deltas on all three axes
        result["rope_deltas"] = int(model.model.rope_deltas.reshape(-1)[0])
        ids, gaps = [], []

        def take(logits):
            top2 = torch.topk(logits, 2)
            gaps.append(float(top2.values[0] - top2.values[1]))
            ids.append(int(top2.indices[0]))
            return top2.indices[0].view(1, 1)

        next_id = take(out.logits[0, -1])
        cache = out.past_key_values
        start = time.perf_counter()
        for _ in range(args.max_new_tokens - 1):
            out = model(input_ids=next_id, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            next_id = take(out.logits[0, -1])
        decode_s = time.perf_counter() - start
    result.update({
        "ids": ids, "top2_gaps": [round(g, 5) for g in gaps], "decode_s": decode_s,
        "prefill_tokens_per_s": result["prompt_tokens"] / result["prefill_s"],
        "decode_tokens_per_s": (len(ids) - 1) / decode_s if decode_s > 0 else 0.0,
        "peak_rss_mb": peak_mb()})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
