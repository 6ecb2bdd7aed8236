#!/usr/bin/env python3
"""transformers side of the decode-step benchmark (bench_decode.cpp): InternVLForConditionalGeneration,
eager attention, greedy, on the CPU or a GPU, the same image preprocessing and prompt as reference.py.
A warm-up of 8 tokens, then prefill and --max-new-tokens greedy tokens with past_key_values, each decode
step timed (forward, argmax and reading the id back, as docsift's step). Prints one JSON line.
    reference_gpu.py --model DIR --image FILE [--device cuda|cpu] [--dtype bfloat16] [--max-new-tokens 64]
Uses only APIs present in transformers 5.17 and 5.23.
"""
import argparse
import json
import statistics
import time

import torch
from PIL import Image
from tokenizers import Tokenizer
from transformers import GotOcr2ImageProcessor, InternVLForConditionalGeneration

PROMPT = "What is the total amount? Answer with TOTAL: value."  # as run.sh and bench_decode.cpp
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def weight_bytes_per_token(model):
    """Bytes of language-model weights one decode step reads: every decoder parameter and the lm_head,
    not the input embedding table (one row is read) unless the lm_head is tied to it (counted once)."""
    embed = model.get_input_embeddings().weight
    head = model.get_output_embeddings().weight
    seen, total = set(), 0
    for p in list(model.model.language_model.parameters()) + [head]:
        if p.data_ptr() in seen:
            continue
        seen.add(p.data_ptr())
        if p is embed and head.data_ptr() != embed.data_ptr():
            continue
        total += p.numel() * p.element_size()
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--image", default="tests/fixtures/internvl/images/one_tile.png")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="bfloat16")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--max-tiles", type=int, default=1)
    args = parser.parse_args()
    if args.max_new_tokens < 3:
        parser.error("--max-new-tokens: at least 3 (the median skips the first decode step)")
    device = torch.device(args.device)
    cuda = device.type == "cuda"

    def sync():
        if cuda:
            torch.cuda.synchronize(device)

    start = time.perf_counter()
    model = InternVLForConditionalGeneration.from_pretrained(args.model, dtype=DTYPES[args.dtype],
                                                             attn_implementation="eager").to(device).eval()
    sync()
    load_s = time.perf_counter() - start
    tok = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    processor = GotOcr2ImageProcessor(crop_to_patches=True, min_patches=1, max_patches=args.max_tiles,
                                      size={"height": 448, "width": 448}, resample=3,
                                      image_mean=(0.485, 0.456, 0.406), image_std=(0.229, 0.224, 0.225))
    pixel_values = processor(images=[Image.open(args.image).convert("RGB")], return_tensors="pt")["pixel_values"]
    tiles = pixel_values.shape[0]
    pixel_values = pixel_values.to(device, DTYPES[args.dtype])
    text = ("<|im_start|>user\n<img>" + "<IMG_CONTEXT>" * (256 * tiles) + "</img>\n" + PROMPT +
            "<|im_end|>\n<|im_start|>assistant\n")
    input_ids = torch.tensor([tok.encode(text, add_special_tokens=False).ids], device=device)

    def run(tokens):
        """Prefill (image included) and tokens-1 decode steps: the ids, prefill seconds, each step's ms."""
        with torch.inference_mode():
            sync()
            t = time.perf_counter()
            out = model(input_ids=input_ids, pixel_values=pixel_values, use_cache=True)
            next_id = out.logits[0, -1].argmax()
            ids = [int(next_id)]
            sync()
            prefill_s = time.perf_counter() - t
            cache = out.past_key_values
            steps = []
            for _ in range(tokens - 1):
                t = time.perf_counter()
                out = model(input_ids=next_id.view(1, 1), past_key_values=cache, use_cache=True)
                cache = out.past_key_values
                next_id = out.logits[0, -1].argmax()
                ids.append(int(next_id))
                sync()
                steps.append((time.perf_counter() - t) * 1e3)
        return ids, prefill_s, steps

    run(8)  # warm-up: kernels, cuBLAS handles, the allocator's blocks
    ids, prefill_s, steps = run(args.max_new_tokens)
    timed = steps[1:]  # as bench_decode.cpp: steps 2..N
    print(json.dumps({
        "impl": "transformers", "device": str(device), "dtype": args.dtype,
        "gpu": torch.cuda.get_device_name(device) if cuda else None,
        "torch": torch.__version__, "threads": torch.get_num_threads(), "load_s": load_s, "tiles": tiles,
        "prompt_tokens": input_ids.shape[1], "tokens": len(ids),
        "ms_per_token": statistics.median(timed), "ms_per_token_mean": statistics.fmean(timed),
        "ms_per_token_min": min(timed), "first_decode_ms": steps[0], "prefill_s": prefill_s,
        "decode_tokens_per_s": len(steps) / (sum(steps) / 1e3),
        "weight_bytes_per_token": weight_bytes_per_token(model), "ids": ids}))


if __name__ == "__main__":
    main()
