// The OCR engine: each value check on strings, the field rules on pages laid out from strings (no
// OCR), then Tesseract end to end: the samples scored by eval, and pages with nothing to read.
#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "docsift/error.h"
#include "docsift/io/image_file.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/values.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace docsift::ocr;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;

std::string value_or_none(const std::optional<std::string>& v) { return v ? *v : "<none>"; }

// A page as if OCR had read `lines` from a clean render: 10 px per character, 30 px per line, and
// an empty string as a blank line (so a new block).
Page page_of(const std::vector<std::string>& lines) {
  std::vector<Word> words;
  int y = 0;
  for (const auto& line : lines) {
    int x = 0;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && line[i] == ' ') ++i, x += 10;
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ') ++i;
      if (i > start) {
        const int w = static_cast<int>(i - start) * 10;
        words.push_back({line.substr(start, i - start), {x, y, x + w, y + 20}, 95.0f});
        x += w;
      }
    }
    y += 30;
  }
  return layout_page(std::move(words), 850, 1100);
}

const std::vector<std::string> kFieldNames{
    "DOCUMENT_TYPE", "SUPPLIER",         "ABN",          "PAYER_NAME",  "PAYER_ADDRESS",       "PAYER_PHONE",
    "PAYER_EMAIL",   "INVOICE_DATE",     "DUE_DATE",     "GST",         "TOTAL",               "SUBTOTAL",
    "QUANTITIES",    "PRICES",           "BUSINESS_ADDRESS", "BUSINESS_PHONE", "SUPPLIER_WEBSITE", "BANK_NAME",
    "BSB_NUMBER",    "BANK_ACCOUNT_NUMBER", "ACCOUNT_HOLDER", "STATEMENT_PERIOD", "OPENING_BALANCE",
    "CLOSING_BALANCE", "DESCRIPTIONS"};

