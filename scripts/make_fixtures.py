#!/usr/bin/env python3
"""Tiny random checkpoints and reference outputs from transformers for the parity tests, one model family at a
time (or all of them). The one fixture script: the table below says, per family, which builder in
scripts/fixturegen/ runs and where it writes; fixturegen/common.py holds what the families share (the
synthetic page, the random weights of a realistic scale, file helpers) and each family module what differs.

Run from the repository root:
  scripts/pyenv.sh python3 scripts/make_fixtures.py [--family] FAMILY [--out DIR]
FAMILY is one of the table's keys or all (no argument = internvl). --out (one family only) writes the folder
elsewhere, e.g. to compare a remake with the committed fixtures. The builders empty their folder first, so --out
must name a new or empty folder: one that holds anything is refused, never emptied.

Nothing is downloaded. What each family writes is described in its module's docstring.
"""
import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixturegen.common import FIXTURES  # noqa: E402

# family -> (builder: module in fixturegen/ and its function of the output folder, folder under tests/fixtures/,
# what it is)
FAMILIES = {
    "internvl": ("internvl", "main", "internvl", "InternVL3: InternViT + Qwen2 with dynamic RoPE; hf/ and original/"),
    "internvl35": ("internvl", "main_internvl35", "internvl35",
                   "InternVL3.5: the same with a Qwen3 decoder (q/k norms, head_dim 24), 48 greedy tokens"),
    "mllama": ("mllama", "main", "mllama", "Llama 3.2 Vision: hub/ and tree/, Meta's intermediate-layer convention"),
    "qwen25vl": ("qwen25vl", "main", "qwen25vl",
                 "Qwen2.5-VL: hub/ and tf5/, both image-processor backends, the 3B/7B configs"),
    "qwen3vl": ("qwen3vl", "main", "qwen3vl",
                "Qwen3-VL: hub/, tf5/ and tf5-deep3/ (tied/untied, GQA/MQA, DeepStack sets), the 4B/8B configs"),
}


def build(family, out=None):
    module, function, folder, _ = FAMILIES[family]
    builder = getattr(importlib.import_module("fixturegen." + module), function)
    builder(out or os.path.join(FIXTURES, folder))


def check_out(parser, out):
    """Refuses an --out that holds anything: the builders empty their folder first (make_dirs), and a folder
    given by mistake (the checkout, /tmp, a source folder) must never be emptied."""
    if os.path.lexists(out) and not os.path.isdir(out):
        parser.error(f"--out {out}: not a folder; name a new or empty folder")
    if os.path.isdir(out) and os.listdir(out):
        parser.error(f"--out {out}: the folder is not empty, and the remake would empty it first; name a new or "
                     "empty folder")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="families: " + "; ".join(f"{k}: {v[3]}" for k, v in FAMILIES.items()))
    parser.add_argument("family", nargs="?", choices=[*FAMILIES, "all"])
    parser.add_argument("--family", dest="family_option", choices=[*FAMILIES, "all"])
    parser.add_argument("--out", help="write here instead of tests/fixtures/<family>/ (one family only; a new or "
                                      "empty folder)")
    args = parser.parse_args(argv)
    if args.family and args.family_option and args.family != args.family_option:
        parser.error("two different families given")
    family = args.family or args.family_option or "internvl"
    if args.out and family == "all":
        parser.error("--out takes one family")
    if args.out:
        check_out(parser, args.out)
    for name in (FAMILIES if family == "all" else [family]):
        build(name, args.out)


if __name__ == "__main__":
    main()
