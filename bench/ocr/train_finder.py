#!/usr/bin/env python3
"""Trains the OCR engine's field finder (lib/docsift/ocr/finder.h) and writes configs/fields/ocr-finder.yaml.

    scripts/pyenv.sh python3 bench/ocr/train_finder.py [--out DIR] [--reuse] [--folds 5] [--write FILE]
                                                      [--no-write] [--end-to-end]

1. Runs `build/docsift run` with ocr.write_evidence=true (each record's engine.candidates then holds
   every candidate the finder ranked, with its features) over the development pages:
   - receipts: the 200 of ../shared/data/sroie-train and the 427 more of bench/ocr/get_receipts.sh
     (.deps/receipts-unseen), ICDAR 2019 SROIE's training split; never its test split;
   - varied: 150 pages of bench/confidence/make_varied.py's fitted layout families (seed 1);
   - held-out: 60 pages of its held-apart families (seed 2), never trained on, reported apart.
2. Labels each candidate right when its amount is the truth's to the cent (bench/ocr/score.py).
3. Fits, per field, a conditional logit: the page's candidates compete under a softmax, trained on
   the pages whose truth is among their candidates (a page whose candidates are all wrong teaches
   the ranking nothing; labelled "none" instead, they cost 2 points of TOTAL on the receipts, as
   the finder then leaves more pages N/A). Newton's method with an L2 penalty, in float64, from
   zero: the same data gives the same weights, written rounded to 4 decimals. In the engine "none"
   scores 0: a page whose candidates all score below 0 keeps its field N/A.
4. Prints, per set, the pages, how often the truth is among the candidates, and the accuracy of the
   finder's pick trained on all pages beside the k-fold held-out accuracy (each page picked by a
   model that never saw its fold). Receipts are folded by seller (two receipts of one shop never
   straddle a fold), generated pages by layout family.
5. --end-to-end runs docsift again per fold, with that fold's weights, over the fold's receipts, and
   scores the whole engine (second reading and all, with the build's default settings: the full
   build reads with the second recognizer) with score.py: the held-out figures of TOTAL, and of
   INVOICE_DATE and SUPPLIER, which the finder does not choose yet. --recognizer tesseract reads
   them with Tesseract alone.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr"))
sys.path.insert(0, os.path.join(ROOT, "bench", "confidence"))
from refit import FIT_LAYOUTS, HELD_OUT_LAYOUTS, csv_truth, latest_records  # noqa: E402
from score import cents, day, receipts_truth, supplier_ok  # noqa: E402

RECEIPTS = os.path.join(ROOT, "..", "shared", "data", "sroie-train")
RECEIPTS_427 = os.path.join(ROOT, ".deps", "receipts-unseen")
L2 = 1.0
FIELD = "TOTAL"


def features(field):
    """The feature names in finder.cpp's order, read from the C++ source so the two cannot drift."""
    text = open(os.path.join(ROOT, "lib", "docsift", "ocr", "finder.cpp"), encoding="utf-8").read()
    block = re.search(r'\{"' + field + r'",\s*\{(.*?)\}\}', text, re.S).group(1)
    return re.findall(r'"([a-z_]+)"', block)


def run_docsift(folder, out, extra=()):
    cmd = [os.environ.get("DOCSIFT", os.path.join(ROOT, "build", "docsift")), "run", folder, "--out", out, "--quiet",
           "--set", "input.accept_truncated=true", "--set", "ocr.write_evidence=true", *extra]
    print("$ " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=False)


def right_value(field, pred, truth):
    """score.py's rules: TOTAL to the cent, the date's calendar day, every word of the seller."""
    if not pred or pred == "N/A":
        return False
    if field == "TOTAL":
        return cents(pred) is not None and cents(pred) == cents(truth)
    if field == "INVOICE_DATE":
        return day(pred) is not None and day(pred) == day(truth)
    return supplier_ok(pred, truth)


def seller_group(company):
    return " ".join(re.findall(r"[a-z0-9]+", company.lower()))[:24]


def load_pages(journal, truth, group_of, set_name):
    """Per page with a TOTAL in the truth: its candidates' feature rows, which are right, its group."""
    names = features(FIELD)
    pages = []
    for name, r in sorted(latest_records(journal).items()):
        base = os.path.basename(name.split("#page=")[0])
        if r.get("status") != "ok" or base not in truth or cents(truth[base]) is None:
            continue
        ranked = ((r.get("engine") or {}).get("candidates") or {}).get(FIELD, [])
        x = np.array([[c["x"].get(f, 0.0) for f in names] for c in ranked], dtype=np.float64).reshape(-1, len(names))
        y = np.array([cents(c["value"]) == cents(truth[base]) for c in ranked], dtype=bool)
        pages.append({"set": set_name, "page": base, "group": group_of(base), "x": x, "y": y,
                      "values": [cents(c["value"]) for c in ranked],
                      "final": cents(r["fields"].get(FIELD, "N/A")) == cents(truth[base])})
    return pages


