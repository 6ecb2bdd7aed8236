#!/usr/bin/env python3
"""Decode steps a page needs when the model writes the whole answer (extraction.decoding: free) against
when it writes only the values of its document type's fields (keys, issue 31), counted from the ground
truth's answers with the real Qwen2 (InternVL3) and Llama 3 (Llama 3.2 Vision) tokenizers.

    scripts/pyenv.sh python3 bench/decoding/token_counts.py [GROUND_TRUTH_CSV] [FIELDS_YAML]

free: "KEY: value" for all 25 fields, one a line, N/A where the truth has none, then the end-of-turn
token: every token is a decode step. keys: DOCUMENT_TYPE's value, then for each field of that type
the value; each ends with the newline (or end) the model writes to close it. Keys, ": " and the
fields outside the type are forced or skipped, costing no decode step (an extend step over the KV
cache instead). A value is tokenised as the model would continue "KEY:", with its leading space.
Prints per document type and overall: pages, mean steps free, mean steps keys, and the saving.
"""
import csv
import os
import sys
from collections import defaultdict

import yaml
from tokenizers import Tokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENIZERS = os.path.join(ROOT, "..", "shared", "tokenizers")


def missing(value):
    return value.strip() in ("", "N/A", "NOT_FOUND")


def main():
    truth_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "samples", "ground_truth.csv")
    fields_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "configs", "fields", "business-documents.yaml")
    fields = yaml.safe_load(open(fields_path))["fields"]
    rows = list(csv.DictReader(open(truth_path, newline="")))
    for label, folder, end in (("Qwen2 (InternVL3)", "qwen2", "<|im_end|>"), ("Llama 3 (Llama 3.2 Vision)", "llama3", "<|eot_id|>")):
        path = os.path.join(TOKENIZERS, folder, "tokenizer.json")
        if not os.path.exists(path):
            print(f"{label}: no tokenizer at {path}; skipped")
            continue
        tok = Tokenizer.from_file(path)
        count = lambda text: len(tok.encode(text, add_special_tokens=False).ids)  # noqa: E731
        by_type = defaultdict(lambda: [0, 0, 0])  # pages, free steps, keys steps
        for row in rows:
            doc_type = row["DOCUMENT_TYPE"].strip()
            value = lambda f: "N/A" if missing(row.get(f["name"], "")) else row[f["name"]].strip()  # noqa: E731
            answer = "\n".join(f"{f['name']}: {value(f)}" for f in fields)
            free = count(answer) + 1  # the end-of-turn token closes the answer
            keys = 0
            for f in fields:
                applies = f.get("applies_to")
                if applies is None or doc_type in applies:
                    keys += count(" " + value(f)) + 1  # the value, then the newline (or end) that closes it
            for key in (doc_type, "all pages"):
                by_type[key][0] += 1
                by_type[key][1] += free
                by_type[key][2] += keys
        print(f"\n{label}, {len(rows)} pages of {os.path.relpath(truth_path, ROOT)}:")
        print(f"{'document type':<18}{'pages':>6}{'free steps':>12}{'keys steps':>12}{'saved':>8}")
        for key in sorted(by_type, key=lambda k: (k == "all pages", k)):
            pages, free, keys = by_type[key]
            print(f"{key:<18}{pages:>6}{free / pages:>12.1f}{keys / pages:>12.1f}{1 - keys / free:>7.0%}")


if __name__ == "__main__":
    main()
