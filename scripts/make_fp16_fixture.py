#!/usr/bin/env python3
"""A tiny InternVL3 checkpoint whose residual stream overflows float16, for the residual-guard tests.

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_fp16_fixture.py

Qwen2 decoders (InternVL3's language model) carry "massive activations": a few hidden channels of
the residual stream grow over several layers past float16's largest value (65504), while every
single matmul and norm output stays in range. A float16 residual stream then turns to inf and NaN;
docsift keeps the residual stream in float32 when it computes in float16 (the "residual guard").

Nothing is downloaded. With a fixed seed this builds an InternVL3 (1 InternViT layer, projector,
6-layer Qwen2 with default RoPE) like scripts/fixturegen/internvl.py does, then edits the text weights so
that one hidden channel C gains exactly 20000 at every position in every layer:
  - v_proj row D (kv head 0, head dim D) is 0 and its bias is VALUE_BIAS, so every query head of
    kv head 0's group outputs exactly VALUE_BIAS in dim D (the softmax weights sum to 1);
  - o_proj maps those two columns onto row C alone (weight O_WEIGHT, 2 · 100 · 100 = 20000), row C
    is 0 elsewhere and mlp.down_proj row C is 0; the embeddings are 0 in channel C;
  - every RMSNorm weight is 0 in channel C (C reaches nothing but the RMS) and the other entries
    are scaled by rms(all) / rms(others) (~ |x_C| / sqrt(hidden) / rms(others)), measured norm by
    norm on a calibration sentence, times NORM_TARGET (1 for the first and the final norm). Channel
    C then fixes the RMS, so the other channels are no longer really normalised; a plain
    max(1, |x_C| / sqrt(hidden)) scale let the MLPs' quadratic gain blow them up (down_proj outputs
    ~1e8 by layer 6), and a NORM_TARGET below 1 keeps the layers gentle enough to stay bounded.
Channel C is then 20000, 40000, ..., 120000 after the 6 layers: past 65504 after the 4th, while
forward hooks assert (float32, over the prompt and over the whole generated sequence) that no
linear output exceeds 20000 (+ rounding) and no norm output 30000.

Writes tests/fixtures/internvl-fp16-overflow/: config.json, generation_config.json,
model.safetensors (float32, transformers-native InternVLForConditionalGeneration layout),
tokenizer.json (copied from tests/fixtures/internvl/hf) and reference.json with, for a text-only
prompt: the prompt ids, 16 float32 greedy tokens (full re-forward argmax, no eos stop), the
first-step float32 logits, max |hidden| after each decoder layer, the smallest top-1/top-2 logit
margin over the 16 steps, what transformers gives in plain float16 on CPU (inf/NaN counts, greedy
tokens: the failure docsift must not have), and the greedy tokens of a float16 computation with a
float32 residual stream (a small reimplementation here), which must equal the float32 tokens.
"""
import json
import os
import shutil
import sys

import torch
import transformers
from tokenizers import Tokenizer
from transformers import InternVLConfig, InternVLForConditionalGeneration

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixturegen.internvl import TEXT, VISION, randomize  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "internvl-fp16-overflow")
SOURCE = os.path.join(ROOT, "tests", "fixtures", "internvl", "hf")
PROMPT = "The invoice total is"
CALIBRATION = "What is the total amount? Answer with TOTAL: value."  # sets the norm scales
NEW_TOKENS = 16
SEED = 1234
LAYERS = 6
HIDDEN = 64
HEAD_DIM = 16
CHANNEL = 5          # C: the hidden channel that carries the massive activation
VALUE_DIM = 3        # D: the head dim of kv head 0 whose value is constant
VALUE_BIAS = 100.0   # B
O_WEIGHT = 100.0     # W
FP16_MAX = 65504.0
MAX_NORM_OUT = 30000.0
# RMS of the normalised other channels in the decoder norms that see channel C. Their RMS is set by
# C, i.e. frozen, so the layers must be gentle (small inputs, near-linear MLPs) or positions whose
# other channels start large run away. The first norm (C still 0) and the final norm keep 1.
NORM_TARGET = float(os.environ.get("NORM_TARGET", "0.35"))

VISION_1 = dict(VISION, num_hidden_layers=1)
TEXT_6 = dict(TEXT, num_hidden_layers=LAYERS, hidden_size=HIDDEN, head_dim=HEAD_DIM, intermediate_size=128,
              num_attention_heads=4, num_key_value_heads=2,
              rope_parameters={"rope_type": "default", "rope_theta": 1000000.0})