def fit(pages, dims, iterations=60):
    """Conditional logit over the pages whose truth is among their candidates: the likelihood of
    the right amount, wherever it was proposed (one amount may be proposed by a label, by what was
    paid and as a printed amount: the probabilities of its candidates add up). Split evenly between
    them as fixed targets instead, the proposals no label makes pull the weights their way: 0.81
    held out against 0.85. Newton's method with the softmax's own curvature and an L2 penalty, from
    zero."""
    w = np.zeros(dims)
    for _ in range(iterations):
        grad = -L2 * w
        hess = -L2 * np.eye(dims)
        for p in pages:
            if not p["y"].any():
                continue
            z = p["x"] @ w
            e = np.exp(z - z.max())
            prob = e / e.sum()
            mean = prob @ p["x"]
            right = prob * p["y"]
            grad += (right / right.sum()) @ p["x"] - mean
            hess -= (p["x"].T * prob) @ p["x"] - np.outer(mean, mean)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return np.round(w, 4)


def pick_right(p, w):
    """Whether the finder's pick is right: the amount whose candidates' probabilities add up
    highest, as `fit` trains and the engine picks (find_totals_rank.cpp). The candidate-by-candidate
    argmax picked 2 fewer of each receipt set held out (2026-12-01)."""
    if len(p["x"]) == 0:
        return False
    z = p["x"] @ w
    prob = np.exp(z - z.max())
    share = {}
    for value, q in zip(p["values"], prob):
        share[value] = share.get(value, 0.0) + q
    best = max(share, key=lambda v: (share[v], -p["values"].index(v)))
    return bool(any(y for value, y in zip(p["values"], p["y"]) if value == best))


def folds_of(pages, k):
    """Groups dealt to k folds in a fixed order (largest first), so folds are about even."""
    sizes = {}
    for p in pages:
        sizes[p["group"]] = sizes.get(p["group"], 0) + 1
    fold_of, load = {}, [0] * k
    for g in sorted(sizes, key=lambda g: (-sizes[g], g)):
        f = load.index(min(load))
        fold_of[g] = f
        load[f] += sizes[g]
    return [fold_of[p["group"]] for p in pages]


