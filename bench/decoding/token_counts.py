#!/usr/bin/env python3
"""Decode steps a page needs when the model writes the whole answer (extraction.decoding: free) against
when it writes only the values of its document type's fields (keys), counted from the ground
truth's answers with the real Qwen2 (InternVL3) and Llama 3 (Llama 3.2 Vision) tokenizers.

    scripts/pyenv.sh python3 bench/decoding/token_counts.py [--costs BENCH_JSON] [GROUND_TRUTH_CSV] [FIELDS_YAML]

free: "KEY: value" for all 25 fields, one a line, N/A where the truth has none, then the end-of-turn
token: every token is a decode step. keys: DOCUMENT_TYPE's value, then for each field of that type
the value; each ends with the newline (or end) the model writes to close it. Keys, ": " and the
fields outside the type are forced or skipped, costing no decode step (an extend step over the KV
cache instead). A value is tokenised as the model would continue "KEY:", with its leading space.
Prints per document type and overall: pages, mean steps free, mean steps keys, and the saving.

Under keys, one of each field's forward passes is the extend that feeds its key (with the newline token the
model wrote before it): "keys steps" counts it, and "extends" and "chunk" give how many and how long they are.
With --costs (docsift_bench_keys's JSON: decode_ms and extend_ms for k = 1..8) it also prints the page speed-up
these imply for the decode phase: free steps × decode_ms against (keys steps − extends) × decode_ms + the
extends at their measured cost (k over 8 counts as extend_ms[8] per 8 tokens).
"""
import csv
import json
import os
import sys
from collections import defaultdict

import yaml
from tokenizers import Tokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENIZERS = os.path.join(ROOT, "..", "shared", "tokenizers")


def missing(value):
    return value.strip() in ("", "N/A", "NOT_FOUND")


def extend_ms(costs, k):
    full, rest = divmod(k, 8)
    return full * costs["extend_ms"]["8"] + (costs["extend_ms"][str(rest)] if rest else 0.0)


def main():
    args = sys.argv[1:]
    costs = None
    if args[:1] == ["--costs"]:
        costs = json.load(open(args[1]))
        args = args[2:]
    truth_path = args[0] if len(args) > 0 else os.path.join(ROOT, "samples", "ground_truth.csv")
    fields_path = args[1] if len(args) > 1 else os.path.join(ROOT, "configs", "fields", "business-documents.yaml")
    fields = yaml.safe_load(open(fields_path))["fields"]
    rows = list(csv.DictReader(open(truth_path, newline="")))
    for label, folder, end in (("Qwen2 (InternVL3)", "qwen2", "<|im_end|>"), ("Llama 3 (Llama 3.2 Vision)", "llama3", "<|eot_id|>")):
        path = os.path.join(TOKENIZERS, folder, "tokenizer.json")
        if not os.path.exists(path):
            print(f"{label}: no tokenizer at {path}; skipped")
            continue
        tok = Tokenizer.from_file(path)
        count = lambda text: len(tok.encode(text, add_special_tokens=False).ids)  # noqa: E731
        by_type = defaultdict(lambda: [0, 0, 0, 0, 0, 0.0])  # pages, free, keys steps, extends, chunk tokens, extend ms
        for row in rows:
            doc_type = row["DOCUMENT_TYPE"].strip()
            value = lambda f: "N/A" if missing(row.get(f["name"], "")) else row[f["name"]].strip()  # noqa: E731
            answer = "\n".join(f"{f['name']}: {value(f)}" for f in fields)
            free = count(answer) + 1  # the end-of-turn token closes the answer
            keys = extends = chunk_tokens = 0
            ms = 0.0
            for i, f in enumerate(fields):
                applies = f.get("applies_to")
                if applies is None or doc_type in applies:
                    keys += count(" " + value(f)) + 1  # the value, then the newline (or end) that closes it
                    # Its key: "NAME:" first, then the newline token the model wrote and "NAME:".
                    chunk = count(f["name"] + ":") + (0 if i == 0 else 1)
                    extends += 1
                    chunk_tokens += chunk
                    if costs:
                        ms += extend_ms(costs, chunk)
            for key in (doc_type, "all pages"):
                t = by_type[key]
                t[0] += 1
                t[1] += free
                t[2] += keys
                t[3] += extends
                t[4] += chunk_tokens
                t[5] += ms
        print(f"\n{label}, {len(rows)} pages of {os.path.relpath(truth_path, ROOT)}:")
        head = f"{'document type':<18}{'pages':>6}{'free steps':>12}{'keys steps':>12}{'saved':>8}{'extends':>9}{'chunk':>7}"
        print(head + (f"{'free ms':>10}{'keys ms':>10}{'speed-up':>10}" if costs else ""))
        for key in sorted(by_type, key=lambda k: (k == "all pages", k)):
            pages, free, keys, extends, chunk_tokens, ms = by_type[key]
            line = (f"{key:<18}{pages:>6}{free / pages:>12.1f}{keys / pages:>12.1f}{1 - keys / free:>7.0%}"
                    f"{extends / pages:>9.1f}{chunk_tokens / extends:>7.1f}")
            if costs:
                d = costs["decode_ms"]
                free_ms = free / pages * d
                keys_ms = (keys - extends) / pages * d + ms / pages
                line += f"{free_ms:>10.0f}{keys_ms:>10.0f}{free_ms / keys_ms:>9.2f}x"
            print(line)


if __name__ == "__main__":
    main()
