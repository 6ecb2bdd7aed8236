#!/usr/bin/env python3
"""The table run.sh prints from the two sides' JSON (standard library only, any python3):
    summary.py FAMILY RUN_DIR MODEL_DIR LABEL
RUN_DIR holds docsift.json, docsift.maxrss_kb, reference.json and the two .loadavg files. The rows each family
shows are in ROWS; what else it prints is in its function below. Prefill includes encoding the image on both
sides: transformers does it inside the forward pass. qwen3vl's decoder is internvl35's, so its summary also prints
its decode tokens/s over InternVL3.5's from the internvl35-run folder beside RUN_DIR, when there is one."""
import json
import os
import sys
import time


def agreement(ours, ref):
    agree = sum(1 for a, b in zip(ours["ids"], ref["ids"]) if a == b)
    first = next((i for i, (a, b) in enumerate(zip(ours["ids"], ref["ids"])) if a != b), None)
    return agree, first


# family -> (column widths, rows: (name, docsift's value, transformers' value, format, lower is better)). The ratio
# is how many times faster / smaller docsift is (> 1 is better for docsift), except in InternVL's table, which
# has always printed docsift / transformers (so its RSS ratio is < 1 when docsift is smaller).
DECODE_TPS = ("decode tokens/s", lambda s: s.ours["tokens_per_s"]["decode"], lambda r: r["decode_tokens_per_s"])
ROWS = {
    "internvl": ((22, 12, 14), [
        ("prefill tokens/s", lambda s: s.prefill, lambda r: r["prefill_tokens_per_s"], ".1f", False),
        (*DECODE_TPS, ".2f", False),
        ("peak RSS MB", lambda s: s.rss, lambda r: r["peak_rss_mb"], ".0f", False)]),
    "mllama": ((34, 10, 14), [
        ("vision s", lambda s: s.t["vision"], lambda r: r["vision_s"], ".2f", True),
        ("prefill tokens/s (image included)", lambda s: s.prefill, lambda r: r["prefill_tokens_per_s"], ".2f", False),
        ("decode ms/token", lambda s: 1000 * s.t["decode"] / (s.n - 1), lambda r: r["decode_ms_per_token"], ".1f",
         True),
        ("peak RSS MB", lambda s: s.rss, lambda r: r["peak_rss_mb"], ".0f", True)]),
    "qwen_vl": ((34, 10, 14), [
        ("vision s", lambda s: s.t["vision"], lambda r: r["vision_s"], ".2f", True),
        ("prefill tokens/s (image included)", lambda s: s.prefill, lambda r: r["prefill_tokens_per_s"], ".1f", False),
        (*DECODE_TPS, ".2f", False),
        ("peak RSS MB", lambda s: s.rss, lambda r: r["peak_rss_mb"], ".0f", True)]),
}


class Sides:
    def __init__(self, out):
        self.ours = json.load(open(os.path.join(out, "docsift.json")))
        self.rss = int(open(os.path.join(out, "docsift.maxrss_kb")).read().split()[-1]) / 1024
        self.ref = json.load(open(os.path.join(out, "reference.json")))
        self.t = self.ours["timings_s"]
        self.n = len(self.ours["ids"])
        self.prefill = self.ours["prompt_tokens"] / (self.t["vision"] + self.t["prefill"])
        self.load = [open(os.path.join(out, f + ".loadavg")).read().strip() for f in ("docsift", "reference")]
        self.out = out


def table(family, s):
    (w0, w1, w2), rows = ROWS[family]
    print(f"{'':<{w0}}{'docsift':>{w1}}{'transformers':>{w2}}{'ratio':>8}")
    for name, ours, ref, fmt, better_low in rows:
        a, b = ours(s), ref(s.ref)
        ratio = b / a if better_low else a / b
        print(f"{name:<{w0}}{a:>{w1}{fmt}}{b:>{w2}{fmt}}{ratio:>7.2f}x")


def greedy_line(s, first_detail):
    agree, first = agreement(s.ours, s.ref)
    msg = f"greedy tokens identical: {agree}/{len(s.ref['ids'])}"
    if first is not None and first_detail:
        msg += (f" (first difference at {first}: docsift {s.ours['ids'][first]}, transformers {s.ref['ids'][first]}, "
                f"transformers' top-1 - top-2 logit gap there {s.ref['top2_gaps'][first]:.5f})")
    elif first is not None:
        msg += f" (first difference at {first})"
    print(msg)


def tail(s):
    print(f"1-minute load average before each side: docsift {s.load[0]}, transformers {s.load[1]}")
    print(f"smallest top-1 - top-2 logit gap in the reference's {len(s.ref['ids'])} steps: "
          f"{min(s.ref['top2_gaps']):.5f}")


def internvl(s, model, label):
    print(f"{label}-shaped random weights, CPU float32, {s.ours['tiles']} tile, {s.ours['prompt_tokens']} prompt "
          f"tokens, {s.n} new tokens, {s.ref['threads']} threads")
    table("internvl", s)
    greedy_line(s, first_detail=False)


