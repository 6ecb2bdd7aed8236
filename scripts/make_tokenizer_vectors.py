#!/usr/bin/env python3
"""Reference vectors for docsift's tokenizer, and the tiny tokenizers the tests use.

Run from the repository root:  scripts/pyenv.sh python3 scripts/make_tokenizer_vectors.py

Writes under tests/fixtures/tokenizers/:
  tiny-qwen/tokenizer.json     Qwen2-style pipeline (NFC, Qwen2 split regex, ByteLevel, [a, b] merges)
                               with special and flagged added tokens (lstrip, rstrip, single_word, normalized)
  tiny-qwen-slow/              the same tokenizer in the vocab.json + merges.txt layout of InternVL3's
                               original checkpoints
  tiny-llama/tokenizer.json    Llama-3-style (no normalizer, Llama 3 regex, ignore_merges, "a b" merges,
                               BOS TemplateProcessing post-processor)
  tiny-gpt2/tokenizer.json     GPT-2 style ByteLevel(add_prefix_space, use_regex) after a literal Split "Removed"
  vectors/<name>.json          ids and decoded text from the reference library for one corpus
The real vocabularies come from ../shared/tokenizers/{llama3,qwen2}; their vectors are skipped when absent.
Everything is deterministic: the training corpus is generated from a fixed seed.
"""
import json
import os
import random
import sys
import unicodedata

import tokenizers
import transformers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "tokenizers")
SHARED = os.path.join(ROOT, "..", "shared", "tokenizers")


