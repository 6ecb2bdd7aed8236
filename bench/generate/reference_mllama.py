#!/usr/bin/env python3
"""transformers half of the Llama 3.2 Vision generation benchmark (bench/generate/run_mllama.sh):
MllamaForConditionalGeneration, CPU, float32, greedy, with Meta's intermediate-layer convention patched in (what
docsift and the weights follow; see meta_intermediate_convention in scripts/make_mllama_fixtures.py). Prints one JSON line: prompt tokens,
generated ids with the top-1 - top-2 logit gap of each step, the vision seconds (vision_model +
multi_modal_projector, timed in one extra call before prefill), prefill (the image encoded again inside the
forward pass) and decode times, and this process's peak RSS (also after load, after the vision call and after
prefill, with the anonymous / file-backed split of the moment: transformers 5.23 maps float32 safetensors
without copying, so the weights show up as file pages when first used).
    reference_mllama.py --model DIR --image FILE --prompt TEXT [--max-tiles 4] [--max-new-tokens 16]
                        [--vision-attn eager|sdpa]
Text attention is always eager. The vision tower is eager by default too: for a 4-tile page its [16, N, N]
float32 scores (N = 6432) are 2.65 GB, two alive at once. --vision-attn sdpa runs it through PyTorch's SDPA
instead (the flash kernel on the CPU, which takes the additive mask), as a second point of comparison.
"""
import argparse
import json
import os
import resource
import sys
import time

import torch
from PIL import Image
from tokenizers import Tokenizer
from transformers import (MllamaForConditionalGeneration, MllamaImageProcessor, MllamaProcessor,
                          PreTrainedTokenizerFast)

# The fixture script's patch to Meta's intermediate-layer convention, one copy for both.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from make_mllama_fixtures import meta_intermediate_convention  # noqa: E402

TILE = 560
# The 11B preprocessor's CLIP mean/std (the class defaults are 0.5/0.5) and bilinear resampling.
CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]


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


def chat_prompt(question):
    return ("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n<|image|>" + question +
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")


def encode_image(vision, projector, inputs, hidden):
    out = vision(pixel_values=inputs["pixel_values"], aspect_ratio_ids=inputs["aspect_ratio_ids"],
                 aspect_ratio_mask=inputs["aspect_ratio_mask"]).last_hidden_state
    return projector(out).reshape(-1, out.shape[-2], hidden)


def checksum(states):
    s = states.double()
    return {"shape": list(states.shape), "sum": float(s.sum()), "abs_sum": float(s.abs().sum())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--max-tiles", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--vision-attn", choices=("eager", "sdpa"), default="eager")
    args = parser.parse_args()
    meta_intermediate_convention().__enter__()  # for the whole process

    processor = MllamaProcessor(
        image_processor=MllamaImageProcessor(size={"height": TILE, "width": TILE}, max_image_tiles=args.max_tiles,
                                             resample=2, do_resize=True, do_rescale=True, rescale_factor=1 / 255,
                                             do_normalize=True, image_mean=CLIP_MEAN, image_std=CLIP_STD, do_pad=True,
                                             do_convert_rgb=True),
        tokenizer=PreTrainedTokenizerFast(tokenizer_file=f"{args.model}/tokenizer.json", bos_token="<|begin_of_text|>",
                                          eos_token="<|eot_id|>"))
    text = chat_prompt(args.prompt)
    inputs = processor(images=[Image.open(args.image).convert("RGB")], text=text, add_special_tokens=False,
                       return_tensors="pt")
    tok = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    assert inputs["input_ids"][0].tolist() == tok.encode(text, add_special_tokens=False).ids
    tiles = int(inputs["aspect_ratio_mask"][0, 0].sum())
    result = {"impl": "transformers", "threads": torch.get_num_threads(), "vision_attn": args.vision_attn,
              "tiles": tiles, "prompt_tokens": int(inputs["input_ids"].shape[1])}

    start = time.perf_counter()
    model = MllamaForConditionalGeneration.from_pretrained(args.model, dtype=torch.float32,
                                                           attn_implementation="eager").eval()
    if args.vision_attn != "eager":
        model.set_attn_implementation({"vision_config": args.vision_attn, "text_config": "eager"})
    vision, projector, config = model.model.vision_model, model.model.multi_modal_projector, model.config
    assert vision.config._attn_implementation == args.vision_attn
    assert model.model.language_model.config._attn_implementation == "eager"
    result["load_s"] = time.perf_counter() - start
    result["rss_after_load_mb"] = {"peak": peak_mb(), **rss_now_mb()}

    with torch.inference_mode():
        # The vision stage alone (the extra call, first, so cold as docsift's): vision_model + multi_modal_projector,
        # as MllamaModel.forward runs them. Before prefill, the text weights are not yet mapped in, so the eager
        # scores do not stack on them in the peak.
        start = time.perf_counter()
        states = encode_image(vision, projector, inputs, config.text_config.hidden_size)
        result["vision_s"] = time.perf_counter() - start
        result["cross_attention_states"] = checksum(states)
        del states
        result["rss_after_vision_mb"] = {"peak": peak_mb(), **rss_now_mb()}
        cam = inputs["cross_attention_mask"]
        start = time.perf_counter()
        out = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"],
                    pixel_values=inputs["pixel_values"], aspect_ratio_ids=inputs["aspect_ratio_ids"],
                    aspect_ratio_mask=inputs["aspect_ratio_mask"], cross_attention_mask=cam, use_cache=True)
        result["prefill_s"] = time.perf_counter() - start
        result["rss_after_prefill_mb"] = {"peak": peak_mb(), **rss_now_mb()}
        ids, gaps = [], []

        def take(logits):
            top2 = torch.topk(logits, 2)
            gaps.append(float(top2.values[0] - top2.values[1]))
            ids.append(int(top2.indices[0]))
            return top2.indices[0].view(1, 1)

        next_id = take(out.logits[0, -1])
        cache = out.past_key_values
        # Each new token's cross-attention mask row is a copy of the last one (as generate does).
        row = cam[:, -1:]
        start = time.perf_counter()
        for _ in range(args.max_new_tokens - 1):
            out = model(input_ids=next_id, cross_attention_mask=row, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            next_id = take(out.logits[0, -1])
        decode_s = time.perf_counter() - start
        result.update({
            "ids": ids, "top2_gaps": [round(g, 5) for g in gaps], "decode_s": decode_s,
            "prefill_tokens_per_s": result["prompt_tokens"] / result["prefill_s"],
            "decode_tokens_per_s": (len(ids) - 1) / decode_s if decode_s > 0 else 0.0,
            "decode_ms_per_token": 1000 * decode_s / (len(ids) - 1) if len(ids) > 1 else 0.0})
    result["peak_rss_mb"] = peak_mb()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
