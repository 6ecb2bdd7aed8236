#!/usr/bin/env bash
# `docsift run --isolate worker` on cuda:0 over N pages (copies of samples/, the tiny InternVL3
# fixture), the worker recycled every R images. Reports what summary.json says the supervisor
# mapped (libcuda, /dev/nvidia*), the device memory each page's record gives after cleanup, and
# the driver's used memory (nvidia-smi, sampled every 200 ms) before, during and after: a
# recycle must hand the worker's memory back to the driver.
#   bench/gpu/isolation.sh DOCSIFT_BIN [N=50] [R=10]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="$1"; N="${2:-50}"; R="${3:-10}"; DEVICE="${DEVICE:-cuda:0}"
work="$(mktemp -d)"; mkdir -p "$work/images"
source "$ROOT/bench/gpu/sample_pages.sh"
sample_pages "$work/images" "$N"
used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; }
before=$(used)
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$work/smi.txt" 2>/dev/null &
smi=$!
start=$(date +%s.%N)
"$BIN" run "$work/images" --model "$ROOT/tests/fixtures/internvl/hf" --device "$DEVICE" --isolate worker \
  --set memory.worker.recycle_after_images="$R" --set generation.max_new_tokens=16 \
  --set extraction.fields="$ROOT/configs/fields/business-documents.yaml" --quiet --out "$work/out"
rc=$?
end=$(date +%s.%N)
sleep 1
kill "$smi" 2>/dev/null
after=$(used)
python3 - "$work" "$rc" "$before" "$after" "$start" "$end" <<'PY'
import json, sys
work, rc, before, after = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
start, end = float(sys.argv[5]), float(sys.argv[6])
s = json.load(open(f"{work}/out/summary.json"))
print("exit", rc, "images", s.get("images"), "memory_high_water", s.get("memory_high_water"), "tiers", s.get("tiers"), "wall s", round(end - start, 1))
print("isolation", json.dumps(s.get("isolation")))
rows = [json.loads(l) for l in open(f"{work}/out/results.jsonl")]
after_dev = [((r.get("memory") or {}).get("after") or {}).get("device") for r in rows]
pids = [(r.get("worker") or {}).get("pid") for r in rows]
print("pages", len(rows), "workers (pids)", len(set(pids)))
print("memory.after.device of page 1:", json.dumps(after_dev[0]))
for key in ("allocated", "reserved"):
    vals = [d.get(key) for d in after_dev if isinstance(d, dict) and d.get(key) is not None]
    if vals:
        print(f"after cleanup, {key}: min {min(vals)} max {max(vals)} spread {max(vals) - min(vals)} bytes over {len(vals)} pages")
smi = [int(x) for x in open(f"{work}/smi.txt").read().split() if x.strip().isdigit()]
print(f"nvidia-smi used MiB: before {before}, during min {min(smi) if smi else None} max {max(smi) if smi else None}, after {after} ({len(smi)} samples)")
print("samples MiB (every 5th):", smi[::5])
PY
exit "$rc"
