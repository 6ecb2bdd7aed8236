#!/usr/bin/env python3
"""The reference for `extraction.decoding: keys` and `free` (docs/decoding.md), with transformers, on the tiny
InternVL3, Llama 3.2 Vision, Qwen2.5-VL and Qwen3-VL fixtures: tests/fixtures/keys/reference.json, which
tests/parity/test_keys.cpp compares token for token and character for character.

Run from the repository root (after scripts/make_fixtures.py, whose checkpoints and images it reads):
  scripts/pyenv.sh python3 scripts/make_keys_reference.py

The algorithm, written here independently of docsift's C++ (generate/keys.h):
  1. Prefill the prompt (the chat template around the extraction prompt of tests/fixtures/keys/schema.yaml).
  2. Feed "DOCUMENT_TYPE:" in one forward call through past_key_values. Generate its value greedily under a trie
     of the schema's type names: a token is allowed when the value so far plus its bytes is a prefix of
     " " + some type name; "\\n" is allowed too once the value is a whole name that another name extends. Ties
     go to the lowest id (argmax of the masked logits). The value ends when it is a whole name nothing extends
     (or the model picks "\\n").
  3. For each field of that type (schema order, applies_to empty = every type): feed its key in one forward
     call, the tokens not yet fed first: "NAME:" after a value that ended with a token holding a newline (that
     token goes first), "\\nNAME:" otherwise. Generate greedily until a token holding a newline, a stop token
     (not fed), or the field's max_tokens.
  4. The answer: every field in schema order as "NAME:" + its value up to the first newline, " N/A" for a field
     outside the type.
free: greedy generation of up to FREE_TOKENS tokens from the same prompt, stopping at a stop token; checked
against model.generate.
"""
import json
import os
import sys

import torch
import yaml
from PIL import Image
from tokenizers import Tokenizer
import transformers
from transformers import (AutoProcessor, GenerationConfig, GotOcr2ImageProcessor, InternVLForConditionalGeneration,
                          MllamaForConditionalGeneration, MllamaProcessor, PreTrainedTokenizerFast,
                          Qwen2_5_VLForConditionalGeneration, Qwen3VLForConditionalGeneration)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixturegen import internvl as internvl_fixtures  # noqa: E402
from fixturegen import mllama as mllama_fixtures  # noqa: E402
from fixturegen import qwen25vl as qwen_fixtures  # noqa: E402
from fixturegen import qwen3vl as qwen3_fixtures  # noqa: E402
from make_tokenizer_vectors import bytes_to_unicode  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "keys")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
FREE_TOKENS = 24


def build_prompt(fields):
    """docsift's extraction prompt (extract/schema.cpp build_prompt), the reference system's wording."""
    p = "Extract key-value data from this business document image.\n\n"
    p += "OUTPUT RULES:\n"
    p += "- Output ONLY the fields below, nothing before or after them.\n"
    p += f"- Start with {fields[0]['name']} and stop after {fields[-1]['name']}.\n\n"
    p += f"REQUIRED OUTPUT FORMAT - EXACTLY {len(fields)} LINES:\n"
    for f in fields:
        p += f"{f['name']}: [{f['instruction']}]\n"
    p += "\nFORMAT RULES:\n"
    p += "- Write every line exactly as KEY: value.\n"
    p += "- No markdown, no bullet points, no explanations.\n"
    p += "- Include every key, even when its value is absent.\n"
    p += "- Write N/A when a value is not in the document.\n"
    return p


def byte_level_decoder():
    """GPT-2's byte-to-unicode table, inverted: a byte-level token's characters → its bytes."""
    return {c: b for b, c in bytes_to_unicode().items()}


