#!/usr/bin/env bash
# Every family's tiny fixture reads samples/ on DEVICE through the whole program (`docsift run`,
# keys decoding off, 16 new tokens): pages ok of 20, the tiers, the device's peak, the seconds a
# page. The random fixtures' text is noise; what this checks is that each family's model, its
# preprocessing and its sequence run on the device from start to end (docs/gpu.md).
#   bench/gpu/families.sh BIN WORK [DEVICE=cuda:0]
set -uo pipefail
BIN="$1" WORK="$2" DEVICE="${3:-cuda:0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$WORK"
failed=0
for fixture in internvl/hf internvl35/hf mllama/hub qwen25vl/hub qwen3vl/hub; do
  out="$WORK/family-${fixture//\//-}"
  rm -rf "$out"
  "$BIN" run "$ROOT/samples" --model "$ROOT/tests/fixtures/$fixture" --device "$DEVICE" \
    --set generation.max_new_tokens=16 --set extraction.fields="$ROOT/configs/fields/business-documents.yaml" \
    --quiet --out "$out" > "$out.log" 2>&1
  rc=$?
  python3 - "$fixture" "$rc" "$out/summary.json" <<'PY' || failed=1
import json, sys
fixture, rc, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    s = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"{fixture}: exit {rc}, no summary ({e})"); sys.exit(1)
i, t = s["images"], s["throughput"]
print(f"{fixture}: exit {rc}, device {s['device']}, {i['ok']} of {i['pages']} pages ok, {i['failed']} failed, "
      f"tiers {s['tiers']}, device peak {s['memory_high_water']['device_peak_allocated']} bytes, "
      f"{t['seconds_per_image']:.3f} s a page")
sys.exit(0 if rc == 0 and i["ok"] == i["pages"] == 20 else 1)
PY
  [ "$rc" = 0 ] || tail -n 5 "$out.log"
done
exit "$failed"
