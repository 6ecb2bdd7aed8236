#!/usr/bin/env python3
"""Reference half of the tokenizer benchmark: the `tokenizers` Python binding, single thread.
    reference.py --tokenizer PATH --corpus FILE.jsonl [--repeat 3]
Prints one JSON line shaped like docsift_bench_tokenizer's: bytes, docs, tokens, seconds (best of
--repeat, encode loop only), mb_per_s, and a checksum of all ids (sum of (i+1)*id mod 2^64 over
the ids of all documents in order), so the two runs are compared on identical output.
"""
import argparse
import json
import os
import time

# Before the import: the Rust side reads these when its thread pool starts.
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ["RAYON_NUM_THREADS"] = "1"

import tokenizers  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    tok = tokenizers.Tokenizer.from_file(args.tokenizer)
    load_seconds = time.perf_counter() - start
    with open(args.corpus, encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    tok.encode(docs[0], add_special_tokens=False)  # warm-up
    best, result = float("inf"), None
    for _ in range(max(1, args.repeat)):
        start = time.perf_counter()
        result = [tok.encode(d, add_special_tokens=False).ids for d in docs]
        best = min(best, time.perf_counter() - start)
    tokens, checksum = 0, 0
    for ids in result:
        for i in ids:
            tokens += 1
            checksum = (checksum + tokens * i) % (1 << 64)
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    print(json.dumps({"impl": f"tokenizers {tokenizers.__version__}", "bytes": nbytes, "docs": len(docs),
                      "tokens": tokens, "seconds": best, "mb_per_s": nbytes / 1e6 / best, "checksum": checksum,
                      "load_seconds": load_seconds}))


if __name__ == "__main__":
    main()
