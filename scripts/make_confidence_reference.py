#!/usr/bin/env python3
"""The reference for docsift's model confidences (docs/decoding.md, "Confidence"), with transformers, on the tiny
InternVL3, Llama 3.2 Vision and Qwen3-VL fixtures: tests/fixtures/keys/confidence.json, which tests/parity/test_confidence.cpp
compares with docsift's token log-probabilities and field confidences.

Run from the repository root (after scripts/make_fixtures.py internvl, mllama and qwen3vl):
  scripts/pyenv.sh python3 scripts/make_confidence_reference.py

It runs scripts/make_keys_reference.py's decoding (keys and free, two images per family), which records for every
token the model picks the natural log of its probability: float32 log_softmax of that step's logits (for the
document type, of the logits of the tokens the trie allowed), and the stop token's where one ended a value or the
answer. A field's evidence:
  keys: its value's picks, and the stop token's where one ended it (the forced keys are docsift's, not the model's).
  free: the picks whose bytes overlap the value's bytes through the newline that ends its line (the stop token's
        too on the last line), the value found as docsift's response parser finds it.
A field that is N/A has no confidence. Its confidence under each aggregate, as a probability: min = exp(least
log-probability), mean = exp(mean log-probability), product = exp(sum).
The tokens must be reference.json's (scripts/make_keys_reference.py), so both fixtures describe the same decode.
"""
import json
import math
import os
import sys

import torch
import transformers
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keys_reference as ref  # noqa: E402

AGGREGATES = ("min", "mean", "product")


def aggregate(logprobs, how):
    if not logprobs:
        return None
    lp = {"min": min(logprobs), "mean": sum(logprobs) / len(logprobs), "product": sum(logprobs)}[how]
    return min(max(math.exp(lp), sys.float_info.min), 1.0)


def strip_markdown(s):
    """extract/response_parser.cpp strip_markdown on bytes: (start, end) of s[start:end] after stripping."""
    b, e = 0, len(s)

    def trim():
        nonlocal b, e
        while b < e and s[b:b + 1].isspace():
            b += 1
        while e > b and s[e - 1:e].isspace():
            e -= 1

    trim()
    changed = True
    while changed and b < e:
        changed = False
        for p in (b"- ", b"* ", "• ".encode(), b"#", b"**", b"__", b"`", b"*", b"_", b">"):
            if s[b:e].startswith(p):
                b += len(p)
                trim()
                changed = True
        for p in (b"**", b"__", b"`", b"*", b"_"):
            if s[b:e].endswith(p):
                e -= len(p)
                trim()
                changed = True
    return b, e


def is_missing(v):
    v = v.strip()
    return not v or v.upper() in (b"N/A", b"NOT_FOUND")


def parse_spans(text, names):
    """Field → (begin, end, line_end) of each value the parser keeps (bytes), as extract/response_parser.cpp."""
    spans, start = {}, 0
    while start <= len(text):
        end = text.find(b"\n", start)
        if end < 0:
            end = len(text)
        lb, le = strip_markdown(text[start:end])
        line = text[start + lb:start + le]
        line_start = start + lb
        start = end + 1
        colon = line.find(b":")
        if colon < 0:
            continue
        kb, ke = strip_markdown(line[:colon])
        key = line[kb:ke].replace(b" ", b"_").replace(b"-", b"_").upper().decode("utf-8", "replace")
        if key not in names or key in spans:
            continue
        vb, ve = strip_markdown(line[colon + 1:])
        value = line[colon + 1 + vb:colon + 1 + ve]
        if is_missing(value):
            continue
        begin = line_start + colon + 1 + vb
        spans[key] = (begin, begin + len(value), end)
    return spans


def free_evidence(plan, free, names):
    """Per field, the log-probabilities of the tokens that wrote its value (bytes: each token's raw bytes)."""
    ranges, text = [], b""
    for t in free["tokens"]:
        b = plan.bytes.get(t, b"")  # special tokens write nothing
        ranges.append((len(text), len(text) + len(b)))
        text += b
    out = {}
    for name, (begin, _, line_end) in parse_spans(text, names).items():
        picks = [lp for (b, e), lp in zip(ranges, free["logprobs"]) if b <= line_end and e > begin and e > b]
        if line_end >= len(text) and free["stop_logprob"] is not None:
            picks.append(free["stop_logprob"])
        out[name] = picks
    return out


def keyed_values(plan, keys):
    """Field → its value as the keyed answer's parse gives it (text up to the first newline, stripped)."""
    values = {}
    for p in keys["picks"]:
        text = plan.tok.decode(p["tokens"], skip_special_tokens=True).split("\n")[0].encode()
        b, e = strip_markdown(text)
        values[p["field"]] = text[b:e]
    return values


def confidences(evidence, present):
    return {how: {name: aggregate(lps, how) for name, lps in evidence.items() if name in present and lps}
            for how in AGGREGATES}


def main():
    fields = yaml.safe_load(open(os.path.join(ref.OUT, "schema.yaml")))["fields"]
    names = [f["name"] for f in fields]
    question = ref.build_prompt(fields)
    summary = {}
    ref.internvl(fields, question, summary)
    ref.mllama(fields, question, summary)
    ref.qwen_vl("qwen3vl", fields, question, summary)
    tokens_ref = json.load(open(os.path.join(ref.OUT, "reference.json")))
    out = {"transformers": transformers.__version__, "torch": torch.__version__, "free_tokens": ref.FREE_TOKENS,
           "aggregates": list(AGGREGATES)}
    for family, folder in (("internvl", "internvl/hf"), ("mllama", "mllama/hub"), ("qwen3vl", "qwen3vl/tf5")):
        from tokenizers import Tokenizer
        plan = ref.Plan(fields, Tokenizer.from_file(os.path.join(ref.FIXTURES, folder, "tokenizer.json")))
        images = {}
        for image, r in summary[family]["images"].items():
            want = tokens_ref[family]["images"][image]
            assert r["keys"]["tokens"] == want["keys"]["tokens"], f"{family} {image}: keys tokens differ from reference.json"
            assert r["free"]["tokens"] == want["free"]["tokens"], f"{family} {image}: free tokens differ from reference.json"
            keys, free = r["keys"], r["free"]
            values = keyed_values(plan, keys)
            present = {n for n, v in values.items() if not is_missing(v)}
            keys_evidence = {p["field"]: p["logprobs"] + ([p["stop_logprob"]] if p["stop_logprob"] is not None else [])
                             for p in keys["picks"]}
            free_ev = free_evidence(plan, free, names)
            images[image] = {
                "keys": {"values": [{k: p[k] for k in ("field", "tokens", "logprobs", "stop_logprob")}
                                    for p in keys["picks"]],
                         "confidence": confidences(keys_evidence, present)},
                "free": {"tokens": free["tokens"], "logprobs": free["logprobs"], "stop_logprob": free["stop_logprob"],
                         "confidence": confidences(free_ev, set(free_ev))},
            }
            c = images[image]["keys"]["confidence"]["min"]
            print(f"{family} {image}: keys min confidences {c}; free fields {sorted(free_ev)}")
        out[family] = images
    with open(os.path.join(ref.OUT, "confidence.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
