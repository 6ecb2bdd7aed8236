#!/usr/bin/env python3
"""Scores a docsift run over make_tables.py's pages: rows and cells (precision, recall, F1) by
`docsift eval`, over all pages and per layout family (eval run on each family's share of the
truth), and each statement's balance check against balance_truth.csv.

    python3 bench/rows/measure.py TRUTH_DIR RUN_DIR [--docsift build/docsift] [--json OUT.json]

TRUTH_DIR is make_tables.py's OUT_DIR (ground_truth.jsonl, layouts.csv, balance_truth.csv);
RUN_DIR is `docsift run TRUTH_DIR --out RUN_DIR`'s folder. The balance check of a statement is its
record's `engine.checks.balance` ("sum": opening balance + transactions = closing balance;
"running"; false; "none" when the check did not run); it is *queued* when its transactions
(DESCRIPTIONS) are in the run's review queue (the record's `review`, as review.csv lists them).
The confusion matrices count the statements that add up and those that do not (balance_truth.csv)
against "the check says they add up" (sum) and against "queued". Standard library only.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def file_of(name):
    return name.split("#page=")[0]


def rows_scores(docsift, results, truth_lines):
    with tempfile.TemporaryDirectory() as tmp:
        truth, report = os.path.join(tmp, "truth.jsonl"), os.path.join(tmp, "report.json")
        with open(truth, "w") as f:
            f.write("".join(truth_lines))
        subprocess.run([docsift, "eval", results, truth, "--report", report], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        with open(report) as f:
            r = json.load(f)
    return {"rows": r["rows"]["rows"], "cells": r["rows"]["cells"], "columns": r["rows"]["columns"],
            "overall": r["overall"]}


def last_records(results):
    records = {}
    with open(results) as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                records[rec["file"]] = rec
    return records


def balance_table(truth_dir, records):
    """Per statement: (image, adds_up, misprint, check, queued)."""
    out = []
    with open(os.path.join(truth_dir, "balance_truth.csv"), newline="") as f:
        for row in csv.DictReader(f):
            rec = records.get(row["image_file"], {})
            ok = rec.get("status") == "ok"
            check = rec.get("engine", {}).get("checks", {}).get("balance", "none") if ok else "failed"
            check = {True: "true", False: "false"}.get(check, check)
            queued = ok and "DESCRIPTIONS" in (rec.get("review") or []) or not ok
            out.append((row["image_file"], row["adds_up"] == "yes", row["misprint"], check, queued))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth_dir")
    ap.add_argument("run_dir")
    ap.add_argument("--docsift", default=os.path.join(ROOT, "build", "docsift"))
    ap.add_argument("--json", help="write the figures as JSON here")
    ap.add_argument("--misses", action="store_true", help="list each statement the balance check or queue gets wrong")
    args = ap.parse_args()
    if args.json:
        out = os.path.realpath(args.json)
        for folder in (args.truth_dir, args.run_dir):
            if os.path.commonpath([out, os.path.realpath(folder)]) == os.path.realpath(folder):
                ap.error(f"--json {args.json} is inside {folder}, which this reads; write it elsewhere")
    results = os.path.join(args.run_dir, "results.jsonl")
    with open(os.path.join(args.truth_dir, "ground_truth.jsonl")) as f:
        truth = f.readlines()
    with open(os.path.join(args.truth_dir, "layouts.csv"), newline="") as f:
        family_of = {r["image_file"]: r["layout"] for r in csv.DictReader(f)}
    families = sorted(set(family_of.values()), key=list(family_of.values()).index)
    figures = {"all": rows_scores(args.docsift, results, truth)}
    for fam in families:
        lines = [t for t in truth if family_of[file_of(json.loads(t)["image_file"])] == fam]
        figures[fam] = rows_scores(args.docsift, results, lines)
    print(f"{'family':14} {'rows':>5} {'pred':>5} {'right':>5} {'P':>6} {'R':>6} {'row F1':>7}   "
          f"{'cells':>5} {'right':>5} {'P':>6} {'R':>6} {'cell F1':>7}  fields")
    for name in families + ["all"]:
        r, c = figures[name]["rows"], figures[name]["cells"]
        print(f"{name:14} {r['truth']:5d} {r['predicted']:5d} {r['right']:5d} {r['precision']:6.3f} {r['recall']:6.3f} "
              f"{r['f1']:7.3f}   {c['truth']:5d} {c['right']:5d} {c['precision']:6.3f} {c['recall']:6.3f} {c['f1']:7.3f}"
              f"  {figures[name]['overall']:.3f}")
    print("columns (all):", ", ".join(f"{k} {v['f1']:.3f} ({v['right']}/{v['truth']})"
                                      for k, v in figures["all"]["columns"].items()))
    table = balance_table(args.truth_dir, last_records(results))
    checks = {}
    for _, adds, _, check, _ in table:
        checks.setdefault(("adds up" if adds else "does not"), {}).setdefault(check, 0)
        checks["adds up" if adds else "does not"][check] += 1
    print(f"\nbalance check ({len(table)} statements): " +
          "; ".join(f"{k}: " + ", ".join(f"{c} {n}" for c, n in sorted(v.items())) for k, v in sorted(checks.items())))
    matrix = {}
    for what, col in (("check says it adds up (sum)", lambda t: t[3] == "sum"), ("queued", lambda t: t[4])):
        m = {(a, p): sum(1 for t in table if t[1] == a and col(t) == p) for a in (True, False) for p in (True, False)}
        matrix[what] = {f"{'adds up' if a else 'does not'} / {'yes' if p else 'no'}": n for (a, p), n in m.items()}
        print(f"{what:28}: adds up: {m[(True, True)]} yes, {m[(True, False)]} no;  does not add up: "
              f"{m[(False, True)]} yes, {m[(False, False)]} no")
    if args.misses:
        for image, adds, how, check, queued in table:
            if (check == "sum") != adds or queued == adds:
                print(f"  {image}: {'adds up' if adds else 'does not (' + how + ')'}; check {check}; "
                      f"{'queued' if queued else 'not queued'}")
    if args.json:
        with open(args.json, "w") as f:  # checked against the folders read before anything ran
            json.dump({"families": figures, "balance": {"statements": len(table), "checks": checks, "matrix": matrix}},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