def shared_pattern(name):
    with open(os.path.join(SHARED, name, "tokenizer.json"), encoding="utf-8") as f:
        return json.load(f)["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]


# Written out as well, so the script works without ../shared (the tests compare them when present).
QWEN2_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
LLAMA3_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""

# ---------------------------------------------------------------------------------------------
# Corpus


def invoice(rng):
    items = ["Consulting services", "Printer paper A4 (5 reams)", "Café latte", "Delivery fee", "Software licence",
             "Labour — 3.5 hrs", "Zürich transfer", "Cleaning", "Parts & materials", "Rent (March)"]
    lines = ["TAX INVOICE", f"Invoice No: INV-{rng.randint(1000, 99999)}",
             f"Date: {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/20{rng.randint(18, 26)}",
             f"ABN: {rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)} {rng.randint(100, 999)}",
             "Bill to: Acme Pty Ltd, 12 George St, Sydney NSW 2000", "", "Description\tQty\tUnit\tAmount"]
    total = 0.0
    for _ in range(rng.randint(2, 6)):
        q, p = rng.randint(1, 20), rng.randint(100, 99999) / 100
        total += q * p
        lines.append(f"{rng.choice(items)}\t{q}\t${p:,.2f}\t${q * p:,.2f}")
    gst = total / 10
    lines += ["", f"Subtotal: ${total:,.2f}", f"GST (10%): ${gst:,.2f}", f"TOTAL AUD {total + gst:,.2f}",
              "Payment: BSB 062-000 Account 1234 5678", "Thank you for your business!"]
    return "\n".join(lines)


def corpus():
    rng = random.Random(20261122)
    cases = []

    def add(name, text):
        cases.append({"name": name, "text": text})

    add("empty", "")
    add("space", " ")
    add("spaces-3", "   ")
    add("newline", "\n")
    add("whitespace-mix", " \t \n\r\n \u00a0 ")
    add("single-char", "a")
    add("single-digit", "7")
    add("single-cjk", "中")
    for i in range(3):
        add(f"invoice-{i}", invoice(rng))
    add("invoice-crlf", invoice(rng).replace("\n", "\r\n"))
    for n in range(1, 21):
        add(f"digits-{n}", "".join(str((i * 7 + n) % 10) for i in range(n)))
    for s in ["1,234.56", "1 234,56", "0.5", "-12", "+61 2 9876 5432", "$0.99", "€1.234,50", "£12", "¥1000",
              "AUD 1,200.00", "1e-5", "3/4", "100%", "12.5 kg", "#42", "No. 0007", "(555) 123-4567",
              "1,000,000,000.00", "0000123", "12:34:56"]:
        add("number " + s, s)
    for s in ["12/03/2024", "2024-03-12", "12 Mar 2024", "March 12th, 2024", "Tue, 5 Nov 2024 14:30",
              "31.12.2023", "FY2023-24"]:
        add("date " + s, s)
    for s in ["ABN 51 824 753 556", "ABN: 51824753556", "ACN 004 085 616", "BSB 062-000 Acc 1234 5678",
              "accounts@example.com.au", "https://example.com/invoice?id=42&lang=en#top", "www.acme.com.au",
              "Ref: PO-2024/0098-B"]:
        add("id " + s, s)
    for s in ["don't", "DON'T", "We'LL", "it's", "IT'S", "they've", "THEY'VE", "I'M", "i'm", "she'd", "SHE'D",
              "you're", "YOU'RE", "'s alone", "rock'n'roll", "O'Brien's"]:
        add("contraction " + s, s)
    for n in [2, 3, 10]:
        add(f"space-run-{n}", "a" + " " * n + "b")
    add("leading-trailing", "  total  ")
    add("tabs", "a\tb\t\tc\t")
    add("cr-only", "line1\rline2\r")
    add("lf-space-lf", "a\n \nb\n\n\nc")
    add("trailing-newlines", "Total\n\n")
    for s in ["café", "naïve", "Zürich", "São Paulo", "Łódź", "Ærøskøbing", "façade", "Ñandú", "İstanbul", "ß straße"]:
        add("latin " + s, s)
    add("nfd e-acute", "cafe\u0301")
    add("nfd a-ring", "A\u030angstr\u00f6m")
    add("nfd hangul", "\u1112\u1161\u11ab")
    add("combining stack", "a\u0301\u0302\u0303")
    for s in ["发票总额：¥1,234.00", "東京都千代田区", "ありがとうございます", "カタカナ", "합계 금액", "中文 English mixed 123"]:
        add("cjk " + s, s)
    add("fullwidth", "１２３ＡＢＣ　ｘ")
    for s in ["😀", "Paid ✅", "👍🏽", "👨‍👩‍👧‍👦 family", "🇦🇺 AU", "❤️", "🧾 receipt"]:
        add("emoji " + s, s)
    add("zwsp", "in\u200bvoice")
    add("zwj", "a\u200db")
    add("nbsp", "Total\u00a0$5")
    add("narrow-nbsp", "12\u202f345")
    add("ideographic-space", "合計\u3000100")
    add("nel", "a\u0085b")
    add("line-para-sep", "a\u2028b\u2029c")
    add("bom", "\ufeffInvoice")
    add("soft-hyphen", "in\u00advoice")
    add("arabic", "الفاتورة رقم ١٢٣")
    add("hebrew", "חשבונית מס")
    add("devanagari", "चालान संख्या")
    add("thai", "ใบกำกับภาษี")
    add("math", "∑ x² ≤ ∞ ± √2 ≈ 1.414 → ∀ε>0")
    add("punct-run", "!!!??? ... --- *** ___ ===")
    add("quotes", "“smart” ‘quotes’ «guillemets» „low“")
    add("control", "a\x00b\x07c\x1bd")
    add("special qwen chat", "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n")
    add("special llama chat", "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n<|image|>What is the total?<|eot_id|>")
    add("special internvl image", "<img><IMG_CONTEXT><IMG_CONTEXT></img>\nWhat is the ABN?")
    add("special adjacent", "x<|im_end|>y<|endoftext|>z")
    add("special partial", "<|im_start <|im_end| <|endoftext <|begin_of_text|")
    add("special other family", "<|eot_id|> and <|im_end|> together")
    add("special repeated", "<|im_end|><|im_end|><|im_end|>")
    add("special in word", "pre<|endoftext|>post")
    add("flag single_word alone", "ABN")
    add("flag single_word spaced", "x ABN y")
    add("flag single_word glued", "xABNy")
    add("flag single_word punct", "(ABN) ABN: ABN_1 ABN9")
    add("flag lstrip", "  <LS>  after")
    add("flag lstrip start", "<LS> x")
    add("flag rstrip", "a<RS>   b")
    add("flag rstrip end", "a <RS>\n\n")
    add("flag both", "x  <LS><RS>  y")
    add("flag normalized", "[FIELD] cafe\u0301 [FIELD]")
    add("flag nonspecial", "<tool_call>{\"name\": 1}</tool_call>")
    add("pipe split", "a|b||c | d|")
    add("long word", "supercalifragilistic" * 10)
    add("long line", " ".join(f"item{i}" for i in range(120))[:1000])
    add("long digits", "1234567890" * 30)
    add("long spaces", " " * 200 + "x")
    doc = []
    while sum(len(d) for d in doc) < 5000:
        doc.append(invoice(rng))
    add("document-5k", "\n\n".join(doc))
    add("whole-word vocab entry", "Subtotalling Subtotalling,Subtotalling")
    add("mixed all", "Invoice №42 — café 東京 😀\t$1,234.56\r\nDON'T <|im_end|> e\u0301 ＡＢＣ\u00a0\u200b end")
    return cases


def training_texts():
    rng = random.Random(7)
    texts = [invoice(rng) for _ in range(300)]
    # The whole-word case stays out of training, so that no merge reaches its word.
    texts += [c["text"] for c in corpus() if not c["name"].startswith("whole-word")] * 3
    texts += ["The quick brown fox jumps over the lazy dog. " * 3, "Rechnung für Zürich, café, naïve façade " * 3,
              "発票 東京 合計 ありがとう 합계 " * 5, "😀 ✅ 👍 🇦🇺 " * 4]
    return texts


# ---------------------------------------------------------------------------------------------
# Tiny tokenizers

QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<img>", "</img>", "<IMG_CONTEXT>"]
LLAMA_SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
                  "<|eot_id|>", "<|image|>"]


