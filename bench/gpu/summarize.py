#!/usr/bin/env python3
"""Folds the session's decode runs (bench/gpu/session.sh) into bench/generate/results/gpu.json's
form: per run model, dtype, device, docsift_ms_per_token, transformers_ms_per_token,
weight_bytes_per_token, bandwidth_limit_gbps, with the ratios docs/gpu.md's targets are stated in.
    summarize.py WORK_DIR OUT_JSON [HISTORY_JSON]
With HISTORY_JSON (bench/generate/results/gpu.json), OUT_JSON is that file with this session as
"latest" and every earlier session in "earlier", newest first, so the file always holds the latest
run and loses none; copy it back over the history after the session.
"""
import datetime
import json
import os
import subprocess
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


def machine():
    """The card, its memory and driver, the cores, torch's and transformers' versions."""
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        gpu = "no nvidia-smi"
    try:
        import torch
        import transformers
        versions = f"torch {torch.__version__}, transformers {transformers.__version__}"
    except ImportError as e:
        versions = f"({e})"
    return f"{gpu}; {os.cpu_count()} cores; {versions}"


def with_history(result, history_path):
    """The history file's sessions with `result` as the latest. The file's older form was one
    session at its top level; it becomes the first of "earlier"."""
    with open(history_path) as f:
        history = json.load(f)
    earlier = history.get("earlier", [])
    if "latest" in history:
        earlier = [history["latest"]] + earlier
    elif "runs" in history:
        earlier = [history] + earlier
    return {"latest": result, "earlier": earlier}


def main():
    work, out = sys.argv[1], sys.argv[2]
    history_path = sys.argv[3] if len(sys.argv) > 3 else None
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
    # decode_bf16: the defaults (CUDA graphs, model.fused_norm, model.decode_kernels); _libtorch:
    # none of docsift's kernels (cuBLAS and LibTorch's ops, graphs on); _norm_only: the fused norm
    # without the decode kernels; _eager: no graphs.
    for name in ("decode_bf16", "decode_bf16_libtorch", "decode_bf16_norm_only", "decode_bf16_eager", "decode_fp16",
                 "decode_offloaded"):
        d = load(os.path.join(work, name + ".json"))
        if not d:
            print(f"{name}: no result")
            continue
        ms = d.get("decode_ms_per_token")
        wb = d.get("weight_bytes_per_token")
        limit_ms = wb / (read_gbps * 1e9) * 1e3 if (wb and read_gbps) else None
        ids[name] = d.get("ids") or []
        run = {"run": name, "cuda_graphs": d.get("cuda_graphs"), "fused_norm": d.get("fused_norm"),
               "decode_kernels": d.get("decode_kernels"), "model": "InternVL3-8B-shaped, random weights", "dtype": d.get("dtype"),
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
        run["top_gpu_kernels"] = (d.get("top_gpu_kernels") or p.get("top_gpu_kernels") or [])[:12]
        runs.append(run)
    std = next((r for r in runs if r["run"] == "decode_bf16"), None)
    off = next((r for r in runs if r["run"] == "decode_offloaded"), None)
    result = {"date": datetime.date.today().isoformat(), "machine": machine(),
              "how": "bench/gpu/session.sh (docs/gpu.md): docsift_bench_decode and bench/generate/reference_gpu.py on "
                     "bench/int8/make_checkpoint.py --shape 8b, 1 tile, 64 new tokens (offloaded: 32), median decode "
                     "step after the first; bandwidth_limit_gbps from bench/gpu/bandwidth.py",
              "bandwidth": bw, "transformers": ref, "runs": runs}
    def prefix(x, y, what, key):
        """x, y: run names (their ids) or id lists."""
        a = ids.get(x) if isinstance(x, str) else x
        b = ids.get(y) if isinstance(y, str) else y
        if a and b:
            same = next((i for i, (u, v) in enumerate(zip(a, b)) if u != v), min(len(a), len(b)))
            result[key] = [same, min(len(a), len(b))]
            print(f"greedy tokens, {what}: first {same} of {min(len(a), len(b))} identical")
    # Greedy tokens (random weights: bf16 near-ties may flip late).
    prefix("decode_bf16", "decode_bf16_libtorch", "docsift's kernels against LibTorch's ops", "kernels_libtorch_identical_prefix")
    prefix("decode_bf16", "decode_bf16_eager", "graphs against eager", "graph_eager_identical_prefix")
    if ref:
        prefix("decode_bf16", ref.get("ids") or [], "docsift against transformers (bf16)", "docsift_transformers_identical_prefix")
    fp16 = next((r for r in runs if r["run"] == "decode_fp16"), None)
    if std and fp16 and std["docsift_ms_per_token"] and fp16["docsift_ms_per_token"]:
        result["fp16_over_bf16"] = fp16["docsift_ms_per_token"] / std["docsift_ms_per_token"]
        print("float16/bfloat16 ms per token:", round(result["fp16_over_bf16"], 3))
    if std and off and std["docsift_ms_per_token"] and off["docsift_ms_per_token"]:
        result["offloaded_over_standard"] = off["docsift_ms_per_token"] / std["docsift_ms_per_token"]
    with open(out, "w") as f:
        json.dump(with_history(result, history_path) if history_path else result, f, indent=1)
    for r in runs:
        print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()
                          if k not in ("profile_per_step", "cuda_api_per_step", "top_gpu_kernels")}))
        print("  per step:", json.dumps(r["profile_per_step"]))
        print("  cuda api per step:", json.dumps(r["cuda_api_per_step"]))
        for k in r["top_gpu_kernels"]:
            print("   ", json.dumps(k)[:200])
    if "offloaded_over_standard" in result:
        print("offloaded/standard ms per token:", round(result["offloaded_over_standard"], 2))


if __name__ == "__main__":
    main()