def build(seed):
    torch.manual_seed(seed)
    tok = Tokenizer.from_file(os.path.join(SOURCE, "tokenizer.json"))
    config = InternVLConfig(vision_config=VISION_1, text_config=dict(TEXT_6, vocab_size=tok.get_vocab_size(True)),
                            image_token_id=tok.token_to_id("<IMG_CONTEXT>"), image_seq_length=256,
                            downsample_ratio=0.5, projector_hidden_act="gelu", vision_feature_layer=-1,
                            vision_feature_select_strategy="default", tie_word_embeddings=False)
    config.text_config.eos_token_id = tok.token_to_id("<|im_end|>")
    config.text_config.bos_token_id = tok.token_to_id("<|endoftext|>")
    model = InternVLForConditionalGeneration(config).eval()
    randomize(model, seed)
    model.config._attn_implementation = "eager"
    per_layer = plant_massive_activation(model, torch.tensor([tok.encode(CALIBRATION, add_special_tokens=False).ids]))
    return model, tok, per_layer


def plant_massive_activation(model, calibration_ids):
    text = model.model.language_model
    heads, kv_heads = text.config.num_attention_heads, text.config.num_key_value_heads
    group0 = range(heads // kv_heads)  # query heads served by kv head 0
    norms = []
    with torch.no_grad():
        text.embed_tokens.weight[:, CHANNEL] = 0
        for layer in text.layers:
            attn = layer.self_attn
            attn.v_proj.weight[VALUE_DIM] = 0
            attn.v_proj.bias[VALUE_DIM] = VALUE_BIAS
            attn.o_proj.weight[CHANNEL] = 0
            for h in group0:
                col = h * HEAD_DIM + VALUE_DIM
                attn.o_proj.weight[:, col] = 0
                attn.o_proj.weight[CHANNEL, col] = O_WEIGHT
            layer.mlp.down_proj.weight[CHANNEL] = 0
            norms += [layer.input_layernorm, layer.post_attention_layernorm]
        norms.append(text.norm)
        for norm in norms:
            norm.weight[CHANNEL] = 0
        # Channel C dominates the RMS (|x_C| / sqrt(hidden)), so the other channels come out of the
        # norm ~rms_others / rms_all times their usual size. Scale each norm's other entries by that
        # ratio, measured on a calibration sentence in forward order (each scale changes what the
        # later norms see). A fixed max(1, |x_C| / sqrt(hidden)) is not enough: it leaves the other
        # channels un-normalised and the MLPs' quadratic gain blows them up over the layers.
        for k, norm in enumerate(norms):
            target = 1.0 if norm is text.norm or k == 0 else NORM_TARGET
            seen = []
            hook = norm.register_forward_hook(lambda m, i, o: seen.append(i[0]))
            model(input_ids=calibration_ids)
            hook.remove()
            x = seen[0].float()
            others = torch.cat([x[..., :CHANNEL], x[..., CHANNEL + 1:]], -1)
            ratio = (x.pow(2).mean(-1).sqrt() / others.pow(2).mean(-1).sqrt()).mean().item()
            norm.weight.mul_(ratio * target)
    return len(group0) * VALUE_BIAS * O_WEIGHT


def forward_checked(model, ids, per_layer):
    """float32 forward with hooks: max |output| of every linear / norm / decoder layer."""
    text = model.model.language_model
    linear_max, norm_max, layer_max = {}, {}, []
    hooks = []
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.Linear):
            hooks.append(mod.register_forward_hook(
                lambda m, i, o, n=name: linear_max.__setitem__(n, max(linear_max.get(n, 0.0), o.abs().max().item()))))
        elif type(mod).__name__.endswith("RMSNorm"):
            hooks.append(mod.register_forward_hook(
                lambda m, i, o, n=name: norm_max.__setitem__(n, max(norm_max.get(n, 0.0), o.abs().max().item()))))
    for layer in text.layers:
        hooks.append(layer.register_forward_hook(
            lambda m, i, o: layer_max.append((o[0] if isinstance(o, tuple) else o).abs().max().item())))
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0, -1]
    for h in hooks:
        h.remove()
    worst_linear = max(linear_max, key=linear_max.get)
    worst_norm = max(norm_max, key=norm_max.get)
    assert linear_max[worst_linear] <= per_layer * 1.001, (worst_linear, linear_max[worst_linear])
    assert norm_max[worst_norm] <= MAX_NORM_OUT, (worst_norm, norm_max[worst_norm])
    return logits, layer_max, (worst_linear, linear_max[worst_linear]), (worst_norm, norm_max[worst_norm])


def greedy_hf(model, ids, steps):
    """Full re-forward argmax loop (no cache, no eos stop); returns tokens and top-1/top-2 margins."""
    tokens, margins, relative = [], [], []
    seq = ids
    with torch.no_grad():
        for _ in range(steps):
            logits = model(input_ids=seq).logits[0, -1].float()
            top = torch.topk(logits, 2).values
            tokens.append(int(torch.argmax(logits)))
            margins.append((top[0] - top[1]).item())
            relative.append(((top[0] - top[1]) / logits.abs().max()).item())
            seq = torch.cat([seq, torch.tensor([[tokens[-1]]])], 1)
    return tokens, margins, relative


