#!/usr/bin/env python3
"""Born-digital PDFs for the tests, with a text layer and no image: tests/fixtures/pages/

    text_invoice.pdf     one page laid out as an HTML invoice prints: the seller's name and ABN over
                         two columns, "From" (the seller's address and phone) beside "Bill To" (the
                         payer's), a table of items, subtotal, GST and total at the right
    text_invoice_2p.pdf  the same invoice over two pages, as a long invoice prints: the parties, the
                         date and the items on page 1, the last items and the sums on page 2
    text_statement.pdf   a bank statement whose holder is printed as its "Customer" and whose
                         transactions each have a date: fields of an invoice the rules can read on
                         it (the first transaction's date) that a statement does not have

The text is drawn in Helvetica (a standard PDF font: no font file embedded, so each file is a few
kB). A test reads each page twice, from the text layer and rendered by Poppler then read by OCR (as
a scan of the same page would be), and compares the fields: the text layer must keep the columns.
The truths the tests check are printed below the layout, in `TRUTH`.

    python3 scripts/make_text_pdfs.py
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "pages")
WIDTH, HEIGHT = 612, 792  # US Letter, in points

# (x, y from the top, size, bold, text): one page's lines.
HEAD = [
    (50, 60, 20, True, "Northwind Traders Pty Ltd"),
    (400, 60, 16, True, "TAX INVOICE"),
    (50, 84, 10, False, "ABN 51 698 247 535"),
    (400, 84, 10, False, "Invoice No: INV-20417"),
    (400, 100, 10, False, "Date: 14/03/2025"),
    (400, 116, 10, False, "Due: 13/04/2025"),
    (50, 160, 11, True, "From"),
    (300, 160, 11, True, "Bill To"),
    (50, 178, 10, False, "220 King Street"),
    (300, 178, 10, False, "Harbour Cafe"),
    (50, 193, 10, False, "Newtown NSW 2042"),
    (300, 193, 10, False, "15 Pier Road"),
    (50, 208, 10, False, "Phone (02) 9557 1234"),
    (300, 208, 10, False, "Manly NSW 2095"),
    (50, 223, 10, False, "www.northwind.com.au"),
    (300, 223, 10, False, "Phone (02) 9977 4321"),
]
ITEMS = [("Espresso beans 1 kg", 4, 38.50), ("Milk frother jug", 2, 24.95), ("Paper cups x1000", 3, 61.20),
         ("Cleaning tablets", 5, 12.40), ("Barista apron", 2, 29.00)]


def table(top, items):
    lines = [(50, top, 10, True, "Description"), (330, top, 10, True, "Qty"),
             (390, top, 10, True, "Unit price"), (490, top, 10, True, "Amount")]
    for i, (name, qty, price) in enumerate(items):
        y = top + 20 + 16 * i
        lines += [(50, y, 10, False, name), (335, y, 10, False, str(qty)), (390, y, 10, False, f"${price:,.2f}"),
                  (490, y, 10, False, f"${qty * price:,.2f}")]
    return lines, top + 20 + 16 * len(items)


def sums(top):
    subtotal = round(sum(q * p for _, q, p in ITEMS), 2)
    gst = round(subtotal * 0.10, 2)
    return [(390, top + 20, 10, False, "Subtotal"), (490, top + 20, 10, False, f"${subtotal:,.2f}"),
            (390, top + 36, 10, False, "GST 10%"), (490, top + 36, 10, False, f"${gst:,.2f}"),
            (390, top + 56, 12, True, "Total"), (490, top + 56, 12, True, f"${subtotal + gst:,.2f}")]


STATEMENT = [
    (50, 60, 16, True, "Westpac"),
    (380, 60, 16, True, "Statement of account"),
    (50, 110, 10, False, "Customer Jordan Smith"),
    (380, 110, 10, False, "BSB 115 340"),
    (50, 126, 10, False, "7 Elizabeth Street, Hobart TAS 7000"),
    (380, 126, 10, False, "Account number 69811066"),
    (300, 142, 10, False, "Statement period 01/12/2025 to 28/12/2025"),
    (50, 180, 10, False, "Opening balance $1,136.36"),
    (50, 220, 10, True, "Date"), (130, 220, 10, True, "Details"), (380, 220, 10, True, "Amount"),
    (480, 220, 10, True, "Balance"),
    (50, 240, 10, False, "05/12/2025"), (130, 240, 10, False, "Salary deposit"),
    (380, 240, 10, False, "$1,650.00"), (480, 240, 10, False, "$2,786.36"),
    (50, 256, 10, False, "12/12/2025"), (130, 256, 10, False, "Electricity bill"),
    (380, 256, 10, False, "-$247.45"), (480, 256, 10, False, "$2,538.91"),
    (50, 296, 10, False, "Closing balance $2,538.91"),
]


def escape(text):
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def content(lines):
    ops = []
    for x, y, size, bold, text in lines:
        ops.append(f"BT /{'F2' if bold else 'F1'} {size} Tf 1 0 0 1 {x} {HEIGHT - y - size} Tm ({escape(text)}) Tj ET")
    return "\n".join(ops).encode("latin-1")


def write_pdf(path, pages):
    """A PDF of `pages` (each a list of lines), byte for byte the same on every run."""
    fonts = {"F1": "Helvetica", "F2": "Helvetica-Bold"}
    objects = []  # object n is objects[n - 1]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"")  # the page tree, once the pages' numbers are known
    font_refs = []
    for name, base in fonts.items():
        objects.append(f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>".encode())
        font_refs.append(f"/{name} {len(objects)} 0 R")
    kids = []
    for lines in pages:
        stream = content(lines)
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH} {HEIGHT}] /Contents {len(objects)} 0 R "
                       f"/Resources << /Font << {' '.join(font_refs)} >> >> >>".encode())
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(path, "wb") as f:
        f.write(out)
    print(f"{os.path.basename(path)}: {len(out)} bytes, {len(pages)} page(s)")


def main():
    os.makedirs(OUT, exist_ok=True)
    rows, end = table(260, ITEMS)
    write_pdf(os.path.join(OUT, "text_invoice.pdf"), [HEAD + rows + sums(end)])
    first, _ = table(260, ITEMS[:3])
    rest, end = table(60, ITEMS[3:])
    continued = [(50, 30, 9, False, "Northwind Traders Pty Ltd - INV-20417 - page 2 of 2")]
    write_pdf(os.path.join(OUT, "text_invoice_2p.pdf"), [HEAD + first, continued + rest + sums(end)])
    write_pdf(os.path.join(OUT, "text_statement.pdf"), [STATEMENT])


if __name__ == "__main__":
    main()
