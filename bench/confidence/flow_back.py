#!/usr/bin/env python3
"""Corrections that teach the next run: one batch reviewed, its sellers listed, the next batch read.

    DOCSIFT=build/docsift bench/confidence/flow_back.py --first RUN_A --first-truth DIR_A \\
        --second DIR_B --work W [--checked] [--reuse]

What an accounts-payable team does with docsift, measured on the SROIE receipts (docs/confidence.md,
"Corrections that teach the next run"):

1. RUN_A, a `docsift run` of the first batch, is copied to W/first (RUN_A is never changed).
2. A person works its queue: each row of review.csv whose value the truth (DIR_A's labels, read by
   bench/ocr/score.py) judges wrong gets the label in `corrected`; a row judged right, or one the
   truth has no label for, is left empty. W/corrections.csv, then `docsift review apply`.
3. `docsift review sellers W/first --out W/sellers.tsv` (with --checked: the queued values left
   uncorrected count as right, as the person read them all).
4. `docsift run DIR_B --out W/second` with `ocr.known_sellers` set to that list (--reuse keeps a
   finished W/second).
5. The second batch's queue against its truth: bench/confidence/queue.py's figures.

The second batch never lends its labels to the list; the first's reach it only as corrections of
the values the run queued, and the values it accepted go in as read, right or wrong.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from refit import ROOT, right, schema_kinds  # noqa: E402
from score import receipts_truth  # noqa: E402  (refit puts bench/ocr on the path)


def docsift(*args):
    cmd = [os.environ.get("DOCSIFT", os.path.join(ROOT, "build", "docsift")), *args]
    print("$ " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)


def corrections(review_csv, truth, kinds, out_csv):
    """Writes the person's filled-in CSV; returns (rows, corrected)."""
    with open(review_csv, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    made = 0
    with open(out_csv, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["image_file", "field", "value", "corrected"])
        for r in rows:
            label = truth.get(r["image_file"], {}).get(r["field"], "")
            wrong = label and (r["value"] == "N/A" or not right(r["field"], kinds.get(r["field"], "text"), r["value"], label))
            w.writerow([r["image_file"], r["field"], r["value"], label if wrong else ""])
            made += bool(wrong)
    return len(rows), made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--first", required=True, help="a docsift run folder of the first batch")
    ap.add_argument("--first-truth", required=True, help="the first batch's SROIE folder (NNN.json)")
    ap.add_argument("--second", required=True, help="the second batch's SROIE folder (pages and NNN.json)")
    ap.add_argument("--work", required=True, help="a folder for the copy, the list and the second run")
    ap.add_argument("--checked", action="store_true", help="review sellers --checked")
    ap.add_argument("--reuse", action="store_true", help="keep a finished second run")
    args = ap.parse_args()

    # W/first and W/second are removed before they are written, and RUN_A is copied into W: RUN_A
    # may be neither of them (nor inside one), and W may not lie inside RUN_A.
    run_a, work = os.path.realpath(args.first), os.path.realpath(args.work)
    inside = lambda path, folder: os.path.commonpath([path, folder]) == folder  # noqa: E731
    if inside(work, run_a) or any(inside(run_a, os.path.join(work, d)) for d in ("first", "second")):
        sys.exit(f"flow_back.py: --work {args.work} would remove or copy into --first {args.first}; give another --work")
    first = os.path.join(args.work, "first")
    second = os.path.join(args.work, "second")
    sellers = os.path.join(args.work, "sellers.tsv")
    os.makedirs(args.work, exist_ok=True)
    shutil.rmtree(first, ignore_errors=True)
    shutil.copytree(args.first, first, ignore=shutil.ignore_patterns(".docsift.lock"))
    kinds = schema_kinds()
    filled = os.path.join(args.work, "corrections.csv")
    rows, made = corrections(os.path.join(first, "review.csv"), receipts_truth(args.first_truth, address=True), kinds, filled)
    print(f"first batch: {rows} values queued, {made} corrected from the labels")
    docsift("review", "apply", first, "--file", filled)
    docsift("review", "sellers", first, "--out", sellers, *(["--checked"] if args.checked else []))
    if not (args.reuse and os.path.exists(os.path.join(second, "summary.json"))):
        shutil.rmtree(second, ignore_errors=True)
        docsift("run", args.second, "--out", second, "--quiet", "--set", "input.accept_truncated=true",
                "--set", "ocr.known_sellers=" + sellers)
    subprocess.run([sys.executable, os.path.join(HERE, "queue.py"), second, args.second, "--receipts"], check=True)


if __name__ == "__main__":
    main()