def train(pipeline, vocab_size):
    tok = Tokenizer(models.BPE())
    pipeline(tok)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False, min_frequency=2)
    tok.train_from_iterator(training_texts(), trainer)
    return tok


def qwen_pipeline(tok):
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)


def llama_pipeline(tok):
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()


def gpt2_pipeline(tok):
    tok.normalizer = normalizers.Sequence([normalizers.NFC()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split("|", behavior="removed"),
        pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)])
    tok.decoder = decoders.ByteLevel()


def save(tok_json, name):
    folder = os.path.join(FIXTURES, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tok_json, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")
    Tokenizer.from_file(path)  # the reference must accept what we wrote
    return path


def make_tiny_qwen():
    tok = train(qwen_pipeline, 1200)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in QWEN_SPECIALS])
    tok.add_tokens([
        AddedToken("<tool_call>", special=False, normalized=False),
        AddedToken("</tool_call>", special=False, normalized=False),
        AddedToken("[FIELD]", special=False, normalized=True),
        AddedToken("<LS>", special=False, normalized=False, lstrip=True),
        AddedToken("<RS>", special=False, normalized=False, rstrip=True),
        AddedToken("ABN", special=False, normalized=False, single_word=True),
    ])
    j = json.loads(tok.to_str())
    assert isinstance(j["model"]["merges"][0], list), "expected [a, b] merges from this tokenizers version"
    return save(j, "tiny-qwen")


