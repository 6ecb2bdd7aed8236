#!/usr/bin/env python3
"""Deterministic benchmark corpus: synthetic invoices, receipts and bank statements, about 10% with
accented, CJK or emoji content, written as JSON Lines (one JSON string per document, 1-8 KB each).
    make_corpus.py OUT.jsonl [--mb 12]
"""
import argparse
import json
import random

NAMES = ["Acme Pty Ltd", "Blue Gum Cafe", "Harbour Plumbing", "Northside Dental", "Café Zürich", "Ng & Sons",
         "O'Brien's Hardware", "Sakura Sushi 桜", "Müller GmbH", "Southern Cross Freight"]
STREETS = ["George St", "Collins St", "Queen St", "Rue de Rivoli", "King William St", "Hay St", "Smith St"]
CITIES = ["Sydney NSW 2000", "Melbourne VIC 3000", "Brisbane QLD 4000", "Perth WA 6000", "Adelaide SA 5000"]
ITEMS = ["Consulting", "A4 paper (5 reams)", "Flat white", "Delivery", "Software licence", "Labour 3.5 hrs",
         "Pipe fittings 20mm", "Scale and clean", "Toner cartridge", "Monthly rent", "Freight Sydney–Perth"]
FOREIGN = ["Rechnung für Beratung", "facture n° 42 — payée", "發票總額 人民幣", "領収書 合計金額", "영수증 합계",
           "😀 paid ✅", "naïve café déjà vu", "Łódź – Kraków", "ใบเสร็จรับเงิน", "فاتورة ضريبية"]


def money(rng, lo=1, hi=5000):
    return rng.randint(lo * 100, hi * 100) / 100


def invoice(rng):
    name = rng.choice(NAMES)
    lines = [rng.choice(["TAX INVOICE", "Tax Invoice", "INVOICE"]), name,
             f"{rng.randint(1, 400)} {rng.choice(STREETS)}, {rng.choice(CITIES)}",
             f"ABN {rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)} {rng.randint(100, 999)}",
             f"Invoice #: INV-{rng.randint(1000, 999999)}    Date: {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/20{rng.randint(19, 26)}",
             f"Email: accounts@{name.split()[0].lower().strip(',')}.com.au   Phone: (0{rng.randint(2, 8)}) {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
             "", "Description                 Qty    Unit Price     Amount"]
    total = 0.0
    for _ in range(rng.randint(3, 25)):
        q, p = rng.randint(1, 40), money(rng, 1, 900)
        total += q * p
        lines.append(f"{rng.choice(ITEMS):<28}{q:>3}  {p:>12,.2f}  {q * p:>12,.2f}")
    lines += ["", f"Subtotal        ${total:,.2f}", f"GST 10%         ${total / 10:,.2f}",
              f"TOTAL DUE       ${total * 1.1:,.2f}", f"Due date: {rng.randint(1, 28)} {rng.choice(['Jan', 'Feb', 'Mar', 'Apr'])} 2025",
              f"Pay to BSB {rng.randint(100, 999)}-{rng.randint(100, 999)} Account {rng.randint(10000000, 99999999)}",
              "Thank you for your business!"]
    return lines


def statement(rng):
    lines = ["STATEMENT OF ACCOUNT", f"{rng.choice(NAMES)}   Account {rng.randint(10000000, 99999999)}",
             f"Period 01/0{rng.randint(1, 9)}/2025 to 30/0{rng.randint(1, 9)}/2025", "",
             "Date        Transaction details                         Debit       Credit      Balance"]
    balance = money(rng, 100, 20000)
    for _ in range(rng.randint(10, 60)):
        amount = money(rng, 1, 2000)
        credit = rng.random() < 0.3
        balance += amount if credit else -amount
        lines.append(f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}   {rng.choice(['EFTPOS', 'BPAY', 'Direct Credit', 'ATM', 'Transfer'])} "
                     f"{rng.choice(NAMES):<30} {'' if credit else f'{amount:,.2f}':>10} {f'{amount:,.2f}' if credit else '':>10} {balance:>12,.2f}")
    return lines


def receipt(rng):
    lines = [rng.choice(NAMES), rng.choice(CITIES), f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/25 {rng.randint(7, 22)}:{rng.randint(0, 59):02d}"]
    for _ in range(rng.randint(2, 12)):
        lines.append(f"{rng.choice(ITEMS)}\t${money(rng, 1, 60):.2f}")
    lines += [f"TOTAL\t${money(rng, 5, 300):.2f}", "EFTPOS APPROVED", "Thanks, see you again!"]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out")
    parser.add_argument("--mb", type=float, default=12)
    args = parser.parse_args()
    rng = random.Random(12345)
    total = 0
    with open(args.out, "w", encoding="utf-8") as f:
        while total < args.mb * 1e6:
            lines = []
            target = rng.randint(1000, 8000)
            while sum(len(l) + 1 for l in lines) < target:
                lines += rng.choice([invoice, statement, receipt])(rng) + [""]
                if rng.random() < 0.1:
                    lines += [rng.choice(FOREIGN) for _ in range(rng.randint(1, 6))]
            doc = "\n".join(lines)[:8000]
            total += len(doc.encode("utf-8"))
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