class Plan:
    def __init__(self, fields, tok):
        self.fields = fields
        self.tok = tok
        enc = lambda text: tok.encode(text, add_special_tokens=False).ids  # noqa: E731
        nl = enc("\n")
        assert len(nl) == 1
        self.newline = nl[0]
        self.key = [enc(f["name"] + ":") for f in fields]
        self.newline_key = [enc("\n" + f["name"] + ":") for f in fields]
        types = []
        for f in fields:
            for t in f.get("applies_to", []):
                if t.upper().strip() not in [x.upper().strip() for x in types]:
                    types.append(t)
        self.types = types
        self.type_values = [" " + t for t in types]
        names = [f["name"] for f in fields]
        self.type_field = names.index("DOCUMENT_TYPE") if types and "DOCUMENT_TYPE" in names else -1
        decoder = byte_level_decoder()
        special = {i for i, t in tok.get_added_tokens_decoder().items() if t.special}
        self.bytes = {}
        self.ends_line = set()
        for token, i in tok.get_vocab(with_added_tokens=True).items():
            if i in special:
                continue
            b = bytes(decoder[c] for c in token) if all(c in decoder for c in token) else token.encode()
            if not b:
                continue
            self.bytes[i] = b
            if b"\n" in b:
                self.ends_line.add(i)
        self.type_candidates = sorted(i for i, b in self.bytes.items()
                                      if any(b in v.encode() for v in self.type_values))

    def max_tokens(self, index):
        return self.fields[index]["max_tokens"]


def keys_decode(plan, first_logits, step, stop_ids):
    """step(ids) feeds ids through the cache and returns the last position's float32 logits [vocab]."""
    logits = first_logits
    stream, values, pending = [], {}, []
    # Each asked field's picks with their natural-log probabilities (float32 log_softmax of the step's logits;
    # for the type, of the logits of the tokens the trie allowed), and the stop token's where one ended it:
    # scripts/make_confidence_reference.py.
    picks = []
    state = {"after_newline": True, "generated": 0, "forced": 0, "extends": 0, "decodes": 0}

    def extend(key):
        nonlocal pending
        chunk = pending + key
        pending = []
        stream.extend(key)
        state["forced"] += len(key)
        state["extends"] += 1
        return step(chunk)

    def ask(index):
        nonlocal logits, pending
        logits = extend(plan.key[index] if state["after_newline"] else plan.newline_key[index])
        tokens, written, end = [], b"", None
        logprobs, stop_logprob = [], None
        is_type = index == plan.type_field
        while True:
            if is_type:
                complete = written in [v.encode() for v in plan.type_values]
                allowed = [i for i in plan.type_candidates
                           if any(v.encode().startswith(written + plan.bytes[i]) for v in plan.type_values)]
                if not allowed:
                    end = "type"
                    break
                if complete:
                    allowed.append(plan.newline)
                allowed.sort()
                masked = logits[torch.tensor(allowed)]
                best = int(torch.argmax(masked))
                nxt = allowed[best]
                lp = float(torch.log_softmax(masked, -1)[best])
            else:
                nxt = int(torch.argmax(logits))
                lp = float(torch.log_softmax(logits, -1)[nxt])
                if nxt in stop_ids:
                    end = "stop"
                    stop_logprob = lp
                    break
            logprobs.append(lp)
            tokens.append(nxt)
            stream.append(nxt)
            state["generated"] += 1
            pending = [nxt]
            if nxt == plan.newline or nxt in plan.ends_line:
                end = "newline"
                break
            if is_type:
                written += plan.bytes[nxt]
            elif len(tokens) >= plan.max_tokens(index):
                end = "cap"
                break
            state["decodes"] += 1
            logits = step([nxt])
            pending = []
        state["after_newline"] = end == "newline"
        values[index] = tokens
        picks.append({"field": plan.fields[index]["name"], "tokens": tokens, "logprobs": logprobs,
                      "stop_logprob": stop_logprob})
        return written

    type_name = None
    if plan.type_field >= 0:
        written = ask(plan.type_field)
        for t, v in zip(plan.types, plan.type_values):
            if v.encode() == written:
                type_name = t
    for i, f in enumerate(plan.fields):
        if i == plan.type_field:
            continue
        applies = plan.type_field < 0 or not f.get("applies_to") or type_name in f["applies_to"]
        if applies:
            ask(i)
    lines = []
    for i, f in enumerate(plan.fields):
        if i in values:
            text = plan.tok.decode(values[i], skip_special_tokens=True).split("\n")[0]
        else:
            text = " N/A"
        lines.append(f["name"] + ":" + text)
    return {"tokens": stream, "text": "\n".join(lines), "document_type": type_name, **state, "picks": picks}