def make_tiny_qwen_slow(fast_path):
    """The vocab.json + merges.txt layout, as save_pretrained writes it for a slow Qwen2 tokenizer."""
    j = json.load(open(fast_path, encoding="utf-8"))
    folder = os.path.join(FIXTURES, "tiny-qwen-slow")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(j["model"]["vocab"], f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in j["model"]["merges"]:
            f.write(f"{a} {b}\n")
    added = {t["content"]: t["id"] for t in j["added_tokens"]}
    with open(os.path.join(folder, "added_tokens.json"), "w", encoding="utf-8") as f:
        json.dump(added, f, ensure_ascii=False, indent=2)
    decoder = {str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip", "single_word", "special")}
               for t in j["added_tokens"]}
    config = {"add_bos_token": False, "add_prefix_space": False, "added_tokens_decoder": decoder,
              "bos_token": None, "clean_up_tokenization_spaces": False, "eos_token": "<|im_end|>",
              "errors": "replace", "model_max_length": 32768, "pad_token": "<|endoftext|>",
              "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer", "unk_token": None}
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
    return folder


def make_tiny_llama():
    tok = train(llama_pipeline, 1200)
    # Whole-word vocabulary entries that no merge sequence reaches, as Llama 3's vocabulary has:
    # with ignore_merges they are emitted as one id, without it BPE splits them. They take the
    # next model ids, before the added tokens, so the file stays as consistent as a real one.
    j = json.loads(tok.to_str())
    for word in ("Subtotalling", "\u0120Subtotalling"):
        assert word not in j["model"]["vocab"]
        j["model"]["vocab"][word] = len(j["model"]["vocab"])
    tok = Tokenizer.from_str(json.dumps(j))
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in LLAMA_SPECIALS])
    j = json.loads(tok.to_str())
    j["model"]["ignore_merges"] = True
    j["model"]["merges"] = [f"{a} {b}" for a, b in j["model"]["merges"]]
    bos = "<|begin_of_text|>"
    bos_id = tok.token_to_id(bos)
    j["post_processor"] = {"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        {"type": "TemplateProcessing",
         "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
         "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                  {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
         "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}}}]}
    return save(j, "tiny-llama")


def make_tiny_gpt2():
    tok = train(gpt2_pipeline, 800)
    tok.add_special_tokens([AddedToken("<|endoftext|>", special=True, normalized=False)])
    return save(json.loads(tok.to_str()), "tiny-gpt2")


# ---------------------------------------------------------------------------------------------
# Vectors

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def vectors(name, rel_path, encode, decode, token_to_id, reference, extra_special_cases=False):
    cases = corpus()
    out = {"tokenizer": rel_path, "reference": reference, "encode": [], "decode": []}
    for c in cases:
        ids = encode(c["text"], False)
        out["encode"].append({"name": c["name"], "text": c["text"], "add_special_tokens": False, "ids": ids})
        for skip in (False, True):
            out["decode"].append({"name": c["name"], "ids": ids, "skip_special_tokens": skip, "text": decode(ids, skip)})
    if extra_special_cases:
        for c in cases[:40:4]:
            out["encode"].append({"name": c["name"] + " +special", "text": c["text"], "add_special_tokens": True,
                                  "ids": encode(c["text"], True)})
    # Ids that stop mid-character: the reference replaces the dangling bytes with U+FFFD.
    for c in cases:
        if not any(ord(ch) > 0x7F for ch in c["text"]) or len(c["text"]) > 200:
            continue
        ids = encode(c["text"], False)
        for k in range(1, len(ids)):
            text = decode(ids[:k], False)
            if "\ufffd" in text:
                out["decode"].append({"name": f"{c['name']} prefix {k}", "ids": ids[:k], "skip_special_tokens": False,
                                      "text": text})
                break
    b2u = bytes_to_unicode()
    lone = {b: token_to_id(b2u[b]) for b in (0x80, 0xC3, 0xE4, 0xF0, 0xFF, 0x41)}
    for b, i in lone.items():
        if i is not None:
            out["decode"].append({"name": f"lone byte {b:#04x}", "ids": [i], "skip_special_tokens": False,
                                  "text": decode([i], False)})
    mixes = [[0xC3, 0x41], [0xE4, 0x80, 0x41], [0xF0, 0x80, 0x80], [0x41, 0xFF, 0xC3], [0xE4, 0xF0, 0x41, 0x80]]
    for m in mixes:
        if all(lone.get(b) is not None for b in m):
            ids = [lone[b] for b in m]
            out["decode"].append({"name": "byte mix " + " ".join(f"{b:02x}" for b in m), "ids": ids,
                                  "skip_special_tokens": False, "text": decode(ids, False)})
    path = os.path.join(FIXTURES, "vectors", name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    return out


def tokenizers_vectors(name, path):
    tok = Tokenizer.from_file(path)
    rel = os.path.relpath(path, ROOT)
    return vectors(name, rel,
                   lambda t, special: tok.encode(t, add_special_tokens=special).ids,
                   lambda ids, skip: tok.decode(ids, skip_special_tokens=skip),
                   tok.token_to_id, f"tokenizers {tokenizers.__version__}",
                   extra_special_cases=(name == "tiny-llama"))


def main():
    os.makedirs(os.path.join(FIXTURES, "vectors"), exist_ok=True)
    if os.path.isdir(SHARED):
        assert shared_pattern("qwen2") == QWEN2_PATTERN and shared_pattern("llama3") == LLAMA3_PATTERN
    tiny_qwen = make_tiny_qwen()
    slow = make_tiny_qwen_slow(tiny_qwen)
    tiny_llama = make_tiny_llama()
    tiny_gpt2 = make_tiny_gpt2()
    report = {}
    for name, path in [("tiny-qwen", tiny_qwen), ("tiny-llama", tiny_llama), ("tiny-gpt2", tiny_gpt2)]:
        report[name] = tokenizers_vectors(name, path)

    # The vocab.json layout through transformers (which rebuilds the Qwen2 pipeline from it).
    slow_tok = transformers.AutoTokenizer.from_pretrained(slow)
    fast = Tokenizer.from_file(tiny_qwen)
    out = vectors("tiny-qwen-slow", os.path.relpath(slow, ROOT),
                  lambda t, special: slow_tok.encode(t, add_special_tokens=special),
                  lambda ids, skip: slow_tok.decode(ids, skip_special_tokens=skip, clean_up_tokenization_spaces=False),
                  slow_tok.convert_tokens_to_ids, f"transformers {transformers.__version__} {type(slow_tok).__name__}")
    disagree = [c["name"] for c in out["encode"] if fast.encode(c["text"], add_special_tokens=False).ids != c["ids"]]
    print(f"tiny-qwen-slow: transformers {type(slow_tok).__name__} disagrees with tokenizer.json on "
          f"{len(disagree)} strings: {disagree}")
    # transformers 5 has no pure-Python Qwen2 tokenizer: Qwen2Tokenizer is the tokenizers-backed class that
    # AutoTokenizer picks, rebuilt from vocab.json + merges.txt. Loaded by name, it must give the same ids.
    named = transformers.Qwen2Tokenizer.from_pretrained(slow)
    disagree = [c["name"] for c in out["encode"] if named.encode(c["text"], add_special_tokens=False) != c["ids"]]
    print(f"tiny-qwen-slow: Qwen2Tokenizer.from_pretrained disagrees with AutoTokenizer on {len(disagree)} strings: "
          f"{disagree}")

    # ignore_merges must matter somewhere, or the tiny-llama vectors would not test it.
    j = json.load(open(tiny_llama, encoding="utf-8"))
    j["model"]["ignore_merges"] = False
    plain = Tokenizer.from_str(json.dumps(j))
    llama = Tokenizer.from_file(tiny_llama)
    differ = [c["name"] for c in corpus() if plain.encode(c["text"], add_special_tokens=False).ids !=
              llama.encode(c["text"], add_special_tokens=False).ids]
    print(f"tiny-llama: ignore_merges changes the ids of {len(differ)} corpus strings")

    for name in ("llama3", "qwen2"):
        path = os.path.join(SHARED, name, "tokenizer.json")
        if not os.path.exists(path):
            print(f"skipping {name}: {path} is absent")
            continue
        report[name] = tokenizers_vectors(name, os.path.normpath(path))
    for name in sorted(os.listdir(os.path.join(FIXTURES, "vectors"))):
        p = os.path.join(FIXTURES, "vectors", name)
        print(f"{name}: {os.path.getsize(p)} bytes")


if __name__ == "__main__":
    main()
