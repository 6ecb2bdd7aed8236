#!/usr/bin/env python3
"""Folds the session's decode runs (bench/gpu/session.sh) into bench/generate/results/gpu.json's
form: per run model, dtype, device, docsift_ms_per_token, transformers_ms_per_token,
weight_bytes_per_token, bandwidth_limit_gbps, with the ratios the issue's goals are stated in.
    summarize.py WORK_DIR OUT_JSON
"""
import json
import os
import sys


def load(path):
    """One JSON object: the whole file (docsift_bench_decode --json), else its last line
    (reference_gpu.py prints one line after transformers' own output)."""
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    for candidate in (text, text.splitlines()[-1] if text else ""):
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    return None


def main():
    work, out = sys.argv[1], sys.argv[2]
    bw = None
    log = os.path.join(work, "bandwidth.log")
    if os.path.exists(log):
        for line in open(log):
            if line.startswith("{"):
                bw = json.loads(line)
    read_gbps = bw["read_gbps"] if bw else None
    ref = load(os.path.join(work, "reference_bf16.json"))
    runs = []
    ids = {}
    for name in ("decode_bf16", "decode_bf16_fused", "decode_bf16_eager", "decode_fp16", "decode_offloaded"):
        d = load(os.path.join(work, name + ".json"))
        if not d:
            print(f"{name}: no result")
            continue
        ms = d.get("decode_ms_per_token")
        wb = d.get("weight_bytes_per_token")
        limit_ms = wb / (read_gbps * 1e9) * 1e3 if (wb and read_gbps) else None
        ids[name] = d.get("ids") or []
        run = {"run": name, "cuda_graphs": d.get("cuda_graphs"), "fused_norm": d.get("fused_norm"), "model": "InternVL3-8B-shaped, random weights", "dtype": d.get("dtype"),
               "device": d.get("gpu") or d.get("device"), "cache": d.get("cache"),
               "docsift_ms_per_token": ms, "weight_bytes_per_token": wb,
               "bandwidth_limit_gbps": read_gbps, "bandwidth_limit_ms_per_token": limit_ms,
               "fraction_of_bandwidth_limit": (limit_ms / ms) if (limit_ms and ms) else None}
        if ref and ref.get("dtype") == d.get("dtype") and ms and name != "decode_offloaded":
            t = ref.get("ms_per_token") or ref.get("ms_per_token_median")
            run["transformers_ms_per_token"] = t
            run["speedup_over_transformers"] = (t / ms) if (t and ms) else None
        p = d.get("profile") or {}
        per = p.get("per_step") or {}
        run["profile_per_step"] = {k: per.get(k) for k in per}
        run["cuda_api_per_step"] = p.get("cuda_api_per_step")
        runs.append(run)
    std = next((r for r in runs if r["run"] == "decode_bf16"), None)
    off = next((r for r in runs if r["run"] == "decode_offloaded"), None)
    result = {"bandwidth": bw, "transformers": ref, "runs": runs}
    # Greedy tokens of the graph and eager runs (random weights: bf16 near-ties may flip late).
    a, b = ids.get("decode_bf16"), ids.get("decode_bf16_eager")
    if a and b:
        same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        result["graph_eager_identical_prefix"] = [same, min(len(a), len(b))]
        print(f"greedy tokens, graphs against eager: first {same} of {min(len(a), len(b))} identical")
    f = ids.get("decode_bf16_fused")
    if a and f:
        same = next((i for i, (x, y) in enumerate(zip(a, f)) if x != y), min(len(a), len(f)))
        result["fused_unfused_identical_prefix"] = [same, min(len(a), len(f))]
        print(f"greedy tokens, fused norm against LibTorch's: first {same} of {min(len(a), len(f))} identical")
    if ref and a:
        r = ref.get("ids") or []
        same = next((i for i, (x, y) in enumerate(zip(a, r)) if x != y), min(len(a), len(r)))
        result["docsift_transformers_identical_prefix"] = [same, min(len(a), len(r))]
        print(f"greedy tokens, docsift against transformers (bf16): first {same} of {min(len(a), len(r))} identical")
    if std and off and std["docsift_ms_per_token"] and off["docsift_ms_per_token"]:
        result["offloaded_over_standard"] = off["docsift_ms_per_token"] / std["docsift_ms_per_token"]
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    for r in runs:
        print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()
                          if k not in ("profile_per_step", "cuda_api_per_step")}))
        print("  per step:", json.dumps(r["profile_per_step"]))
        print("  cuda api per step:", json.dumps(r["cuda_api_per_step"]))
    if "offloaded_over_standard" in result:
        print("offloaded/standard ms per token:", round(result["offloaded_over_standard"], 2))


if __name__ == "__main__":
    main()
