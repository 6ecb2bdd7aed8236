#!/usr/bin/env bash
# Host memory over a long run: N images (hard links to one sample page, so they take no disk but
# are N distinct files), the tiny fixture model, one tile, one new token, CPU. Prints host RSS after
# cleanup (each record's memory.after.host_rss) at the start, middle and end, the spread after a
# warm-up, and the least-squares slope per image: flat means nothing is kept per image.
#   bench/run/memory_flat.sh [N=20000] [WARMUP=100]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${1:-20000}"
WARMUP="${2:-100}"
BIN="${BIN:-$ROOT/build/docsift}"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/in"
for i in $(seq -w 1 "$N"); do ln "$ROOT/samples/synthetic_invoice_001.png" "$WORK/in/page_$i.png"; done
start=$(date +%s)
"$BIN" run "$WORK/in" --model "$ROOT/tests/fixtures/internvl/hf" --device cpu --set model.dtype=float32 \
  --set model.max_tiles=1 --set generation.max_new_tokens=1 \
  --set extraction.fields="$ROOT/configs/fields/business-documents.yaml" --quiet --out "$WORK/out"
echo "$N images in $(( $(date +%s) - start )) s"
python3 - "$WORK/out/results.jsonl" "$WARMUP" <<'PY'
import json, sys
rss = [json.loads(l)["memory"]["after"]["host_rss"] / 2**20 for l in open(sys.argv[1])]
warm = int(sys.argv[2])
tail = rss[warm:]
n = len(tail)
xs = range(n)
mx, my = (n - 1) / 2, sum(tail) / n
slope = sum((x - mx) * (y - my) for x, y in zip(xs, tail)) / sum((x - mx) ** 2 for x in xs)
print(f"host RSS after cleanup, MiB: image 1 {rss[0]:.1f}, image {warm + 1} {tail[0]:.1f}, "
      f"image {len(rss) // 2} {rss[len(rss) // 2 - 1]:.1f}, last {rss[-1]:.1f}")
print(f"after image {warm}: min {min(tail):.2f}, max {max(tail):.2f}, spread {max(tail) - min(tail):.2f} MiB; "
      f"slope {slope * 2**20:.0f} bytes per image")
PY
