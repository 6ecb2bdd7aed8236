#!/usr/bin/env python3
"""The review queue of a docsift run against the truth, page by page: what "straight-through" gives.

    bench/confidence/queue.py RUN_FOLDER TRUTH [--receipts]

RUN_FOLDER is a `docsift run --out` folder (its results.jsonl: each ok record's fields, confidences,
`review` list and `review_reasons`). TRUTH is a ground_truth.csv in samples/' layout, or with
--receipts a SROIE folder (NNN.json: total, date, company, read by bench/ocr/score.py, and address,
judged as BUSINESS_ADDRESS). A value is
right by bench/confidence/refit.py's rules (the cent, the day, the seller's words, the same words);
only the fields the truth has are judged. Prints:

- pages, pages fully accepted (nothing queued), and of those the pages whose every accepted value
  the truth judges is right;
- values with a value, queued, accepted; accepted right;
- wrong values, and how many of them are queued; missing required values (queued as "missing") and
  the truth's values the run left N/A on a field the document type requires;
- the queue's rows by reason;
- per field the truth judges: its values right, and its accepted values right.

With --sums-total, it prints instead the TOTALs queued as "sums disagree", surest first, each right
or wrong, and what each bar of review.sums_total (in steps of 0.005) would accept: the run must
queue every such TOTAL (`docsift run ... --set review.sums_total=1`). These are the confidences as
run, in sample where the calibration saw the pages; the shipped bar is the lowest at which every
TOTAL accepted was right on the 200 development receipts out of fold, as bench/confidence/refit.py
fits it by the same rule (sums_total_bar; docs/confidence.md, "A sure TOTAL over sums that
disagree").
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refit import csv_truth, latest_records, right, schema_fields, schema_kinds, sums_total_bar, sure_over_sums  # noqa: E402
from score import receipts_truth  # noqa: E402  (refit puts bench/ocr on the path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("truth")
    ap.add_argument("--receipts", action="store_true", help="TRUTH is a SROIE folder (total, date, company, address only)")
    ap.add_argument("--sums-total", action="store_true",
                    help="the TOTALs queued as sums disagree, and the bar review.sums_total would fit")
    args = ap.parse_args()
    # SROIE labels the seller's address too: judged as BUSINESS_ADDRESS (the same words), so that a
    # page counts as right only when its address is.
    truth = receipts_truth(args.truth, address=True) if args.receipts else csv_truth(args.truth)
    kinds = schema_kinds()
    latest = latest_records(os.path.join(args.run, "results.jsonl"))
    if args.sums_total:
        return sums_total(latest, truth, kinds)
    pages = accepted_pages = accepted_pages_right = 0
    values = queued = right_accepted = judged_accepted = accepted = wrong = wrong_queued = missing_queued = 0
    # The truth's values of required fields (ABN, TOTAL on invoices and receipts) the run left N/A.
    required = {name: types for name, (_, types, needed) in schema_fields().items() if needed}
    missed = missed_queued = 0
    reasons = collections.Counter()
    per_field = collections.defaultdict(lambda: [0, 0, 0, 0])
    for name, r in sorted(latest.items()):
        base = os.path.basename(name.split("#page=")[0])
        if r.get("status") != "ok" or base not in truth or r.get("review") is None:
            continue
        pages += 1
        review = set(r["review"])
        why = r.get("review_reasons") or {}
        for field in r["review"]:
            reasons[why.get(field, "low confidence")] += 1
            missing_queued += why.get(field) == "missing"
        page_right = True
        page_type = (r.get("fields") or {}).get("DOCUMENT_TYPE", "N/A")
        for field, types in required.items():
            value = (r.get("fields") or {}).get(field, "N/A")
            has_truth = truth[base].get(field, "N/A").strip().upper() not in ("", "N/A")
            if value == "N/A" and has_truth and (not types or truth[base].get("DOCUMENT_TYPE", page_type) in types):
                missed += 1
                missed_queued += field in review
        for field, value in (r.get("fields") or {}).items():
            if value == "N/A":
                continue
            values += 1
            is_queued = field in review
            queued += is_queued
            judged = field in truth[base]
            ok = judged and right(field, kinds.get(field, "text"), value, truth[base][field])
            if judged:  # [values, right, accepted, accepted right]
                per_field[field] = [a + b for a, b in zip(per_field[field], (1, ok, not is_queued, ok and not is_queued))]
            if judged and not ok:
                wrong += 1
                wrong_queued += is_queued
            if not is_queued:
                accepted += 1
                if judged:
                    judged_accepted += 1
                    right_accepted += ok
                    page_right = page_right and ok
        if not review:
            accepted_pages += 1
            accepted_pages_right += page_right
    print(f"pages {pages}: fully accepted {accepted_pages} ({accepted_pages / max(pages, 1):.1%}), "
          f"of which every judged value right {accepted_pages_right}")
    print(f"values {values}: queued {queued}, accepted {accepted}; of the accepted the truth judges, right "
          f"{right_accepted} of {judged_accepted} ({right_accepted / max(judged_accepted, 1):.1%})")
    print(f"wrong values {wrong}: queued {wrong_queued} ({wrong_queued / max(wrong, 1):.1%})")
    print(f"required values the truth has and the run left N/A: {missed}, queued {missed_queued}; "
          f"rows queued as missing: {missing_queued}")
    print("queue by reason: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    print("per judged field, of the values with one: right; accepted, right of those: " + "; ".join(
        f"{f} {n[1]}/{n[0]}, {n[3]}/{n[2]}" for f, n in sorted(per_field.items())))


def sums_total(latest, truth, kinds):
    """The TOTALs queued for their sums, and the lowest bar over which every one accepted is right."""
    totals = []
    for name, r in sorted(latest.items()):
        base = os.path.basename(name.split("#page=")[0])
        if (r.get("review_reasons") or {}).get("TOTAL") != "sums disagree" or "TOTAL" not in truth.get(base, {}):
            continue
        ok = right("TOTAL", kinds.get("TOTAL", "amount"), r["fields"]["TOTAL"], truth[base]["TOTAL"])
        totals.append((r["confidence"]["TOTAL"], ok, base))
    totals.sort(reverse=True)
    print(f"TOTALs queued as sums disagree: {len(totals)}, right {sum(ok for _, ok, _ in totals)}")
    print("  " + " ".join(f"{c:.4f}{'+' if ok else '-'}" for c, ok, _ in totals))
    lowest = sums_total_bar([(c, ok) for c, ok, _ in totals])
    for bar in sorted({round(lowest, 3), 0.93, 0.95, 0.97, 0.98}):
        taken = [ok for c, ok, _ in totals if sure_over_sums(c, bar)]
        print(f"  bar {bar:.3f}: accepted {len(taken)}, right {sum(taken)}, wrong {len(taken) - sum(taken)}")
    print(f"lowest bar (steps of 0.005) over which every accepted TOTAL is right: {lowest:.3f}")


if __name__ == "__main__":
    main()
