#!/usr/bin/env python3
"""Prints one value of a run's summary.json, by its dotted path, for the bench and ops scripts:

    scripts/summary_value.py OUT/summary.json images.pages

A run's own counts are its summary's, never its journal's lines: the pass over the pages that agree
writes a page's record again where its agreement moved (docs/run.md)."""
import json
import sys

if len(sys.argv) != 3:
    sys.exit("usage: summary_value.py SUMMARY.json KEY[.KEY...]")
value = json.load(open(sys.argv[1], encoding="utf-8"))
for key in sys.argv[2].split("."):
    value = value[key]
print(value)
