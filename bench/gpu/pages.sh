#!/usr/bin/env bash
# Pages per hour on a real `docsift run`: what a user's batch gets, start-up, model load,
# worker and outputs included, not a decode loop's tokens/s. N page images (copies of samples/*.png,
# as isolation.sh makes them) go through `docsift run --isolate worker` on DEVICE with keys decoding,
# the business-documents fields and a 16 GB memory budget (a V100's), in one of two modes:
#   int8       model.quantization int8, model.dtype float16 (the ladder as configured)
#   offloaded  model.dtype float16, no quantization, memory.tiers [offloaded_cache] only: every page
#              on the offloaded KV cache tier (docsift accepts that tier on the CPU too)
# Reported from the run's own files (summary.json, results.jsonl, the --metrics file): pages ok and
# failed, wall time, pages per hour (N / wall x 3600, and from summary.json's throughput), each
# stage's median and total (timings_s), prefill and decode tokens/s, the tier of each page, the
# device memory each record gives after its cleanup (memory.after.device), and the driver's used
# memory (nvidia-smi every 200 ms; none without nvidia-smi). Prints a summary and writes
# OUT_DIR/pages_MODE.json (the run's files stay in OUT_DIR/run_MODE). Exits with docsift's code.
#   bench/gpu/pages.sh DOCSIFT_BIN CHECKPOINT_DIR OUT_DIR [N=50] [MODE=int8]
#   env: DEVICE (default cuda:0), MAX_NEW (generation.max_new_tokens, default 256), BUDGET_GB (default
#        16; the 8B in float16 alone is 15.2 GB, so its offloaded run needs more: 24)
# A dry run on the CPU: DEVICE=cpu MAX_NEW=8 bench/gpu/pages.sh build/docsift tests/fixtures/internvl/hf /tmp/pages-out 6
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
usage() { sed -n "/^#   bench\/gpu\/pages.sh/,/^#   env:/s/^# *//p" "${BASH_SOURCE[0]}" >&2; exit 2; }
[ "$#" -ge 3 ] || usage
BIN="$1"; CKPT="$2"; OUT="$3"; N="${4:-50}"; MODE="${5:-int8}"
DEVICE="${DEVICE:-cuda:0}"; MAX_NEW="${MAX_NEW:-256}"; BUDGET_GB="${BUDGET_GB:-16}"
case "$MODE" in
  int8) MODE_SET=(--set model.quantization=int8 --set model.dtype=float16) ;;
  offloaded) MODE_SET=(--set model.quantization=none --set model.dtype=float16 --set 'memory.tiers=[offloaded_cache]') ;;
  *) echo "pages.sh: MODE is int8 or offloaded, not '$MODE'" >&2; usage ;;
esac
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "pages.sh: N must be a positive integer, not '$N'" >&2; usage; }
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
run="$OUT/run_$MODE"; log="$OUT/docsift_$MODE.log"
rm -rf "$run"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/images"
source "$ROOT/bench/gpu/sample_pages.sh"
sample_pages "$work/images" "$N"
# nvidia-smi on the GPU DEVICE names (cuda:N; cuda alone is 0); none on the CPU or without it.
gpu=""; [[ "$DEVICE" == cuda* ]] && command -v nvidia-smi > /dev/null && gpu="${DEVICE#cuda}" && gpu="${gpu#:}" && gpu="${gpu:-0}"
used() { [ -n "$gpu" ] && nvidia-smi -i "$gpu" --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; }
before=$(used); : > "$work/smi.txt"
smi=""
if [ -n "$gpu" ]; then
  nvidia-smi -i "$gpu" --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$work/smi.txt" 2>/dev/null &
  smi=$!
fi
start=$(date +%s.%N)
"$BIN" run "$work/images" --model "$CKPT" --device "$DEVICE" --isolate worker \
  --set extraction.decoding=keys --set extraction.fields="$ROOT/configs/fields/business-documents.yaml" \
  --set memory.budget_gb="$BUDGET_GB" --set generation.max_new_tokens="$MAX_NEW" "${MODE_SET[@]}" \
  --metrics "$run.prom" --quiet --out "$run" 2> "$log"
rc=$?
end=$(date +%s.%N)
[ -n "$smi" ] && { sleep 1; kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null; }
after=$(used)
tail -n 20 "$log" >&2
python3 - "$run" "$rc" "$MODE" "$DEVICE" "$N" "$MAX_NEW" "$start" "$end" "${before:-}" "${after:-}" "$work/smi.txt" "$log" "$OUT/pages_$MODE.json" <<'PY'
import json, os, statistics as st, sys
run, rc, mode, device, n, max_new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
wall = float(sys.argv[8]) - float(sys.argv[7])
before, after, smi_file, log, out = sys.argv[9], sys.argv[10], sys.argv[11], sys.argv[12], sys.argv[13]
def load(path, lines=False):
    if not os.path.exists(path): return [] if lines else None
    with open(path) as f: return [json.loads(l) for l in f if l.strip()] if lines else json.load(f)
s = load(f"{run}/summary.json") or {}
recs = load(f"{run}/results.jsonl", lines=True)
ok = [r for r in recs if r.get("status") == "ok"]
def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals: return None
    return {"min": min(vals), "max": max(vals), "spread": max(vals) - min(vals), "first": vals[0], "last": vals[-1], "pages": len(vals)}
