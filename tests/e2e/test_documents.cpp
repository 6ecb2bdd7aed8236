// Born-digital PDFs (scripts/make_text_pdfs.py): the text layer keeps a page's columns, so it reads
// the same fields as the page rendered and read by OCR, the seller's column apart from the payer's;
// and a document of several pages is one row of documents.csv, read as its one-page twin is, in a
// run, a --resume that rebuilds the tables and a merge alike.
#include <filesystem>
#include <map>
#include <string>

#include "docsift/io/csv.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::read_ground_truth;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;

namespace {

const fs::path kPages = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/pages";

// Reads the two born-digital PDFs into `out` with `extra` options; checks the run passed.
void read_pdfs(const TempDir& dir, const std::string& out, const std::string& extra = "") {
  if (!fs::exists(dir / "in")) {
    fs::create_directories(dir / "in");
    for (const char* name : {"text_invoice.pdf", "text_invoice_2p.pdf"})
      fs::copy_file(kPages / name, dir / "in" / name);
  }
  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                             shell_quote((dir / out).string()) + " --quiet " + extra);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
}

}  // namespace

TEST_CASE(
    "a born-digital PDF: its text layer reads what its rendered page reads, each party from its "
    "own column") {
  TempDir dir;
  read_pdfs(dir, "layer");
  read_pdfs(dir, "pixels", "--set ocr.pdf_text=false");
  for (const auto& rec : journal_lines(dir / "layer/results.jsonl"))
    CHECK(rec["text_source"] == "pdf");
  for (const auto& rec : journal_lines(dir / "pixels/results.jsonl"))
    CHECK(rec["text_source"] == "ocr");

  const auto layer = read_ground_truth(dir / "layer/predictions.csv");
  const auto pixels = read_ground_truth(dir / "pixels/predictions.csv");
  REQUIRE(layer.size() == 3);  // text_invoice.pdf, and text_invoice_2p.pdf's two pages
  for (const auto& [page, fields] : layer) {
    CAPTURE(page);
    REQUIRE(pixels.count(page));
    for (const auto& [field, value] : fields) {
      CAPTURE(field);
      CHECK(value == pixels.at(page).at(field));
    }
  }
  // "From" (the seller's address and phone) printed beside "Bill To" (the payer's): one block of
  // two columns, each read as its party's.
  const auto& page = layer.at("text_invoice.pdf");
  const std::map<std::string, std::string> printed{{"SUPPLIER", "Northwind Traders Pty Ltd"},
                                                   {"ABN", "51 698 247 535"},
                                                   {"PAYER_NAME", "Harbour Cafe"},
                                                   {"PAYER_ADDRESS", "15 Pier Road"},
                                                   {"PAYER_PHONE", "(02) 9977 4321"},
                                                   {"BUSINESS_ADDRESS", "220 King Street"},
                                                   {"BUSINESS_PHONE", "(02) 9557 1234"},
                                                   {"INVOICE_DATE", "14/03/2025"},
                                                   {"DUE_DATE", "13/04/2025"},
                                                   {"SUBTOTAL", "$507.50"},
                                                   {"GST", "$50.75"},
                                                   {"TOTAL", "$558.25"}};
  for (const auto& [field, value] : printed) {
    CAPTURE(field);
    CHECK(page.at(field) == value);
  }
}

