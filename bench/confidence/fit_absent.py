#!/usr/bin/env python3
"""Fits the OCR engine's confidence that a required field left N/A is absent from the page (the
`absent:` models of configs/fields/ocr-calibration.yaml; docs/confidence.md, "A required value left
N/A") and prints how honest it is.

    scripts/pyenv.sh python3 bench/confidence/fit_absent.py [--out DIR] [--reuse] [--folds 5] [--no-write]

A required field is one configs/fields/business-documents.yaml marks `required: true` (ABN and TOTAL,
on tax invoices and receipts). Its N/A is *right* when the page prints no such value. The evidence
is the record's engine.evidence_absent (ocr.write_evidence; lib/docsift/ocr/page_checks.h,
absence_of): whether one of the field's labels was read on the page (label_seen), whether a run
shaped like its value was (shape_seen: an ABN's 11 digits that fail its check digits, or the start
of its grouping), whether the page shows itself from abroad (abroad: a country or region other than
Australia named, amounts mostly in another currency than dollars) or Australian (home: a state
before a postcode, an .au address, Pty Ltd; configs/fields/ocr-rules.yaml's `home`).
Only ABN is fitted: every invoice and receipt of these sets prints a total (the run left 2 N/A, both
on the 427), so there is no TOTAL rightly absent to fit on; a TOTAL left N/A stays queued as missing.

The sets (each run once by `build/docsift run` with the shipped settings and ocr.write_evidence, and
a calibration whose ABN absence model gives 0.5, so that every ABN left N/A gets its evidence):
  fitted:
  - receipts: the 200 SROIE training receipts of ../shared/data/sroie-train. Their truth has no ABN
    column: they are Malaysian receipts, which print no Australian Business Number (SROIE's own
    transcripts of the 626 training receipts hold no "ABN" and no 11-digit run that passes its
    check digits), so their ABN is N/A;
  - samples: samples/ (every field labelled);
  - varied: make_varied.py --seed 1 --count 150, the fitted layout families (refit.py's).
  held apart (never fitted):
  - receipts-427: the 427 more SROIE training receipts (bench/ocr/get_receipts.sh);
  - held-out: make_varied.py --seed 2 --count 60, the layout families refit.py holds apart;
  - invoices: the 19 born-digital invoices of bench/ocr/invoices (21 pages; bench/ocr/get_invoices.sh),
    from sellers in Czechia, Germany, Switzerland, France, Britain and the United States: no ABN.
Prints the out-of-fold figures of the fitted sets (k-fold over pages) and the held-apart sets' under
the model fitted on all of them, at the review threshold ABN has (review.threshold); writes the
model into the calibration's `absent:` block (every other line kept).
"""
import argparse
import csv
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "confidence"))
from refit import (FIT_LAYOUTS, HELD_OUT_LAYOUTS, csv_truth, ece, fit, latest_records, logit,  # noqa: E402
                   one_model_out_of_fold, run_once, schema_fields, sigmoid)

CALIBRATION = os.path.join(ROOT, "configs", "fields", "ocr-calibration.yaml")
FIELD = "ABN"
FEATURES = ["label_seen", "shape_seen", "abroad", "home"]
L2 = 1.0
THRESHOLD = 0.83  # review.threshold's default (lib/docsift/config/config.h), which ABN has


def docsift():
    return os.environ.get("DOCSIFT", os.path.join(ROOT, "build", "docsift"))


def python():
    return os.path.join(ROOT, ".deps", "venv", "bin", "python")


def calibration_lines():
    """The shipped calibration without its `absent:` block."""
    with open(CALIBRATION, encoding="utf-8") as f:
        return f.read().split("\nabsent:", 1)[0].rstrip("\n") + "\n"


def absent_block(w, count):
    weights = ", ".join(f"{n}: {wi:.4f}" for n, wi in zip(FEATURES, w[1:]))
    return ("absent:  # per required field, the probability that its N/A is right: the page prints none "
            "(bench/confidence/fit_absent.py)\n"
            f"  {FIELD}: {{intercept: {w[0]:.4f}, weights: {{{weights}}}}}  # {count} pages\n")


def make_sets(out):
    """{name: (pages folder, {page: truth ABN}, held apart)}, the generated pages made where missing."""
    receipts = os.environ.get("RECEIPTS", os.path.join(ROOT, "..", "shared", "data", "sroie-train"))
    receipts_427 = os.environ.get("RECEIPTS_UNSEEN", os.path.join(ROOT, ".deps", "receipts-unseen"))
    types = schema_fields()[FIELD][1]

    def receipts_truth(folder):  # Malaysian receipts: no ABN (the docstring says how that was checked)
        return {n: "N/A" for n in os.listdir(folder) if n.endswith(".jpg")} if os.path.isdir(folder) else {}

    def generated_truth(folder):
        return {n: t.get(FIELD, "N/A") for n, t in csv_truth(os.path.join(folder, "ground_truth.csv")).items()
                if t.get("DOCUMENT_TYPE") in types}

    sets = {"receipts": (receipts, receipts_truth(receipts), False),
            "samples": (os.path.join(ROOT, "samples"), generated_truth(os.path.join(ROOT, "samples")), False)}
    for name, seed, count, layouts, held in (("varied", 1, 150, FIT_LAYOUTS, False),
                                             ("held-out", 2, 60, HELD_OUT_LAYOUTS, True)):
        pages = os.path.join(out, name + "-pages")
        if not os.path.exists(os.path.join(pages, "ground_truth.csv")):
            subprocess.run([python(), os.path.join(ROOT, "bench", "confidence", "make_varied.py"), pages, "--count",
                            str(count), "--layouts", ",".join(layouts), "--seed", str(seed)], check=True,
                           stdout=subprocess.DEVNULL)
        sets[name] = (pages, generated_truth(pages), held)
    sets["receipts-427"] = (receipts_427, receipts_truth(receipts_427), True)
    # Born-digital invoices of sellers in Czechia, Germany, Switzerland, France, Britain and the
    # United States (bench/ocr/invoices/truth.csv, bench/ocr/get_invoices.sh): none prints an ABN.
    invoices = os.environ.get("INVOICES", os.path.join(ROOT, ".deps", "invoices"))
    with open(os.path.join(ROOT, "bench", "ocr", "invoices", "truth.csv"), newline="", encoding="utf-8") as f:
        names = [r["file"] for r in csv.DictReader(f)]
    sets["invoices"] = (invoices, {n: "N/A" for n in names} if os.path.isdir(invoices) else {}, True)
    return sets