def write_yaml(path, w, names, note):
    body = ", ".join(f"{n}: {round(v, 4) + 0.0:.4f}" for n, v in zip(names, w))  # + 0.0: never "-0.0000"
    with open(path, "w", encoding="utf-8") as f:
        f.write("# The trained field finder (lib/docsift/ocr/finder.h, docs/ocr.md): per field, a candidate's score\n"
                "# is the sum of weight * feature; the page's candidates compete under a softmax beside \"none\"\n"
                "# (score 0). Written by bench/ocr/train_finder.py; do not edit by hand, retrain.\n"
                f"# {note}\n"
                "fields:\n"
                f"  {FIELD}:\n"
                f"    weights: {{{body}}}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "finder"))
    ap.add_argument("--reuse", action="store_true", help="read the runs already in --out")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--write", default=os.path.join(ROOT, "configs", "fields", "ocr-finder.yaml"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--end-to-end", action="store_true", help="score each fold's receipts with that fold's weights")
    ap.add_argument("--recognizer", default="", help="ocr.recognizer for --end-to-end (default: the build's)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sets = {}
    for name, folder in (("receipts", RECEIPTS), ("receipts-427", RECEIPTS_427)):
        truth = {k: v["TOTAL"] for k, v in receipts_truth(folder).items() if "TOTAL" in v}
        companies = {k: v.get("SUPPLIER", "") for k, v in receipts_truth(folder).items()}
        sets[name] = (folder, truth, lambda b, c=companies: "r:" + seller_group(c[b]))
    for name, (layouts, count, seed) in (("varied", (FIT_LAYOUTS, 150, 1)), ("held-out", (HELD_OUT_LAYOUTS, 60, 2))):
        folder = os.path.join(args.out, name + "-pages")
        if not os.path.exists(os.path.join(folder, "layouts.csv")):
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "confidence", "make_varied.py"), folder,
                            "--count", str(count), "--layouts", ",".join(layouts), "--seed", str(seed)], check=True)
        truth = {k: v["TOTAL"] for k, v in csv_truth(os.path.join(folder, "ground_truth.csv")).items()}
        layout = {k: v["layout"] for k, v in csv_truth(os.path.join(folder, "layouts.csv")).items()}
        sets[name] = (folder, truth, lambda b, lay=layout: "l:" + lay[b])
    pages = []
    for name, (folder, truth, group_of) in sets.items():
        journal = os.path.join(args.out, name, "results.jsonl")
        if not (args.reuse and os.path.exists(journal)):
            shutil.rmtree(os.path.join(args.out, name), ignore_errors=True)
            # The first reading's candidates are Tesseract's whatever the recognizer: read without it.
            run_docsift(folder, os.path.join(args.out, name), ("--set", "ocr.recognizer=tesseract"))
        pages += load_pages(journal, truth, group_of, name)
    names = features(FIELD)
    train = [p for p in pages if p["set"] != "held-out"]
    w = fit(train, len(names))
    fold = folds_of(train, args.folds)
    oof = [False] * len(train)
    fold_w = []
    for f in range(args.folds):
        wf = fit([p for p, g in zip(train, fold) if g != f], len(names))
        fold_w.append(wf)
        for i, p in enumerate(train):
            if fold[i] == f:
                oof[i] = pick_right(p, wf)
    print(f"## {FIELD}: the finder's pick (the first reading's candidates), trained on all beside held out\n")
    print("| set | pages | truth among the candidates | engine as run | trained on all | held out (k-fold) |")
    print("|---|---|---|---|---|---|")
    for name in sets:
        idx = [i for i, p in enumerate(pages) if p["set"] == name]
        sel = [pages[i] for i in idx]
        n = len(sel)
        recall = sum(bool(p["y"].any()) for p in sel)
        final = sum(p["final"] for p in sel)
        fitted = sum(pick_right(p, w) for p in sel)
        if name == "held-out":
            held = fitted  # never trained on: the model trained on all is the held-out one
        else:
            held = sum(oof[train.index(p)] for p in sel)
        print(f"| {name} | {n} | {recall / n:.3f} | {final / n:.3f} | {fitted / n:.3f} | {held / n:.3f} |")
    print("\nweights: " + ", ".join(f"{a} {b:+.3f}" for a, b in zip(names, w)))
    note = (f"Trained on {len(train)} pages (receipts, receipts-427, varied); {args.folds}-fold held-out figures: "
            "bench/ocr/README.md.")
    if not args.no_write:
        write_yaml(args.write, w, names, note)
        print(f"wrote {args.write}")
    if args.end_to_end:
        end_to_end(args, sets, train, fold, fold_w, names)


def end_to_end(args, sets, train, fold, fold_w, names):
    """Each fold's receipts read by docsift with that fold's weights; score.py over them all."""
    right, total = {}, {}
    for name in ("receipts", "receipts-427"):
        folder = sets[name][0]
        rows = []
        for f, wf in enumerate(fold_w):
            pick = [p["page"] for p, g in zip(train, fold) if g == f and p["set"] == name]
            if not pick:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                pages = os.path.join(tmp, "pages")
                os.makedirs(pages)
                for base in pick:
                    os.symlink(os.path.join(os.path.abspath(folder), base), os.path.join(pages, base))
                weights = os.path.join(tmp, "finder.yaml")
                write_yaml(weights, wf, names, f"fold {f}")
                out = os.path.join(args.out, "e2e", name, str(f))
                shutil.rmtree(out, ignore_errors=True)
                extra = ("--set", "ocr.finder=" + weights, "--set", "input.follow_links=true")
                if args.recognizer:
                    extra += ("--set", "ocr.recognizer=" + args.recognizer)
                run_docsift(pages, out, extra)
                for r in latest_records(os.path.join(out, "results.jsonl")).values():
                    rows.append((os.path.basename(r["file"]), r.get("fields", {})))
        truth = receipts_truth(sets[name][0])
        line = []
        for field in ("TOTAL", "INVOICE_DATE", "SUPPLIER"):
            # A receipt whose label is empty (score.py: receipts_truth) judges nothing on that field.
            judged = [(b, f) for b, f in rows if field in truth.get(b, {})]
            ok = sum(right_value(field, f.get(field, "N/A"), truth[b][field]) for b, f in judged)
            line.append(f"{field} {ok}/{len(judged)} = {ok / max(1, len(judged)):.3f}")
            right[field] = right.get(field, 0) + ok
            total[field] = total.get(field, 0) + len(judged)
        print(f"end to end, {name}, held out: " + ", ".join(line))
    print("end to end, all receipts, held out: " +
          ", ".join(f"{f} {n}/{total[f]} = {n / max(1, total[f]):.3f}" for f, n in right.items()))


if __name__ == "__main__":
    main()