// A 24-bit BMP of `rgb` ((H, W, 3) uint8): an image format docsift reads, written without a library.
void write_bmp(const fs::path& path, const at::Tensor& rgb) {
  const int h = static_cast<int>(rgb.size(0)), w = static_cast<int>(rgb.size(1));
  const int row = (w * 3 + 3) / 4 * 4;
  std::string bytes(54 + static_cast<std::size_t>(row) * h, '\0');
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(v >> (8 * i));
  };
  bytes[0] = 'B';
  bytes[1] = 'M';
  put32(2, static_cast<std::uint32_t>(bytes.size()));
  put32(10, 54);
  put32(14, 40);
  put32(18, static_cast<std::uint32_t>(w));
  put32(22, static_cast<std::uint32_t>(h));
  bytes[26] = 1;
  bytes[28] = 24;
  const at::Tensor c = rgb.contiguous();
  const auto* p = c.data_ptr<std::uint8_t>();
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const std::size_t at = 54 + static_cast<std::size_t>(h - 1 - y) * row + static_cast<std::size_t>(x) * 3;
      for (int k = 0; k < 3; ++k) bytes[at + k] = static_cast<char>(p[(y * w + x) * 3 + (2 - k)]);
    }
  }
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("OCR values: ABN checksum, dates, amounts, BSB, accounts, phones, addresses") {
  CHECK(abn_checksum_ok("51824753556"));  // the ATO's published example
  CHECK_FALSE(abn_checksum_ok("51824753557"));
  CHECK(value_or_none(parse_abn("ABN 51 824 753 556")) == "51 824 753 556");
  CHECK(value_or_none(parse_abn("A.B.N. 51824753556")) == "51 824 753 556");
  CHECK(value_or_none(parse_abn("ABN 51:824 753 556")) == "51 824 753 556");  // OCR read a space as ':'
  CHECK(value_or_none(parse_abn("ABN 51 824 753 557")) == "<none>");           // one digit misread
  CHECK(value_or_none(parse_abn("Phone 0412 345 678")) == "<none>");

  CHECK(value_or_none(parse_date("Date: 03/04/2025")) == "03/04/2025");
  CHECK(value_or_none(parse_date("3/4/25")) == "03/04/2025");
  CHECK(value_or_none(parse_date("03-04-2025")) == "03/04/2025");
  CHECK(value_or_none(parse_date("03.04.2025")) == "03/04/2025");
  CHECK(value_or_none(parse_date("2025-04-03")) == "03/04/2025");
  CHECK(value_or_none(parse_date("Issued 3 April 2025")) == "03/04/2025");
  CHECK(value_or_none(parse_date("3rd Apr 2025")) == "03/04/2025");
  CHECK(value_or_none(parse_date("April 3, 2025")) == "03/04/2025");
  CHECK(value_or_none(parse_date("29/02/2024")) == "29/02/2024");
  CHECK(value_or_none(parse_date("29/02/2025")) == "<none>");
  CHECK(value_or_none(parse_date("31/04/2025")) == "<none>");
  CHECK(value_or_none(parse_date("Qty 3")) == "<none>");
  CHECK(value_or_none(parse_period("01/07/2025 to 28/07/2025")) == "01/07/2025 to 28/07/2025");
  CHECK(value_or_none(parse_period("1 July 2025 - 28 July 2025")) == "01/07/2025 to 28/07/2025");
  CHECK(value_or_none(parse_period("01/07/2025")) == "<none>");

  CHECK(value_or_none(parse_amount("TOTAL: $2,480.62")) == "$2,480.62");
  CHECK(value_or_none(parse_amount("1234.56")) == "$1,234.56");
  CHECK(value_or_none(parse_amount("AUD 1,234.56")) == "$1,234.56");
  CHECK(value_or_none(parse_amount("Rent payment -$509.21")) == "$509.21");
  CHECK(value_or_none(parse_amount("GST (10%): $225.51")) == "$225.51");
  CHECK(value_or_none(parse_amount("$ 1 234.56")) == "$1,234.56");
  CHECK(value_or_none(parse_amount("4 $69.73")) == "$69.73");
  CHECK(value_or_none(parse_amount("Qty 4")) == "<none>");
  CHECK(value_or_none(parse_amount("1,234")) == "<none>");
  CHECK(value_or_none(parse_amount("03.04.2025")) == "<none>");
  CHECK(amount_cents("$2,480.62") == 248062);

  CHECK(value_or_none(parse_bsb("BSB: 063-140")) == "063 140");
  CHECK(value_or_none(parse_bsb("063140")) == "063 140");
  CHECK(value_or_none(parse_bsb("06314")) == "<none>");
  CHECK(value_or_none(parse_account("Account: 3957 6099")) == "39576099");
  CHECK(value_or_none(parse_account("Account statement")) == "<none>");
  CHECK(value_or_none(parse_phone("Phone (02) 1889 4771")) == "(02) 1889 4771");
  CHECK(value_or_none(parse_phone("Mobile 0412 345 678")) == "0412 345 678");
  CHECK(value_or_none(parse_phone("ABN 51 824 753 556")) == "<none>");
  CHECK(value_or_none(parse_email("jordan.smith@Example.com.au")) == "jordan.smith@example.com.au");
  CHECK(value_or_none(parse_website("Visit www.harbour.com.au today")) == "www.harbour.com.au");
  CHECK(looks_like_address("88 Collins Street, Melbourne VIC 3000"));
  CHECK(looks_like_address("Level 2, 5 Adelaide Terrace"));
  CHECK(looks_like_address("Perth WA 6000"));
  CHECK_FALSE(looks_like_address("Jordan Smith"));
  CHECK_FALSE(looks_like_address("Flyers x500 3 $116.25"));
  CHECK(clean_text("  :  Jordan   Smith - ") == "Jordan Smith");
}

