#!/usr/bin/env python3
"""Fits the OCR engine's confidence per table row (the `row` model of
configs/fields/ocr-calibration.yaml; docs/confidence.md, "Rows") and prints how honest it is.

    scripts/pyenv.sh python3 bench/rows/fit_rows.py [--out DIR] [--reuse] [--folds 5] [--no-write]

A row is *right* when `docsift eval` matches it to a truth row and every cell that truth row gives
agrees (docs/eval.md, "Rows"): eval's own judgement, read from its report's rows.confidence.judged.
Its evidence is the record's engine.evidence_rows (ocr.write_evidence): its words' Tesseract
confidences, and whether its own check (quantity x unit price = amount, a statement's running
balance) or the table's (the rows' sum, the statement's balance) vouches for it or contradicts it,
and whether the second recognizer's reading of its description agreed, was taken, or disagreed.

The sets (each run twice by `build/docsift run`, with a calibration whose row model is flat, so
that every row gets a confidence for eval to judge: as the full build reads them, each row's
description read again by the second recognizer (the reader features), and as SET+tesseract with
ocr.recognizer=tesseract, as the build without LibTorch reads them; one model fitted on both, a
page's two runs in one fold):
  fitted:
  - samples: samples/ (20 synthetic invoices, samples/ground_truth_rows.jsonl);
  - receipts: the 200 hand-labelled SROIE training receipts of bench/rows/sroie_rows.jsonl and
    sroie_rows_second.jsonl;
  - tables-fit: make_tables.py --seed 7 --count 60, families wrapped, no_quantity, debit_credit.
  held apart (never fitted):
  - receipts-unseen: the 100 of bench/rows/sroie_rows_unseen.jsonl, of bench/ocr/get_receipts.sh's
    427 (left out, with a line saying so, where those are not fetched);
  - tables-held-layouts: make_tables.py --seed 3 --count 40, families two_pages and signed
    (layouts the fit never saw);
  - tables-held-pages: make_tables.py --seed 3 --count 45, the fitted families (pages it never saw).
The statements make_tables.py misprints on purpose (balance_truth.csv: adds_up no) are never fitted:
their rows are read right and their own sums contradict them, as a real statement's almost never do;
their figures are printed on a line of their own. Prints the out-of-fold figures of the fitted sets (k-fold over pages: each row's probability from a
model that did not see its page) and the held-apart sets' under the model fitted on all of them;
writes that model's line into configs/fields/ocr-calibration.yaml (every other line kept). Each
set's ECE under the line shipped before is printed beside it, on the same runs (that line was fitted
on the first 100 receipts, so it is in sample there).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "confidence"))
from refit import (ece, fit, latest_records, logit, one_model_out_of_fold, run_once,  # noqa: E402
                   sigmoid)  # one logistic regression, and one way to run docsift, for both

CALIBRATION = os.path.join(ROOT, "configs", "fields", "ocr-calibration.yaml")
FEATURES = ["word_min", "word_min_top", "word_mean", "labelled", "vouched", "contradicted", "sums_agree", "exact",
            "reader_agreed", "reader_disagreed", "reader_taken"]
L2 = 1.0
FIT_FAMILIES = "wrapped,no_quantity,debit_credit"
HELD_FAMILIES = "two_pages,signed"
THRESHOLDS = (0.5, 0.8, 0.9)


def docsift():
    return os.environ.get("DOCSIFT", os.path.join(ROOT, "build", "docsift"))


def python():
    return os.path.join(ROOT, ".deps", "venv", "bin", "python")


def flat_calibration(path):
    """The shipped calibration with a row model that gives every row 0.5 (no `row` line kept)."""
    with open(CALIBRATION, encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("  row:")]
    at = lines.index("fields:  # each field's kind, and its own shift of the kind's intercept (fit_offsets)\n")
    lines.insert(at, "  row: {intercept: 0, weights: {}}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def make_sets(out):
    """{name: (pages folder, truth jsonl, held apart)}, the generated pages made where missing."""
    sets = {"samples": (os.path.join(ROOT, "samples"), os.path.join(ROOT, "samples", "ground_truth_rows.jsonl"), False)}
    # The 200 development receipts (both files) are fitted; the unseen 100 are held apart, never
    # fitted, and read only where bench/ocr/get_receipts.sh has fetched them.
    for name, files, source, held in (
            ("receipts", ("sroie_rows.jsonl", "sroie_rows_second.jsonl"),
             os.path.join(ROOT, "..", "shared", "data", "sroie-train"), False),
            ("receipts-unseen", ("sroie_rows_unseen.jsonl",), os.path.join(ROOT, ".deps", "receipts-unseen"), True)):
        lines = []
        for file in files:
            with open(os.path.join(ROOT, "bench", "rows", file), encoding="utf-8") as f:
                lines += [line for line in f if line.strip()]
        images = [json.loads(line)["image_file"] for line in lines]
        if not all(os.path.exists(os.path.join(source, i)) for i in images):
            print(f"fit_rows.py: {name}: not every receipt is in {source}; the set is left out", file=sys.stderr)
            continue
        pages = os.path.join(out, name + "-pages")
        # Every labelled receipt linked, those labelled since an earlier run's too.
        os.makedirs(pages, exist_ok=True)
        for image in images:
            if not os.path.lexists(os.path.join(pages, image)):
                os.symlink(os.path.join(source, image), os.path.join(pages, image))
        truth = os.path.join(out, name + "-truth.jsonl")
        with open(truth, "w", encoding="utf-8") as f:
            f.writelines(line if line.endswith("\n") else line + "\n" for line in lines)
        sets[name] = (pages, truth, held)
    for name, seed, count, families, held in (("tables-fit", 7, 60, FIT_FAMILIES, False),
                                               ("tables-held-layouts", 3, 40, HELD_FAMILIES, True),
                                               ("tables-held-pages", 3, 45, FIT_FAMILIES, True)):
        pages = os.path.join(out, name + "-pages")
        if not os.path.exists(os.path.join(pages, "ground_truth.jsonl")):
            subprocess.run([python(), os.path.join(ROOT, "bench", "rows", "make_tables.py"), pages, "--count",
                            str(count), "--seed", str(seed), "--families", families], check=True,
                           stdout=subprocess.DEVNULL)
        sets[name] = (pages, os.path.join(pages, "ground_truth.jsonl"), held)
    return sets


def document_key(name):
    """As eval names a document (io/page_name.h): "x.tif#page=1" is "x.tif", page 2 keeps its mark."""
    name = os.path.basename(name)
    return name[: -len("#page=1")] if name.endswith("#page=1") else name


def judged_rows(run, truth, set_name, page_set):
    """Each predicted row eval judged: its features, whether it is right, and its page (named by
    `page_set`, so that the two readings of one page fall in one fold)."""
    report = os.path.join(run, "rows-eval.json")
    subprocess.run([docsift(), "eval", os.path.join(run, "results.jsonl"), truth, "--report", report],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(report, encoding="utf-8") as f:
        judged = json.load(f)["rows"]["confidence"]["judged"]
    features = {}  # document → its rows' evidence, as eval keeps a document's last record's rows
    for rec in latest_records(os.path.join(run, "results.jsonl")).values():
        if rec.get("status") == "ok":
            features[document_key(rec["file"])] = (rec.get("engine") or {}).get("evidence_rows", [])
    misprinted = set()  # make_tables.py's statements that do not add up on purpose
    balance_truth = os.path.join(os.path.dirname(truth), "balance_truth.csv")
    if os.path.exists(balance_truth):
        with open(balance_truth, encoding="utf-8") as f:
            misprinted = {document_key(r["image_file"]) for r in csv.DictReader(f) if r["adds_up"] == "no"}
    rows = []
    for j in judged:
        x = features[j["document"]][j["row"] - 1]
        rows.append({"x": x, "y": 1 if j["right"] else 0, "page": page_set + "/" + j["document"], "set": set_name,
                     "misprinted": j["document"] in misprinted})
    return rows


def shipped_line():
    """The row line configs/fields/ocr-calibration.yaml holds now, as [intercept, w...] over
    FEATURES (a feature it does not name weighs 0), or None where it has none."""
    with open(CALIBRATION, encoding="utf-8") as f:
        line = next((x for x in f if x.startswith("  row:")), None)
    if line is None:
        return None
    model = yaml.safe_load(line.split("#", 1)[0])["row"]
    return [float(model["intercept"])] + [float(model["weights"].get(n, 0.0)) for n in FEATURES]


def predict(w, row):
    return sigmoid(logit(w, FEATURES, row))


def out_of_fold(rows, folds):
    one_model_out_of_fold(rows, FEATURES, folds, L2)


def report(name, rows, shipped):
    if not rows:
        print(f"| {name} | 0 | | | | | |")
        return
    e, _ = ece(rows)
    before = f"{ece([dict(r, p=predict(shipped, r)) for r in rows])[0]:.3f}" if shipped else ""
    right = sum(r["y"] for r in rows)
    mean = sum(r["p"] for r in rows) / len(rows)
    cells = []
    for t in THRESHOLDS:
        accepted = [r for r in rows if r["p"] >= t]
        wrong = [r for r in rows if not r["y"]]
        acc = sum(r["y"] for r in accepted) / len(accepted) if accepted else float("nan")
        queued = sum(1 for r in wrong if r["p"] < t)
        cells.append(f"{len(accepted)} accepted, {acc:.3f} right, {queued}/{len(wrong)} wrong queued")
    print(f"| {name} | {len(rows)} | {right / len(rows):.3f} | {mean:.3f} | {before} | {e:.3f} | "
          + " | ".join(cells) + " |")


def write_row_line(w, count):
    weights = ", ".join(f"{n}: {wi:.4f}" for n, wi in zip(FEATURES, w[1:]))
    line = f"  row: {{intercept: {w[0]:.4f}, weights: {{{weights}}}}}  # {count} rows (bench/rows/fit_rows.py)\n"
    with open(CALIBRATION, encoding="utf-8") as f:
        lines = [x for x in f if not x.startswith("  row:")]
    at = next(i for i, x in enumerate(lines) if x.startswith("fields:"))
    lines.insert(at, line)
    with open(CALIBRATION, "w", encoding="utf-8") as f:
        f.writelines(lines)
    print(f"wrote {CALIBRATION}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "rows-fit"))
    ap.add_argument("--reuse", action="store_true", help="keep the runs already in --out")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    flat = os.path.join(args.out, "flat-row-calibration.yaml")
    flat_calibration(flat)
    fitted, held, misprints = [], {}, []
    for base, (pages, truth, held_apart) in make_sets(args.out).items():
        # Each set read as the full build reads it (the second recognizer reads each row's
        # description again: the reader features) and by Tesseract alone, as the build without
        # LibTorch does, so that a row no second recognizer read gets the confidence such rows
        # earn, not one learnt only from rows that were read again.
        for name, reader in ((base, []), (base + "+tesseract", ["--set", "ocr.recognizer=tesseract"])):
            run = os.path.join(args.out, name)
            run_once("fit_rows.py", docsift(), pages, run,
                     ["--follow-links", "--set", "input.accept_truncated=true", "--set", "ocr.write_evidence=true",
                      "--set", "ocr.calibration=" + flat]
                     + reader, args.reuse)
            rows = judged_rows(run, truth, name, base)
            # A statement misprinted on purpose is read right and contradicted by its own sums, as
            # a real statement almost never is: it is scored apart, never fitted.
            misprints.extend(r for r in rows if r["misprinted"])
            rows = [r for r in rows if not r["misprinted"]]
            (held.setdefault(name, []) if held_apart else fitted).extend(rows)
    out_of_fold(fitted, args.folds)
    w = fit(fitted, FEATURES, l2=L2)
    for r in misprints + [r for rows in held.values() for r in rows]:
        r["p"] = predict(w, r)
    print(f"\nrow model: intercept {w[0]:+.4f}, " + ", ".join(f"{n} {wi:+.4f}" for n, wi in zip(FEATURES, w[1:])))
    shipped = shipped_line()
    print("\n| rows of | rows | right | mean confidence | ECE, line shipped before | ECE | "
          + " | ".join(f"at {t}" for t in THRESHOLDS) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(THRESHOLDS))
    for name in sorted({r["set"] for r in fitted}):
        report(name + " (out of fold)", [r for r in fitted if r["set"] == name], shipped)
    report("all fitted (out of fold)", fitted, shipped)
    for name, rows in held.items():
        report(name + " (held apart)", rows, shipped)
    report("misprinted statements, every set (never fitted)", misprints, shipped)
    if not args.no_write:
        write_row_line(w, len(fitted))


if __name__ == "__main__":
    main()
