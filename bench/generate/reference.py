#!/usr/bin/env python3
"""transformers half of the generation benchmark: InternVLForConditionalGeneration, eager attention,
CPU, float32, greedy. Prints one JSON line: prompt tokens, generated ids, tokens/s for prefill (image
encoding included) and decode, and this process's peak RSS.
    reference.py --model DIR --image FILE --prompt TEXT [--max-tiles 1] [--max-new-tokens 32]
"""
import argparse
import json
import resource
import time

import torch
from PIL import Image
from tokenizers import Tokenizer
from transformers import GotOcr2ImageProcessor, InternVLForConditionalGeneration


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--max-tiles", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    args = parser.parse_args()

    start = time.perf_counter()
    model = InternVLForConditionalGeneration.from_pretrained(args.model, dtype=torch.float32,
                                                             attn_implementation="eager").eval()
    tok = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    load_s = time.perf_counter() - start
    processor = GotOcr2ImageProcessor(crop_to_patches=True, min_patches=1, max_patches=args.max_tiles,
                                      size={"height": 448, "width": 448}, resample=3,
                                      image_mean=(0.485, 0.456, 0.406), image_std=(0.229, 0.224, 0.225))
    pixel_values = processor(images=[Image.open(args.image).convert("RGB")], return_tensors="pt")["pixel_values"]
    tiles = pixel_values.shape[0]
    text = ("<|im_start|>user\n<img>" + "<IMG_CONTEXT>" * (256 * tiles) + "</img>\n" + args.prompt +
            "<|im_end|>\n<|im_start|>assistant\n")
    input_ids = torch.tensor([tok.encode(text, add_special_tokens=False).ids])

    with torch.inference_mode():
        start = time.perf_counter()
        out = model(input_ids=input_ids, pixel_values=pixel_values, use_cache=True)
        prefill_s = time.perf_counter() - start
        next_id = out.logits[0, -1].argmax()
        ids = [int(next_id)]
        cache = out.past_key_values
        start = time.perf_counter()
        for _ in range(args.max_new_tokens - 1):
            out = model(input_ids=next_id.view(1, 1), past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            next_id = out.logits[0, -1].argmax()
            ids.append(int(next_id))
        decode_s = time.perf_counter() - start
    print(json.dumps({
        "impl": "transformers", "threads": torch.get_num_threads(), "load_s": load_s, "tiles": tiles,
        "prompt_tokens": input_ids.shape[1], "ids": ids, "prefill_s": prefill_s, "decode_s": decode_s,
        "prefill_tokens_per_s": input_ids.shape[1] / prefill_s, "decode_tokens_per_s": (len(ids) - 1) / decode_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