def free_decode(first_logits, step, stop_ids, logprobs=None):
    """`logprobs`, a dict when given: "logprobs" (each token's natural-log probability) and "stop_logprob"."""
    tokens, logits = [], first_logits
    lps, stop_lp = [], None
    while True:
        nxt = int(torch.argmax(logits))
        lp = float(torch.log_softmax(logits, -1)[nxt])
        if nxt in stop_ids:
            stop_lp = lp
            break
        tokens.append(nxt)
        lps.append(lp)
        if len(tokens) >= FREE_TOKENS:
            break
        logits = step([nxt])
    if logprobs is not None:
        logprobs.update({"logprobs": lps, "stop_logprob": stop_lp})
    return tokens


def finish(mode, logits, step, plan, stop_ids, generate):
    """keys, or free checked against `generate()` (model.generate's new tokens)."""
    if mode == "keys":
        return keys_decode(plan, logits, step, stop_ids)
    lps = {}
    tokens = free_decode(logits, step, stop_ids, lps)
    assert generate()[:len(tokens)] == tokens, "the cache loop disagrees with generate"
    return {"tokens": tokens, "text": plan.tok.decode(tokens, skip_special_tokens=True), **lps}


def internvl(fields, question, summary):
    folder = os.path.join(FIXTURES, "internvl")
    tok = Tokenizer.from_file(os.path.join(folder, "hf", "tokenizer.json"))
    plan = Plan(fields, tok)
    stop_ids = [tok.token_to_id("<|im_end|>"), tok.token_to_id("<|endoftext|>")]
    processor = GotOcr2ImageProcessor(crop_to_patches=True, min_patches=1, max_patches=internvl_fixtures.MAX_TILES,
                                      size={"height": 448, "width": 448}, resample=3, do_rescale=True,
                                      rescale_factor=1 / 255, do_normalize=True,
                                      image_mean=internvl_fixtures.IMAGENET_MEAN, image_std=internvl_fixtures.IMAGENET_STD)
    out = {}
    for name in ("one_tile", "many_tiles"):
        img = Image.open(os.path.join(folder, "images", name + ".png")).convert("RGB")
        pv = processor(images=[img], return_tensors="pt")["pixel_values"].float()
        image = "<img>" + "<IMG_CONTEXT>" * (256 * pv.shape[0]) + "</img>"
        prompt = f"<|im_start|>user\n{image}\n{question}<|im_end|>\n<|im_start|>assistant\n"
        ids = tok.encode(prompt, add_special_tokens=False).ids

        def run(mode):
            # A fresh model each run: transformers' dynamic RoPE keeps the longest sequence it has seen in the
            # module (max_seq_len_cached) and only recomputes its frequencies when a longer one comes, so a run
            # after a longer one would use that one's frequencies. docsift computes them from each pass's own
            # length, as a fresh model does (the fixture's prompts run past max_position_embeddings).
            model = InternVLForConditionalGeneration.from_pretrained(os.path.join(folder, "hf"), torch_dtype=torch.float32)
            model.set_attn_implementation("eager")
            model.eval()
            with torch.no_grad():
                first = model(input_ids=torch.tensor([ids]), pixel_values=pv, use_cache=True)
                cache = {"pkv": first.past_key_values}

                def step(chunk):
                    o = model(input_ids=torch.tensor([chunk]), past_key_values=cache["pkv"], use_cache=True)
                    cache["pkv"] = o.past_key_values
                    return o.logits[0, -1].float()

                generate = lambda: model.generate(  # noqa: E731
                    input_ids=torch.tensor([ids]), pixel_values=pv, max_new_tokens=FREE_TOKENS, do_sample=False,
                    eos_token_id=stop_ids, pad_token_id=0)[0, len(ids):].tolist()
                return finish(mode, first.logits[0, -1].float(), step, plan, stop_ids, generate)

        out[name] = {"tiles": pv.shape[0], "prompt_ids": ids, "keys": run("keys"), "free": run("free")}
        report("internvl", name, out[name])
    summary["internvl"] = {"stop_ids": sorted(stop_ids), "images": out}


