#!/usr/bin/env bash
# `docsift report` over a 1,000-record run: the time, the pages a second, the report's size and the
# peak memory (the targets: under 30 s on a 2-core machine, under about 100 MB).
#   [KEEP=1] bench/report/run.sh [SEED_FOLDER] [RECORDS]
# Reads SEED_FOLDER (default samples/, 20 pages) once with the OCR engine, then makes a run of
# RECORDS pages (default 1000) from it without reading again: the seed's pages copied under new
# names, each with its seed's record and truth row, as if the run had read them all. Then times
# `docsift report RUN --truth TRUTH` over it, which decodes, shrinks and encodes every page.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SEED="${1:-$ROOT/samples}"
RECORDS="${2:-1000}"
BIN="${BIN:-$ROOT/build/docsift}"
WORK="$(mktemp -d)"
if [ "${KEEP:-0}" = 1 ]; then echo "keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

"$BIN" run "$SEED" --quiet --out "$WORK/seed" || [ $? -eq 1 ]  # a failed seed page is a failed record, kept
python3 - "$SEED" "$WORK" "$RECORDS" <<'PY'
import csv, json, os, shutil, sys
seed, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
records = [json.loads(l) for l in open(f"{work}/seed/results.jsonl")]
truth = {}
if os.path.exists(f"{seed}/ground_truth.csv"):
    with open(f"{seed}/ground_truth.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, truth = rows[0], {r[0]: r for r in rows[1:]}
os.makedirs(f"{work}/run"); os.makedirs(f"{work}/inbox")
with open(f"{work}/run/results.jsonl", "w") as journal, open(f"{work}/truth.csv", "w", newline="") as t:
    out = csv.writer(t)
    if truth: out.writerow(header)
    for i in range(n):
        r = dict(records[i % len(records)])
        name = f"p{i:05d}_{r['file'].replace('/', '_')}"
        shutil.copyfile(f"{seed}/{r['file']}", f"{work}/inbox/{name}")
        if r["file"] in truth: out.writerow([name] + truth[r["file"]][1:])
        r["file"] = name
        journal.write(json.dumps(r) + "\n")
summary = json.load(open(f"{work}/seed/summary.json"))
summary["inputs"] = [f"{work}/inbox"]
json.dump(summary, open(f"{work}/run/summary.json", "w"))
PY
truth=()
[ -s "$WORK/truth.csv" ] && truth=(--truth "$WORK/truth.csv")
start=$(date +%s.%N)
/usr/bin/time -f "%M" -o "$WORK/rss" "$BIN" report "$WORK/run" "${truth[@]}" --out "$WORK/report" --quiet
end=$(date +%s.%N)
python3 - "$start" "$end" "$RECORDS" "$WORK" "$(nproc)" <<'PY'
import os, sys
start, end, n, work, cores = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(f"{work}/report") for f in fs)
rss = int(open(f"{work}/rss").read().split()[-1]) / 1024
wall = end - start
print(f"docsift report: {n} records in {wall:.1f} s ({n / wall:.1f} pages/s) on {cores} cores; "
      f"report {size / 1e6:.1f} MB ({size / n / 1024:.0f} KiB a page); peak RSS {rss:.0f} MiB")
PY
