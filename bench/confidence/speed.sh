#!/usr/bin/env bash
# The OCR engine's speed with and without a change to its confidences, in one run: two docsift
# binaries read the same pages in turn, ROUNDS times each, alternating so that the machine's other
# load falls on both alike, and the ratio of their median wall times is printed.
#
#   bench/confidence/speed.sh BEFORE_DOCSIFT AFTER_DOCSIFT [PAGES_DIR] [ROUNDS]
#
# PAGES_DIR defaults to samples/, ROUNDS to 5. A binary of an earlier commit comes from a worktree:
#   git worktree add /tmp/before REV && cmake -S /tmp/before -B /tmp/before/b -DDOCSIFT_WITH_TORCH=OFF \
#     -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/before/b --target docsift_cli
set -euo pipefail
before=${1:?usage: speed.sh BEFORE_DOCSIFT AFTER_DOCSIFT [PAGES_DIR] [ROUNDS]}
after=${2:?usage: speed.sh BEFORE_DOCSIFT AFTER_DOCSIFT [PAGES_DIR] [ROUNDS]}
root=$(cd "$(dirname "$0")/../.." && pwd)
pages=${3:-$root/samples}
rounds=${4:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Seconds of one run's pages (summary.json's throughput.wall_seconds_this_run: the run's own clock).
one() {
  local out="$work/$1-$2"
  "$3" run "$pages" --out "$out" --quiet >/dev/null 2>&1
  "$root/scripts/summary_value.py" "$out/summary.json" throughput.wall_seconds_this_run
}
for i in $(seq "$rounds"); do
  echo "before $(one before "$i" "$before")"
  echo "after $(one after "$i" "$after")"
done | python3 -c '
import statistics, sys
times = {"before": [], "after": []}
for line in sys.stdin:
    which, seconds = line.split()
    times[which].append(float(seconds))
b, a = statistics.median(times["before"]), statistics.median(times["after"])
for which, m in (("before", b), ("after", a)):
    print(f"{which}: median {m:.2f} s of " + ", ".join(f"{t:.2f}" for t in times[which]))
print(f"after / before: {a / b:.3f}")
'