TEST_CASE(
    "a document of several pages: one row of documents.csv, as its one-page twin reads, after a "
    "resume and a merge too") {
  TempDir dir;
  read_pdfs(dir, "out");
  const auto pages = read_ground_truth(dir / "out/predictions.csv");
  CHECK(pages.at("text_invoice_2p.pdf#page=1").at("TOTAL") !=
        "$558.25");  // page 1 alone has no total of its own
  CHECK(pages.at("text_invoice_2p.pdf#page=2").at("INVOICE_DATE") == "N/A");

  const auto documents = read_ground_truth(dir / "out/documents.csv");
  REQUIRE(documents.size() == 2);
  const auto& one = documents.at("text_invoice.pdf");
  const auto& two = documents.at("text_invoice_2p.pdf");
  for (const auto& [field, value] : one) {
    CAPTURE(field);
    CHECK(two.at(field) ==
          value);  // the date and parties from page 1, the sums from page 2, the items from both
  }
  CHECK(two.at("TOTAL") == "$558.25");
  // The table's unit prices (its Amount column holds the line totals), its items over both pages.
  CHECK(two.at("PRICES") == "$38.50 | $24.95 | $61.20 | $12.40 | $29.00");
  CHECK(two.at("QUANTITIES") == "4 | 2 | 3 | 5 | 2");
  CHECK(two.at("DESCRIPTIONS") ==
        "Espresso beans 1 kg | Milk frother jug | Paper cups x1000 | Cleaning tablets | Barista "
        "apron");
  for (const auto& rec : journal_lines(dir / "out/results.jsonl")) {
    const std::string file = rec["file"];
    CAPTURE(file);
    CHECK(rec.contains("document") == (file.find("#page=") != std::string::npos));
  }

  // line_items.csv: a row per item of each page, its cells as its columns print them.
  const auto items = docsift::io::read_csv(dir / "out/line_items.csv");
  REQUIRE(items.rows.size() == 5 + 3 + 2);
  CHECK(items.header == std::vector<std::string>{"image_file", "row", "description", "quantity",
                                                 "unit_price", "amount", "date", "debit", "credit",
                                                 "balance", "confidence", "x", "y", "width",
                                                 "height"});
  CHECK(items.rows[0] ==
        std::vector<std::string>{"text_invoice.pdf", "1", "Espresso beans 1 kg", "4", "$38.50",
                                 "$154.00", "", "", "", "", items.rows[0][10], items.rows[0][11],
                                 items.rows[0][12], items.rows[0][13], items.rows[0][14]});
  // The row's calibrated confidence (docs/confidence.md, "Rows"): its quantity × unit price is its
  // amount and the text layer is exact, so it is well over a half.
  const double row_confidence = std::stod(items.rows[0][10]);
  CHECK(row_confidence > 0.5);
  CHECK(row_confidence <= 1.0);
  CHECK(std::stoi(items.rows[0][13]) > 0);
  CHECK(items.rows[8][0] == "text_invoice_2p.pdf#page=2");
  CHECK(items.rows[8][1] == "1");
  CHECK(items.rows[8][2] == "Cleaning tablets");

  // The tables rebuilt from the journal (--resume) and a merged folder give the same documents.csv.
  const std::string before = file_bytes(dir / "out/documents.csv");
  const auto resumed =
      run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                  shell_quote((dir / "out").string()) + " --resume --quiet");
  CHECK_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(file_bytes(dir / "out/documents.csv") == before);
  const std::string items_before = file_bytes(dir / "out/line_items.csv");
  const auto merged = run_docsift("merge " + shell_quote((dir / "out").string()) + " --out " +
                                  shell_quote((dir / "merged").string()) + " --quiet");
  CHECK_MESSAGE(merged.exit_code == 0, merged.err);
  CHECK(file_bytes(dir / "merged/documents.csv") == before);
  CHECK(file_bytes(dir / "merged/line_items.csv") == items_before);
}

TEST_CASE(
    "a statement keeps only a statement's fields: the first transaction's date is no invoice "
    "date, its customer is its account holder, from the text layer and from pixels alike") {
  TempDir dir;
  fs::create_directories(dir / "in");
  fs::copy_file(kPages / "text_statement.pdf", dir / "in" / "text_statement.pdf");
  for (const std::string how : {"layer", "pixels"}) {
    CAPTURE(how);
    const bool exact = how == "layer";  // OCR may split a word ("J ordan")
    const std::string extra = exact ? "" : " --set ocr.pdf_text=false";
    const auto r =
        run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --quiet --out " +
                    shell_quote((dir / how).string()) + extra);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto records = journal_lines(dir / how / "results.jsonl");
    REQUIRE(records.size() == 1);
    const auto& rec = records[0];
    REQUIRE(rec["fields"]["DOCUMENT_TYPE"] == "BANK STATEMENT");
    CHECK(rec["fields"]["ACCOUNT_HOLDER"] == rec["engine"]["not_of_type"]["PAYER_NAME"]);
    if (exact) CHECK(rec["fields"]["ACCOUNT_HOLDER"] == "Jordan Smith");
    CHECK(rec["fields"]["BSB_NUMBER"] == "115 340");
    CHECK(rec["fields"]["STATEMENT_PERIOD"] == "01/12/2025 to 28/12/2025");
    // Read by the rules, kept in the record's engine part, left N/A with no confidence.
    for (const auto& [field, read] : std::map<std::string, std::string>{
             {"INVOICE_DATE", "05/12/2025"}, {"PAYER_NAME", "Jordan Smith"}}) {
      CAPTURE(field);
      CHECK(rec["fields"][field] == "N/A");
      CHECK_FALSE(rec["confidence"].contains(field));
      if (exact || field == "INVOICE_DATE") CHECK(rec["engine"]["not_of_type"][field] == read);
    }
    const auto csv = read_ground_truth(dir / how / "predictions.csv");
    CHECK(csv.at("text_statement.pdf").at("INVOICE_DATE") == "N/A");
  }
}
