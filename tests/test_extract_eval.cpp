// Response parsing (realistic model output styles) and the reference's scoring rules, edge by edge.
#include <doctest/doctest.h>

#include "docsift/error.h"
#include "docsift/eval/scoring.h"
#include "docsift/extract/response_parser.h"

using docsift::eval::score_field;
using docsift::extract::FieldType;
using docsift::extract::parse_response;

namespace {
const std::vector<std::string> kFields = {"DOCUMENT_TYPE", "ABN", "INVOICE_DATE", "TOTAL", "SUPPLIER_WEBSITE",
                                          "DESCRIPTIONS", "PAYER_NAME"};
}

TEST_CASE("parser: plain KEY: value lines, missing keys are N/A") {
  const auto v = parse_response("DOCUMENT_TYPE: TAX INVOICE\nABN: 04 904 754 234\nTOTAL: $58.62\n", kFields);
  CHECK(v.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(v.at("ABN") == "04 904 754 234");
  CHECK(v.at("TOTAL") == "$58.62");
  CHECK(v.at("INVOICE_DATE") == "N/A");
  CHECK(v.size() == kFields.size());
}

TEST_CASE("parser: chatter, markdown, case, colons in values, repeats, unknown keys") {
  const std::string response =
      "Here is the extracted data from the invoice:\n"
      "\n"
      "```\n"
      "**Document_Type:** TAX INVOICE\n"
      "- **abn**: 04 904 754 234\n"
      "* Invoice Date: 12/03/2024\n"
      "### TOTAL: N/A\n"
      "TOTAL: $1,234.56\n"
      "TOTAL: $9.99\n"
      "SUPPLIER_WEBSITE: https://acme.com.au:8080/invoices\n"
      "DESCRIPTIONS: Widget A | Widget B\n"
      "LINE_ITEM_COLOUR: blue\n"
      "Note: values marked N/A were not visible.\n"
      "```\n"
      "<|im_end|>";
  const auto v = parse_response(response, kFields);
  CHECK(v.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(v.at("ABN") == "04 904 754 234");
  CHECK(v.at("INVOICE_DATE") == "12/03/2024");               // "Invoice Date" → INVOICE_DATE
  CHECK(v.at("TOTAL") == "$1,234.56");                       // first non-missing value wins
  CHECK(v.at("SUPPLIER_WEBSITE") == "https://acme.com.au:8080/invoices");  // split at the first ':'
  CHECK(v.at("DESCRIPTIONS") == "Widget A | Widget B");
  CHECK(v.at("PAYER_NAME") == "N/A");
  CHECK(v.count("LINE_ITEM_COLOUR") == 0);
}

TEST_CASE("parser: an empty or refusing answer leaves every field N/A") {
  for (const char* response : {"", "I'm sorry, I cannot read this image.", "ABN:\nTOTAL:   \n"}) {
    const auto v = parse_response(response, kFields);
    for (const auto& f : kFields) CHECK(v.at(f) == "N/A");
  }
}

TEST_CASE("scoring: missing values and the common normalisation") {
  CHECK(score_field(FieldType::kText, "N/A", "NOT_FOUND") == 1.0);
  CHECK(score_field(FieldType::kText, "n/a", "") == 1.0);
  CHECK(score_field(FieldType::kMonetary, "$5.00", "NOT_FOUND") == 0.0);
  CHECK(score_field(FieldType::kMonetary, "N/A", "$5.00") == 0.0);
  CHECK(score_field(FieldType::kText, "ACME (Pty) Ltd", "acme pty ltd") == 1.0);  // ( ) and spaces ignored
}

TEST_CASE("scoring: numeric ids compare digits only") {
  CHECK(score_field(FieldType::kNumericId, "04 904 754 234", "04904754234") == 1.0);
  CHECK(score_field(FieldType::kNumericId, "ABN: 04-904-754-234", "04 904 754 234") == 1.0);
  CHECK(score_field(FieldType::kNumericId, "04 904 754 235", "04 904 754 234") == 0.0);
  CHECK(score_field(FieldType::kNumericId, "4 904 754 234", "04 904 754 234") == 0.0);  // a lost digit
}

TEST_CASE("scoring: money within 1 % (0.01 absolute at zero)") {
  CHECK(score_field(FieldType::kMonetary, "$1,234.56", "1234.56") == 1.0);
  CHECK(score_field(FieldType::kMonetary, "$100.99", "$100.00") == 1.0);   // 0.99 ≤ 1.00
  CHECK(score_field(FieldType::kMonetary, "$101.01", "$100.00") == 0.0);   // 1.01 > 1.00
  CHECK(score_field(FieldType::kMonetary, "$0.01", "$0.00") == 1.0);
  CHECK(score_field(FieldType::kMonetary, "$0.02", "$0.00") == 0.0);
  CHECK(score_field(FieldType::kMonetary, "-$12.00", "-12") == 1.0);
  CHECK(score_field(FieldType::kMonetary, "twelve dollars", "$12.00") == 0.0);  // not a number
}

TEST_CASE("scoring: dates by digit groups") {
  CHECK(score_field(FieldType::kDate, "07/07/2025", "7/7/2025") == 1.0);
  CHECK(score_field(FieldType::kDate, "2025-08-06", "06/08/2025") == 1.0);  // same groups, any order
  CHECK(score_field(FieldType::kDate, "06/08/2024", "06/08/2025") == 0.8);  // two groups shared
  CHECK(score_field(FieldType::kDate, "01/02/2024", "06/08/2025") == 0.0);
  CHECK(score_field(FieldType::kDate, "07/07/2025 to 06/08/2025", "07/07/2025 - 06/08/2025") == 1.0);
}

TEST_CASE("scoring: lists by matched items over the longer list") {
  CHECK(score_field(FieldType::kList, "3 | 3 | 3 | 1", "3 | 3 | 3 | 1") == 1.0);
  CHECK(score_field(FieldType::kList, "Widget A | Widget B", "widget a | widget b | widget c") == doctest::Approx(2.0 / 3));
  CHECK(score_field(FieldType::kList, "Widget A; Widget B; Extra; Extra 2", "Widget A | Widget B") == 0.5);
  CHECK(score_field(FieldType::kList, "apples", "pears | plums") == 0.0);
}

TEST_CASE("scoring: text by containment, then word overlap of at least 0.8") {
  CHECK(score_field(FieldType::kText, "Commonwealth Bank", "Commonwealth Bank of Australia") == 0.9);
  CHECK(score_field(FieldType::kText, "12 George Street Sydney NSW 2000 Australia", "12 George Street Sydney") == 0.9);
  // The comma keeps the truth from being contained, and "street," is not the word "street": 5 of 6.
  CHECK(score_field(FieldType::kText, "12 George Street Sydney NSW 2000 Australia",
                    "12 George Street, Sydney NSW 2000") == doctest::Approx(5.0 / 6));
  CHECK(score_field(FieldType::kText, "Level 3 12 George Street Sydney NSW", "12 George Street Sydney NSW 2000") ==
        doctest::Approx(5.0 / 6));
  CHECK(score_field(FieldType::kText, "George Street", "12 Pitt Street Sydney NSW 2000") == 0.0);
}