def mllama(fields, question, summary):
    folder = os.path.join(FIXTURES, "mllama")
    tokenizer_file = os.path.join(folder, "hub", "tokenizer.json")
    tok = Tokenizer.from_file(tokenizer_file)
    plan = Plan(fields, tok)
    stop_ids = mllama_fixtures.STOP_IDS
    processor = MllamaProcessor(image_processor=mllama_fixtures.image_processor(),
                                tokenizer=PreTrainedTokenizerFast(tokenizer_file=tokenizer_file,
                                                                  bos_token="<|begin_of_text|>", eos_token="<|eot_id|>"))
    out = {}
    # The references follow Meta's intermediate-layer convention, as docsift does (scripts/fixturegen/mllama.py).
    with mllama_fixtures.meta_intermediate_convention():
        model = MllamaForConditionalGeneration.from_pretrained(os.path.join(folder, "hub"), torch_dtype=torch.float32)
        model.set_attn_implementation("eager")
        model.eval()
        for name in ("one_tile", "grid_2x2"):
            img = Image.open(os.path.join(folder, "images", name + ".png")).convert("RGB")
            prompt = mllama_fixtures.chat_prompt("<|image|>" + question)
            inputs = processor(images=[img], text=prompt, add_special_tokens=False, return_tensors="pt")
            base = mllama_fixtures.model_inputs(inputs)
            ids = base["input_ids"][0].tolist()
            assert ids == tok.encode(prompt, add_special_tokens=False).ids

            def run(mode):
                with torch.no_grad():
                    first = model(**base, use_cache=True)
                    cache = {"pkv": first.past_key_values, "mask": base["attention_mask"]}
                    last_row = base["cross_attention_mask"][:, -1:]  # every new token sees the image as the last did

                    def step(chunk):
                        k = len(chunk)
                        cache["mask"] = torch.cat([cache["mask"], torch.ones(1, k, dtype=cache["mask"].dtype)], 1)
                        o = model(input_ids=torch.tensor([chunk]), attention_mask=cache["mask"],
                                  cross_attention_mask=last_row.repeat(1, k, 1, 1), past_key_values=cache["pkv"],
                                  use_cache=True)
                        cache["pkv"] = o.past_key_values
                        return o.logits[0, -1].float()

                    generate = lambda: model.generate(  # noqa: E731
                        **base, do_sample=False, max_new_tokens=FREE_TOKENS, eos_token_id=stop_ids,
                        pad_token_id=mllama_fixtures.PAD)[0, len(ids):].tolist()
                    return finish(mode, first.logits[0, -1].float(), step, plan, stop_ids, generate)

            out[name] = {"prompt_ids": ids, "keys": run("keys"), "free": run("free")}
            report("mllama", name, out[name])
    summary["mllama"] = {"stop_ids": sorted(stop_ids), "images": out}


# The Qwen families: fixture module, model class, and the system turn their chat templates add (Qwen2.5-VL's
# default system message; Qwen3-VL's template adds none).
QWEN = {
    "qwen25vl": (qwen_fixtures, Qwen2_5_VLForConditionalGeneration,
                 "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"),
    "qwen3vl": (qwen3_fixtures, Qwen3VLForConditionalGeneration, ""),
}


