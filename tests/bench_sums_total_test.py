#!/usr/bin/env python3
"""review.sums_total as bench/confidence/refit.py fits it and queue.py prints it.

    tests/bench_sums_total_test.py SOURCE_DIR

- sums_total_bar: the lowest bar, in steps of 0.005, over which every TOTAL queued as "sums
  disagree" is right; 0 where none is wrong, 1 where the surest wrong one is at 1.
- sure_over_sums: a TOTAL at or over the bar passes its sums; a bar of 1 passes none, as the
  queue's ReviewThresholds::sure_over_sums.
- pages_accepted: a page whose TOTAL the run queued as "sums disagree" (the refit's runs queue every
  such TOTAL: review.sums_total=1) counts as accepted whole only where the refitted probability is
  at or over the bar; any other reason still holds the page.

Exits 0 when every check holds, 1 otherwise (each failure printed).
"""
import json
import os
import sys
import tempfile

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def main():
    sys.path.insert(0, os.path.join(sys.argv[1], "bench", "confidence"))
    from refit import pages_accepted, sums_total_bar, sure_over_sums

    check("none wrong", sums_total_bar([(0.99, True), (0.5, True)]), 0.0)
    check("no TOTAL", sums_total_bar([]), 0.0)
    # Over the surest wrong one, to the step above it: 0.9687 -> 0.970 (the 200's 689.jpg).
    check("over the surest wrong", round(sums_total_bar([(0.9621, True), (0.9687, False), (0.8587, False)]), 3), 0.97)
    check("a wrong one on a step", round(sums_total_bar([(0.95, False)]), 3), 0.955)
    check("a sure wrong one queues all", sums_total_bar([(1.0, False)]), 1.0)
    check("never over 1", sums_total_bar([(0.998, False)]), 1.0)
    check("at the bar", sure_over_sums(0.98, 0.98), True)
    check("under the bar", sure_over_sums(0.9799, 0.98), False)
    check("a bar of 1 accepts none, one at 1 too", sure_over_sums(1.0, 1.0), False)

    with tempfile.TemporaryDirectory() as out:
        os.makedirs(os.path.join(out, "receipts+both"))
        records = [
            # queued for its sums only: accepted at a bar under its probability
            {"file": "a.jpg", "status": "ok", "review": ["TOTAL"], "review_reasons": {"TOTAL": "sums disagree"}},
            # queued for its sums, and its SUBTOTAL too, which the truth does not judge: held
            {"file": "b.jpg", "status": "ok", "review": ["TOTAL", "SUBTOTAL"],
             "review_reasons": {"TOTAL": "sums disagree", "SUBTOTAL": "sums disagree"}},
            # its date queued for another reason than its confidence: held, whatever the bar
            {"file": "c.jpg", "status": "ok", "review": ["INVOICE_DATE"], "review_reasons": {"INVOICE_DATE": "dates disagree"}},
            # queued at low confidence only: its probability decides
            {"file": "d.jpg", "status": "ok", "review": ["TOTAL"]},
        ]
        with open(os.path.join(out, "receipts+both", "results.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        rows = [{"set": "receipts+both", "page": f"receipts/{name}", "field": field, "p": p, "y": 1}
                for name, field, p in (("a.jpg", "TOTAL", 0.98), ("b.jpg", "TOTAL", 0.98), ("c.jpg", "TOTAL", 0.99),
                                       ("c.jpg", "INVOICE_DATE", 0.99), ("d.jpg", "TOTAL", 0.95))]
        threshold = lambda field: 0.93  # noqa: E731
        got = pages_accepted(rows, threshold, out, ("receipts+both",), 0.97)
        check("bar 0.97: a.jpg and d.jpg", got, {"receipts+both": (4, 2, 2)})
        got = pages_accepted(rows, threshold, out, ("receipts+both",), 0.99)
        check("bar 0.99: d.jpg alone", got, {"receipts+both": (4, 1, 1)})
        rows[0]["p"] = 1.0
        got = pages_accepted(rows, threshold, out, ("receipts+both",), 1.0)
        check("bar 1 queues every such TOTAL, one at 1 too: d.jpg alone", got, {"receipts+both": (4, 1, 1)})

    for line in failures:
        print(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