def guarded_forward(sd, cfg, ids, dtype, scale_in_fp32):
    """Qwen2 text forward with weights and matmuls in `dtype` but the residual stream in float32
    (what docsift's residual guard does). scale_in_fp32: multiply the norm weight in float32 and
    round once; otherwise round the normalised value to `dtype` first, as transformers does."""
    p = "model.language_model."
    w = lambda n: sd[p + n].to(dtype)
    t = ids.shape[1]
    heads, kv, hd, eps = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.rms_norm_eps

    def norm(x, weight):
        normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        if scale_in_fp32:
            return (sd[p + weight].float() * normed).to(dtype)
        return w(weight) * normed.to(dtype)

    inv_freq = 1.0 / cfg.rope_parameters["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd)
    freqs = torch.arange(t).float()[:, None] * inv_freq[None]
    emb = torch.cat([freqs, freqs], -1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
    rope = lambda x: x * cos + torch.cat([-x[..., hd // 2:], x[..., :hd // 2]], -1) * sin
    lin = lambda x, n, bias=False: torch.nn.functional.linear(x, w(n + ".weight"), w(n + ".bias") if bias else None)

    x = sd[p + "embed_tokens.weight"][ids[0]].to(dtype).float()[None]  # [1, T, H] float32
    mask = torch.ones(t, t, dtype=torch.bool).tril()
    for i in range(cfg.num_hidden_layers):
        a = f"layers.{i}."
        h = norm(x, a + "input_layernorm.weight")
        q = rope(lin(h, a + "self_attn.q_proj", True).view(1, t, heads, hd).transpose(1, 2))
        k = rope(lin(h, a + "self_attn.k_proj", True).view(1, t, kv, hd).transpose(1, 2))
        v = lin(h, a + "self_attn.v_proj", True).view(1, t, kv, hd).transpose(1, 2)
        k, v = k.repeat_interleave(heads // kv, 1), v.repeat_interleave(heads // kv, 1)
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + lin(o.transpose(1, 2).reshape(1, t, heads * hd), a + "self_attn.o_proj").float()
        m = norm(x, a + "post_attention_layernorm.weight")
        mlp = lin(torch.nn.functional.silu(lin(m, a + "mlp.gate_proj")) * lin(m, a + "mlp.up_proj"), a + "mlp.down_proj")
        x = x + mlp.float()
    last = norm(x[:, -1], "norm.weight")
    return torch.nn.functional.linear(last, sd["lm_head.weight"].to(dtype)).float()[0]


def greedy_guarded(sd, cfg, ids, steps, dtype, scale_in_fp32):
    seq, tokens = ids, []
    with torch.no_grad():
        for _ in range(steps):
            tokens.append(int(torch.argmax(guarded_forward(sd, cfg, seq, dtype, scale_in_fp32))))
            seq = torch.cat([seq, torch.tensor([[tokens[-1]]])], 1)
    return tokens


def main():
    model, tok, per_layer = build(SEED)
    cfg = model.config.text_config
    prompt_ids = tok.encode(PROMPT, add_special_tokens=False).ids
    ids = torch.tensor([prompt_ids])

    first_logits, layer_max, worst_linear, worst_norm = forward_checked(model, ids, per_layer)
    print("max |hidden| after each layer:", [round(v, 3) for v in layer_max])
    print("largest linear output:", worst_linear, " largest norm output:", worst_norm)
    assert layer_max[-1] > FP16_MAX and all(v < FP16_MAX for v in layer_max[:3]), layer_max
    tokens, margins, relative = greedy_hf(model, ids, NEW_TOKENS)
    print("fp32 greedy:", tokens, " min margin", min(margins), " min relative", min(relative))
    assert min(relative) >= 1e-2, "top-1/top-2 margin too small: pick another seed or prompt"
    # Every position the greedy steps saw (causal: one forward over the whole sequence covers them).
    full = torch.cat([ids, torch.tensor([tokens[:-1]])], 1)
    _, full_layer_max, full_linear, full_norm = forward_checked(model, full, per_layer)
    print("whole sequence: largest linear output", full_linear, " largest norm output", full_norm)

    sd = {k: v.detach().clone() for k, v in model.state_dict().items()}
    with torch.no_grad():  # the float32 reimplementation must match transformers before it is trusted
        own = guarded_forward(sd, cfg, ids, torch.float32, True)
    assert torch.allclose(own, first_logits, atol=1e-3, rtol=1e-4), (own - first_logits).abs().max()
    guarded = {name: greedy_guarded(sd, cfg, ids, NEW_TOKENS, torch.float16, fp32)
               for name, fp32 in (("norm_scaled_in_float32", True), ("norm_scaled_in_float16", False))}
    with torch.no_grad():
        guarded_logits = guarded_forward(sd, cfg, ids, torch.float16, True)
    guarded_diff = (guarded_logits - first_logits).abs().max().item()
    print("fp16 + fp32 residual greedy:", guarded, " first-step max |Δlogit|", guarded_diff)
    for name, toks in guarded.items():
        assert toks == tokens, f"float16 with a float32 residual ({name}) diverges from float32: {toks}"

    # Plain float16 in transformers (CPU): the residual stream overflows.
    half = build(SEED)[0].half()
    fp16 = {}
    try:
        with torch.no_grad():
            out = half(input_ids=ids, output_hidden_states=True)
        pre_norm = []
        hooks = [l.register_forward_hook(lambda m, i, o: pre_norm.append(o[0] if isinstance(o, tuple) else o))
                 for l in half.model.language_model.layers]
        with torch.no_grad():
            half.model.language_model(input_ids=ids)
        for h in hooks:
            h.remove()
        last = pre_norm[-1]
        normed = half.model.language_model.norm(last)
        fp16 = {"inf_count": int(torch.isinf(last).sum()), "nan_count": int(torch.isnan(last).sum()),
                "last_hidden_numel": last.numel(),
                "note": "counts over the last decoder layer's output (the residual stream before the final norm)",
                "final_norm_inf_count": int(torch.isinf(normed).sum()),
                "final_norm_nan_count": int(torch.isnan(normed).sum()),
                "per_layer_inf_nan": [[int(torch.isinf(h).sum()), int(torch.isnan(h).sum())] for h in pre_norm],
                "first_logits_nan_count": int(torch.isnan(out.logits[0, -1]).sum()),
                "greedy_tokens": greedy_hf(half, ids, NEW_TOKENS)[0]}
    except RuntimeError as e:  # CPU half kernels missing in this torch
        fp16 = {"error": f"{type(e).__name__}: {e}"}
    print("fp16 transformers:", {k: v for k, v in fp16.items() if k != "per_layer_inf_nan"})

    shutil.rmtree(OUT, ignore_errors=True)
    model.save_pretrained(OUT, safe_serialization=True)
    shutil.copy(os.path.join(SOURCE, "tokenizer.json"), OUT)
    reference = {
        "prompt_text": PROMPT, "prompt_ids": prompt_ids, "greedy_tokens": tokens,
        "first_logits": [float(v) for v in first_logits],
        "max_abs_hidden_per_layer": layer_max,
        "min_top1_margin": min(margins), "min_top1_margin_relative": min(relative),
        "fp16_transformers": fp16,
        "fp16_with_fp32_residual": {"greedy_tokens": guarded, "first_logits_max_abs_diff": guarded_diff},
        "channel": CHANNEL, "value_dim": VALUE_DIM, "per_layer_add": per_layer,
        "largest_linear_output": list(worst_linear), "largest_norm_output": list(worst_norm),
        "largest_linear_output_whole_sequence": list(full_linear), "largest_norm_output_whole_sequence": list(full_norm),
        "min_top1_margin_note": "top-1 minus top-2 float32 logit, smallest over the 16 greedy steps; relative: "
                                "divided by that step's max |logit|",
        "norm_target": NORM_TARGET, "calibration_text": CALIBRATION,
        "seed": SEED, "transformers": transformers.__version__, "torch": torch.__version__,
        "why": ("Hidden channel %d of the residual stream gains exactly %g per decoder layer at every position "
                "(v_proj bias %g in head dim %d of kv head 0, o_proj weight %g onto channel %d), reaching %g after "
                "%d layers: past float16's 65504 after the 4th layer, while no linear output exceeds %g and no "
                "norm output %g (norm weights are 0 in channel %d; elsewhere scaled by the measured RMS ratio, so the other "
                "channels keep a sane magnitude although channel %d sets the RMS). A "
                "float16 residual stream turns to inf and then NaN; a float32 residual with float16 compute "
                "must reproduce the float32 greedy tokens."
                % (CHANNEL, per_layer, VALUE_BIAS, VALUE_DIM, O_WEIGHT, CHANNEL, per_layer * LAYERS, LAYERS,
                   per_layer, MAX_NORM_OUT, CHANNEL, CHANNEL)),
    }
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(reference, f, indent=2)
    for name in os.listdir(OUT):  # save_pretrained leaves model.safetensors 0600
        os.chmod(os.path.join(OUT, name), 0o644)
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"fixture: {total / 1e6:.2f} MB in {OUT}: {sorted(os.listdir(OUT))}")


if __name__ == "__main__":
    main()