def qwen_vl(family, fields, question, summary):
    """The tf5 layout (float32, untied), whose AutoProcessor is the torchvision image processor, as docsift's
    vision.resample auto picks for it. The prompt is the checkpoint's chat template (with the family's system
    turn) and the image first, directly followed by the question, as docsift builds it."""
    fixtures, model_class, system = QWEN[family]
    folder = os.path.join(FIXTURES, family, "tf5")
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    plan = Plan(fields, tok)
    stop_ids = fixtures.STOP_IDS
    processor = AutoProcessor.from_pretrained(folder)
    assert type(processor.image_processor).__name__ == "Qwen2VLImageProcessor"  # torchvision, not ...Pil
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": question}]}]
    prompt = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert prompt == (system + "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>" + question +
                      "<|im_end|>\n<|im_start|>assistant\n")
    model = model_class.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    out = {}
    for name in ("small", "mid"):
        img = Image.open(os.path.join(FIXTURES, family, "images", name + ".png")).convert("RGB")
        inputs = processor(text=[prompt], images=[img], return_tensors="pt")
        # mm_token_type_ids gives the image tokens their 3-D (t, h, w) positions; without it transformers falls
        # back to 1-D positions without a word.
        base = {k: inputs[k] for k in ("input_ids", "attention_mask", "pixel_values", "image_grid_thw",
                                       "mm_token_type_ids")}
        ids = base["input_ids"][0].tolist()
        merged = int(base["image_grid_thw"][0].prod()) // 4
        assert ids == tok.encode(prompt.replace("<|image_pad|>", "<|image_pad|>" * merged),
                                 add_special_tokens=False).ids
        assert base["mm_token_type_ids"][0].tolist() == [int(i == fixtures.IMAGE_PAD) for i in ids]

        def run(mode):
            with torch.no_grad():
                # Prefill computes the 3-D positions and caches rope_deltas in the model; every later call feeds
                # its tokens at past length + rope_deltas on all three axes (compute_3d_position_ids).
                model.model.rope_deltas = None
                first = model(**base, use_cache=True)
                deltas = int(model.model.rope_deltas)
                fed = list(ids)
                cache = {"pkv": first.past_key_values, "logits": None}

                def step(chunk):
                    o = model(input_ids=torch.tensor([chunk]), past_key_values=cache["pkv"], use_cache=True)
                    cache["pkv"] = o.past_key_values
                    fed.extend(chunk)
                    cache["logits"] = o.logits[0, -1].float()
                    return cache["logits"]

                # Greedy and nothing else: the folder's generation_config.json carries the release's sampling
                # defaults (repetition_penalty 1.05 ...), which generate would otherwise fill in.
                generate = lambda: model.generate(  # noqa: E731
                    **base, generation_config=GenerationConfig(
                        do_sample=False, max_new_tokens=FREE_TOKENS, eos_token_id=stop_ids,
                        pad_token_id=fixtures.PAD, repetition_penalty=1.0))[0, len(ids):].tolist()
                r = finish(mode, first.logits[0, -1].float(), step, plan, stop_ids, generate)
                # The cached chunks sat at the right positions: the last step's logits are a full forward's.
                if cache["logits"] is not None:
                    full = torch.tensor([fed])
                    mm = torch.zeros_like(full)
                    mm[:, :len(ids)] = base["mm_token_type_ids"]
                    model.model.rope_deltas = None
                    whole = model(**dict(base, input_ids=full, attention_mask=torch.ones_like(full),
                                         mm_token_type_ids=mm), use_cache=False).logits[0, -1].float()
                    assert torch.allclose(whole, cache["logits"], atol=1e-4), float((whole - cache["logits"]).abs().max())
                    assert int(model.model.rope_deltas) == deltas
                return r

        out[name] = {"grid_thw": base["image_grid_thw"][0].tolist(), "prompt_ids": ids, "keys": run("keys"),
                     "free": run("free")}
        report(family, name, out[name])
    summary[family] = {"stop_ids": sorted(stop_ids), "images": out}


def report(family, name, r):
    k = r["keys"]
    print(f"{family} {name}: {len(r['prompt_ids'])} prompt tokens; keys: type {k['document_type']!r}, "
          f"{k['generated']} generated, {k['forced']} forced, {k['extends']} extends, {k['decodes']} decode steps; "
          f"free: {len(r['free']['tokens'])} tokens")
    print("  " + k["text"].replace("\n", "\n  "))


def main():
    fields = yaml.safe_load(open(os.path.join(OUT, "schema.yaml")))["fields"]
    question = build_prompt(fields)
    summary = {"transformers": transformers.__version__, "torch": torch.__version__, "schema": "schema.yaml",
               "free_tokens": FREE_TOKENS, "question": question}
    internvl(fields, question, summary)
    mllama(fields, question, summary)
    qwen_vl("qwen25vl", fields, question, summary)
    qwen_vl("qwen3vl", fields, question, summary)
    for family in ("internvl", "mllama", "qwen25vl", "qwen3vl"):  # the log-probabilities go to confidence.json
        for r in summary[family]["images"].values():
            r["keys"].pop("picks")
            for k in ("logprobs", "stop_logprob"):
                r["free"].pop(k)
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