def absent_rows(run, truth, set_name):
    """Each page of the truth whose ABN the run left N/A: its evidence, and whether N/A is right."""
    rows = []
    for name, rec in latest_records(os.path.join(run, "results.jsonl")).items():
        base = os.path.basename(name.split("#page=")[0])
        if rec.get("status") != "ok" or base not in truth or (rec.get("fields") or {}).get(FIELD) != "N/A":
            continue
        x = ((rec.get("engine") or {}).get("evidence_absent") or {}).get(FIELD)
        if x is None:
            sys.exit(f"fit_absent.py: {run}: {name} has no engine.evidence_absent.{FIELD}")
        truth_value = truth[base].strip()
        rows.append({"x": x, "y": 1 if truth_value.upper() in ("", "N/A") else 0, "page": set_name + "/" + base,
                     "set": set_name})
    return rows


def predict(w, row):
    return sigmoid(logit(w, FEATURES, row))


def out_of_fold(rows, folds):
    one_model_out_of_fold(rows, FEATURES, folds, L2)


def report(name, rows, pages):
    if not rows:
        print(f"| {name} | {pages} | 0 | | | | | |")
        return
    e, _ = ece(rows)
    right = sum(r["y"] for r in rows)
    accepted = [r for r in rows if r["p"] >= THRESHOLD]
    wrong = [r for r in rows if not r["y"]]
    acc = f"{sum(r['y'] for r in accepted)}/{len(accepted)}" if accepted else "0/0"
    queued = sum(1 for r in wrong if r["p"] < THRESHOLD)
    print(f"| {name} | {pages} | {len(rows)} | {right} | {sum(r['p'] for r in rows) / len(rows):.3f} | {e:.3f} | "
          f"{acc} | {queued}/{len(wrong)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "absent-fit"))
    ap.add_argument("--reuse", action="store_true", help="keep the runs already in --out")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    flat = os.path.join(args.out, "flat-absent-calibration.yaml")
    with open(flat, "w", encoding="utf-8") as f:
        f.write(calibration_lines() + absent_block([0.0] * (len(FEATURES) + 1), 0))
    fitted, held, pages = [], {}, {}
    for name, (folder, truth, held_apart) in make_sets(args.out).items():
        if not truth:
            print(f"{name}: {folder} has no pages; skipped (bench/ocr/get_receipts.sh and get_invoices.sh fetch them)",
                  file=sys.stderr)
            continue
        run = os.path.join(args.out, name)
        run_once("fit_absent.py", docsift(), folder, run,
                 ["--set", "input.accept_truncated=true", "--set", "ocr.write_evidence=true",
                  "--set", "ocr.calibration=" + flat], args.reuse)
        rows = absent_rows(run, truth, name)
        pages[name] = len(truth)
        (held.setdefault(name, []) if held_apart else fitted).extend(rows)
    out_of_fold(fitted, args.folds)
    w = fit(fitted, FEATURES, l2=L2)
    for rows in held.values():
        for r in rows:
            r["p"] = predict(w, r)
    print(f"\n{FIELD} absent model: intercept {w[0]:+.4f}, "
          + ", ".join(f"{n} {wi:+.4f}" for n, wi in zip(FEATURES, w[1:])))
    print("\nPages of a type that requires it whose ABN the run left N/A: how often N/A is right, the mean")
    print(f"confidence, and at review.threshold {THRESHOLD}: N/A accepted (right/all), wrong N/A queued.\n")
    print("| set | documents | pages left N/A | N/A right | mean confidence | ECE | accepted right | wrong queued |")
    print("|---|---|---|---|---|---|---|---|")
    for name in [n for n in pages if n not in held]:
        report(name + " (out of fold)", [r for r in fitted if r["set"] == name], pages[name])
    report("all fitted (out of fold)", fitted, sum(pages[n] for n in pages if n not in held))
    for name, rows in held.items():
        report(name + " (held apart)", rows, pages[name])
    for label, cut in (("label_seen", "label_seen"), ("shape_seen", "shape_seen")):
        part = [r for r in fitted if r["x"].get(cut)]
        print(f"\nfitted pages with {label}: {len(part)}, N/A right on {sum(r['y'] for r in part)}", end="")
    print()
    if not args.no_write:
        text = calibration_lines() + absent_block(w, len(fitted))  # read before the file is opened to write
        with open(CALIBRATION, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {CALIBRATION}", file=sys.stderr)


if __name__ == "__main__":
    main()