TEST_CASE("OCR rules on a laid-out invoice: labels right and below, the longest label wins, table rows, blocks") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const Page page = page_of({"TAX INVOICE",
                             "Harbour Office Supplies",
                             "ABN 51 824 753 556",
                             "88 Collins Street, Melbourne VIC 3000",
                             "Phone (02) 1889 4771",
                             "www.harbour.com.au",
                             "",
                             "Bill to:",
                             "Jordan Smith",
                             "5 Adelaide Terrace, Perth WA 6000",
                             "(04) 4357 3024",
                             "jordan.smith@example.com.au",
                             "",
                             "Date: 03/04/2025",
                             "Due date: 19/11/2025",
                             "",
                             "Description        Qty     Price",
                             "Catering platter     4    $69.73",
                             "Flyers x500          3   $116.25",
                             "",
                             "Subtotal: $627.67",
                             "GST (10%): $62.77",
                             "TOTAL: $690.44"});
  const auto e = extract_fields(page, rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(e.fields.at("SUPPLIER") == "Harbour Office Supplies");
  CHECK(e.fields.at("ABN") == "51 824 753 556");
  CHECK(e.fields.at("BUSINESS_ADDRESS") == "88 Collins Street, Melbourne VIC 3000");
  CHECK(e.fields.at("BUSINESS_PHONE") == "(02) 1889 4771");
  CHECK(e.fields.at("SUPPLIER_WEBSITE") == "www.harbour.com.au");
  CHECK(e.fields.at("PAYER_NAME") == "Jordan Smith");
  CHECK(e.fields.at("PAYER_ADDRESS") == "5 Adelaide Terrace, Perth WA 6000");
  CHECK(e.fields.at("PAYER_PHONE") == "(04) 4357 3024");
  CHECK(e.fields.at("PAYER_EMAIL") == "jordan.smith@example.com.au");
  CHECK(e.fields.at("INVOICE_DATE") == "03/04/2025");
  CHECK(e.fields.at("DUE_DATE") == "19/11/2025");
  CHECK(e.fields.at("DESCRIPTIONS") == "Catering platter | Flyers x500");
  CHECK(e.fields.at("QUANTITIES") == "4 | 3");
  CHECK(e.fields.at("PRICES") == "$69.73 | $116.25");
  CHECK(e.fields.at("SUBTOTAL") == "$627.67");
  CHECK(e.fields.at("GST") == "$62.77");
  CHECK(e.fields.at("TOTAL") == "$690.44");
  CHECK(e.checks["sum"] == true);
  for (const char* none : {"BANK_NAME", "BSB_NUMBER", "BANK_ACCOUNT_NUMBER", "ACCOUNT_HOLDER", "STATEMENT_PERIOD",
                           "OPENING_BALANCE", "CLOSING_BALANCE"}) {
    CAPTURE(std::string(none));
    CHECK(e.fields.at(none) == "N/A");
  }
}