def mllama(s, model, label):
    ours, ref, t, n = s.ours, s.ref, s.t, s.n
    assert (ours["tiles"], ours["prompt_tokens"]) == (ref["tiles"], ref["prompt_tokens"]), "the two sides' inputs differ"
    print(f"{label} (4 text layers, 1 cross; 2+1 vision layers), random weights, CPU float32, "
          f"{ours['tiles']} tiles, {ours['prompt_tokens']} prompt tokens, {n} new tokens, {ref['threads']} threads; "
          f"transformers vision attention: {ref['vision_attn']}")
    table("mllama", s)
    print("(ratios: transformers / docsift for times and memory, docsift / transformers for tokens/s)")
    print(f"prefill s: docsift {t['vision']:.2f} vision + {t['prefill']:.2f} text; transformers {ref['prefill_s']:.2f} "
          f"(one forward pass, vision inside, after the timed vision call)")
    print(f"decode tokens/s: docsift {(n - 1) / t['decode']:.2f}, transformers {ref['decode_tokens_per_s']:.2f}")
    la, lv, lp = ref["rss_after_load_mb"], ref["rss_after_vision_mb"], ref["rss_after_prefill_mb"]
    print(f"docsift weights as held {ours['weight_bytes'] / 2**20:.0f} MiB (memory-mapped); transformers peak RSS MB "
          f"after load {la['peak']:.0f}, after the vision call {lv['peak']:.0f}, after prefill {lp['peak']:.0f} (then "
          f"anon {lp['RssAnon']:.0f} + file {lp['RssFile']:.0f})")
    greedy_line(s, first_detail=True)
    tail(s)


def qwen_vl(s, model, label):
    """Qwen2.5-VL (text keys at the config's top level) and Qwen3-VL (nested under text_config)."""
    ours, ref, t, n = s.ours, s.ref, s.t, s.n
    cfg = json.load(open(os.path.join(model, "config.json")))
    assert ours["prompt_tokens"] == ref["prompt_tokens"], "the two sides' prompts differ"
    assert ours["grid"] == [ref["grid_thw"][2], ref["grid_thw"][1]], "the two sides' patch grids differ"
    g = ref["grid_thw"]
    print(f"{label}-shaped random weights ({cfg.get('text_config', cfg)['num_hidden_layers']} text layers, vision "
          f"depth {cfg['vision_config']['depth']}), CPU float32, {g[1]}x{g[2]} patches ({ref['patches'] // 4} image "
          f"tokens), {ours['prompt_tokens']} prompt tokens, {n} new tokens, {ref['threads']} threads")
    table("qwen_vl", s)
    print("(ratios: transformers / docsift for times and memory, docsift / transformers for tokens/s)")
    print(f"prefill s: docsift {t['vision']:.2f} vision + {t['prefill']:.2f} text; transformers {ref['prefill_s']:.2f} "
          f"(one forward pass, vision {ref['vision_s']:.2f} inside)")
    la, lp = ref["rss_after_load_mb"], ref["rss_after_prefill_mb"]
    print(f"docsift weights as held {ours['weight_bytes'] / 2**20:.0f} MiB; transformers peak RSS MB after load "
          f"{la['peak']:.0f}, after prefill {lp['peak']:.0f} (then anon {lp['RssAnon']:.0f} + file "
          f"{lp['RssFile']:.0f})")
    greedy_line(s, first_detail=True)
    tail(s)


def qwen3vl(s, model, label):
    """qwen_vl's table, then decode tokens/s over InternVL3.5's (the same decoder shape: the issue's "within 10 %"),
    from the internvl35 run beside this one."""
    qwen_vl(s, model, label)
    other = os.path.join(os.path.dirname(os.path.abspath(s.out)), "internvl35-run")
    if not os.path.exists(os.path.join(other, "docsift.json")):
        print(f"no {other}/docsift.json: run --family internvl35 first for the decode ratio to InternVL3.5")
        return
    o = Sides(other)
    ours, theirs = s.ours["tokens_per_s"]["decode"], o.ours["tokens_per_s"]["decode"]
    ref, ref_o = s.ref["decode_tokens_per_s"], o.ref["decode_tokens_per_s"]
    print(f"decode tokens/s against InternVL3.5-1B (same decoder; its run of "
          f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(os.path.getmtime(os.path.join(other, 'docsift.json'))))}"
          f", {o.ours['prompt_tokens']} prompt tokens, load {o.load[0]} / {o.load[1]}): docsift {ours:.2f} / "
          f"{theirs:.2f} = {ours / theirs:.3f}; transformers {ref:.2f} / {ref_o:.2f} = {ref / ref_o:.3f}")


# run.sh's family -> the function above (InternVL3 and InternVL3.5 share one, Qwen2.5-VL and Qwen3-VL a table)
FAMILIES = {"internvl3": internvl, "internvl35": internvl, "mllama": mllama, "qwen25vl": qwen_vl, "qwen3vl": qwen3vl}

if __name__ == "__main__":
    family, out, model, label = sys.argv[1:5]
    FAMILIES[family](Sides(out), model, label)