stages = {}
for key in sorted({k for r in ok for k in (r.get("timings_s") or {})}):
    vals = [r["timings_s"][key] for r in ok if key in (r.get("timings_s") or {})]
    stages[key] = {"median_s": st.median(vals), "total_s": sum(vals), "pages": len(vals)}
tok = lambda k: sum((r.get("tokens") or {}).get(k, 0) for r in ok)
stage_total = lambda k: stages.get(k, {}).get("total_s", 0)
per_page_decode = [r["tokens"]["generated"] / r["timings_s"]["decode"] for r in ok
                   if (r.get("timings_s") or {}).get("decode") and (r.get("tokens") or {}).get("generated")]
dev = [((r.get("memory") or {}).get("after") or {}).get("device") or {} for r in ok]
thr = s.get("throughput") or {}
images = s.get("images") or {}
metrics = {}
if os.path.exists(f"{run}.prom"):
    for line in open(f"{run}.prom"):
        if line.strip() and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            metrics[name] = float(value)
smi = [int(x) for x in open(smi_file).read().split() if x.strip().isdigit()]
errors = [l.strip() for l in open(log) if l.strip()] if os.path.exists(log) else []
first = ok[0] if ok else {}
res = {
    "mode": mode, "device": s.get("device", device), "exit_code": rc, "pages": n, "max_new_tokens": max_new,
    "model": first.get("model"), "pages_ok": images.get("ok", len(ok)), "pages_failed": images.get("failed", len(recs) - len(ok)),
    "wall_s": wall, "pages_per_hour": n / wall * 3600 if wall > 0 and recs else None,
    "summary_throughput": thr,
    "pages_per_hour_summary": 3600 / thr["seconds_per_image"] if thr.get("seconds_per_image") else None,
    "pages_per_hour_summary_wall": images.get("this_run", 0) / thr["wall_seconds_this_run"] * 3600 if thr.get("wall_seconds_this_run") else None,
    "stages": stages,
    "tokens": {"prompt": tok("prompt"), "generated": tok("generated"), "forced": tok("forced"),
               "prefill_tokens_per_s": tok("prompt") / stage_total("prefill") if stage_total("prefill") else None,
               "decode_tokens_per_s": tok("generated") / stage_total("decode") if stage_total("decode") else None,
               "decode_tokens_per_s_median_page": st.median(per_page_decode) if per_page_decode else None},
    "tiers": s.get("tiers"), "tier_per_page": [r.get("tier") for r in ok],
    "plan_start_tiers": sorted({(r.get("plan") or {}).get("start_tier") for r in ok} - {None}),
    "pages_with_retries": sum(1 for r in ok if len(r.get("attempts") or []) > 1),
    "device_after": {k: spread([d.get(k) for d in dev]) for k in ("allocated", "reserved")},
    "memory_high_water": s.get("memory_high_water"), "isolation": s.get("isolation"),
    "nvidia_smi_mib": ({"before": before, "after": after, "min": min(smi) if smi else None, "max": max(smi) if smi else None,
                        "samples": len(smi), "every_5th": smi[::5]} if before or smi else None),
    "failed": [{"file": r.get("file"), "error": r.get("error")} for r in recs if r.get("status") == "failed"][:10],
    "metrics": metrics, "docsift_stderr": errors[-20:],
}
json.dump(res, open(out, "w"), indent=1)
fmt = lambda v, d=1: "none" if v is None else f"{v:,.{d}f}"
print(f"pages {mode} on {res['device']}: exit {rc}, {res['pages_ok']} ok, {res['pages_failed']} failed of {n}, wall {wall:.1f} s")
if rc != 0 and not recs:
    print("docsift did not run:", errors[-1] if errors else "(nothing on stderr)")
for f in res["failed"][:3]: print("failed:", f["file"], f["error"])
print(f"pages/hour: {fmt(res['pages_per_hour'], 0)} (N / wall), {fmt(res['pages_per_hour_summary'], 0)} (summary's seconds_per_image),"
      f" {fmt(res['pages_per_hour_summary_wall'], 0)} (summary's wall this run)")
print("stages (median / total s):", ", ".join(f"{k} {v['median_s']:.3f}/{v['total_s']:.1f}" for k, v in stages.items()) or "none")
t = res["tokens"]
print(f"tokens: prompt {t['prompt']}, generated {t['generated']}, forced {t['forced']}; prefill {fmt(t['prefill_tokens_per_s'])}/s,"
      f" decode {fmt(t['decode_tokens_per_s'])}/s (median page {fmt(t['decode_tokens_per_s_median_page'])})")
print("tiers:", res["tiers"], "plan start:", res["plan_start_tiers"] or "none", "pages retried:", res["pages_with_retries"])
for k, v in res["device_after"].items():
    print(f"device {k} after each page:", "none" if v is None else f"min {v['min']} max {v['max']} spread {v['spread']} first {v['first']} last {v['last']} bytes")
m = res["nvidia_smi_mib"]
print("nvidia-smi used MiB:", "none" if m is None else f"before {m['before']}, during min {m['min']} max {m['max']}, after {m['after']} ({m['samples']} samples)")
print("written:", out)
PY
exit "$rc"