TEST_CASE("OCR rules: other wordings, two labels on one line, a statement, noise that fails the checks") {
  const Rules rules = load_rules("builtin:ocr-rules");
  auto e = extract_fields(page_of({"Blue Wren Printing Pty Ltd",
                                   "A.B.N. 51 824 753 556",
                                   "TAX INVOICE",
                                   "",
                                   "Billed to: Mei Chen",
                                   "",
                                   "Invoice Date: 3 April 2025    Payment due: 17 Apr 2025",
                                   "",
                                   "Item                 Quantity   Unit price",
                                   "Stapler                     2       $12.50",
                                   "",
                                   "Total (ex GST) $25.00",
                                   "GST $2.50",
                                   "Amount Due $27.60"}),
                          rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(e.fields.at("SUPPLIER") == "Blue Wren Printing Pty Ltd");
  CHECK(e.fields.at("ABN") == "51 824 753 556");
  CHECK(e.fields.at("PAYER_NAME") == "Mei Chen");
  CHECK(e.fields.at("INVOICE_DATE") == "03/04/2025");
  CHECK(e.fields.at("DUE_DATE") == "17/04/2025");
  CHECK(e.fields.at("SUBTOTAL") == "$25.00");  // "Total (ex GST)" is not the total
  CHECK(e.fields.at("TOTAL") == "$27.60");
  CHECK(e.fields.at("DESCRIPTIONS") == "Stapler");
  CHECK(e.checks["sum"] == false);  // 25.00 + 2.50 is not 27.60: the record says so

  e = extract_fields(page_of({"Westpac",
                              "Account statement",
                              "Account holder: Aisha Rahman",
                              "301 Queen Street, Brisbane QLD 4000",
                              "BSB: 630 887   Account: 39576099",
                              "Statement period: 01/07/2025 to 28/07/2025",
                              "",
                              "Opening balance: $1,208.81",
                              "",
                              "Transaction              Amount",
                              "Rent payment           -$509.21",
                              "Fuel - $329.43",
                              "",
                              "Closing balance: $1,373.03"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  CHECK(e.fields.at("BANK_NAME") == "Westpac");
  CHECK(e.fields.at("ACCOUNT_HOLDER") == "Aisha Rahman");
  CHECK(e.fields.at("PAYER_ADDRESS") == "301 Queen Street, Brisbane QLD 4000");
  CHECK(e.fields.at("BSB_NUMBER") == "630 887");
  CHECK(e.fields.at("BANK_ACCOUNT_NUMBER") == "39576099");
  CHECK(e.fields.at("STATEMENT_PERIOD") == "01/07/2025 to 28/07/2025");
  CHECK(e.fields.at("OPENING_BALANCE") == "$1,208.81");
  CHECK(e.fields.at("CLOSING_BALANCE") == "$1,373.03");
  CHECK(e.fields.at("DESCRIPTIONS") == "Rent payment | Fuel");
  for (const char* none : {"SUPPLIER", "ABN", "PAYER_NAME", "PRICES", "QUANTITIES", "TOTAL", "INVOICE_DATE"}) {
    CAPTURE(std::string(none));
    CHECK(e.fields.at(none) == "N/A");
  }

  // OCR noise: an ABN with a misread digit, a date that does not exist, a BSB of 5 digits.
  e = extract_fields(page_of({"RECEIPT", "Kookaburra Cafe", "ABN 51 824 753 557", "Date: 31/02/2025", "BSB 06314"}), rules,
                     kFieldNames);
  CHECK(e.fields.at("ABN") == "N/A");
  CHECK(e.fields.at("INVOICE_DATE") == "N/A");
  CHECK(e.fields.at("BSB_NUMBER") == "N/A");
  CHECK(e.fields.at("SUPPLIER") == "Kookaburra Cafe");
  CHECK(extract_fields(page_of(std::vector<std::string>{}), rules, kFieldNames).fields.at("TOTAL") == "N/A");
}

TEST_CASE("OCR rules file: errors name the file and the problem") {
  TempDir dir;
  write_text(dir / "bad.yaml", "document_types: [{type: RECEIPT, words: [receipt]}]\nfields:\n  TOTAL: {kind: money, labels: [total]}\n");
  try {
    load_rules((dir / "bad.yaml").string());
    FAIL("no error");
  } catch (const docsift::ConfigError& e) {
    CHECK(std::string(e.what()).find("bad.yaml: fields.TOTAL: kind 'money'") != std::string::npos);
  }
  CHECK_THROWS_AS(load_rules((dir / "missing.yaml").string()), docsift::ConfigError);
  CHECK_THROWS_AS(load_rules("builtin:nope"), docsift::ConfigError);
}

TEST_CASE("OCR engine on the samples with no model: eval reaches 0.85, the records say which engine") {
  TempDir out;
  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                             shell_quote(out.path().string()) + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 20);
  for (const auto& rec : records) {
    CHECK(rec["tier"] == "ocr");
    CHECK(rec["engine"]["name"] == "ocr");
    CHECK(rec["engine"]["mean_confidence"].get<double>() > 50);
  }
  CHECK(nlohmann::json::parse(file_bytes(out.path() / "summary.json"))["engine"] == "ocr");
  const auto eval = run_docsift("eval " + shell_quote((out.path() / "predictions.csv").string()) + " " +
                                shell_quote((kSource / "samples/ground_truth.csv").string()) + " --min-accuracy 0.85");
  MESSAGE(eval.out);
  CHECK_MESSAGE(eval.exit_code == 0, eval.err);
}

TEST_CASE("OCR engine on pages with nothing to read: blank, noise, upside down, recorded with a reason, never a crash") {
  TempDir dir;
  fs::create_directories(dir / "in");
  write_bmp(dir / "in/blank.bmp", at::full({1100, 850, 3}, 255, at::kByte));
  std::mt19937 rng(7);
  at::Tensor noise = at::empty({600, 800, 3}, at::kByte);
  auto* p = noise.data_ptr<std::uint8_t>();
  for (int i = 0; i < noise.numel(); ++i) p[i] = static_cast<std::uint8_t>(rng() % 256);
  write_bmp(dir / "in/photo.bmp", noise);
  const at::Tensor sample = docsift::io::read_rgb_image(kSource / "samples/synthetic_invoice_001.png");
  write_bmp(dir / "in/upside_down.bmp", sample.flip({0, 1}));

  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                             shell_quote((dir / "out").string()) + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<std::string, nlohmann::json> by_file;
  for (auto& rec : journal_lines(dir / "out/results.jsonl")) by_file[rec["file"]] = rec;
  REQUIRE(by_file.size() == 3);
  for (const char* name : {"blank.bmp", "photo.bmp"}) {
    CAPTURE(std::string(name));
    const auto& rec = by_file[name];
    CHECK(rec["status"] == "ok");
    for (const auto& [field, value] : rec["fields"].items()) CHECK(value == "N/A");
    CHECK(rec["engine"]["reason"].get<std::string>().size() > 10);
  }
  // Upside down: turned and read.
  const auto& turned = by_file["upside_down.bmp"];
  CHECK(turned["engine"]["prepared"]["turned_180"] == true);
  CHECK(turned["fields"]["TOTAL"] == "$2,480.62");
  CHECK(turned["fields"]["DOCUMENT_TYPE"] == "TAX INVOICE");
}
