// A document of several pages read as one: the schema's page rules (extract/schema.h, `pages:`),
// the merge of the pages' values (extract/document.h), the rules a page's record carries
// (journal/record.h) and documents.csv's rows from records in any order (batch/outputs.h).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/outputs.h"
#include "docsift/error.h"
#include "docsift/extract/document.h"
#include "docsift/extract/schema.h"
#include "docsift/journal/record.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace {

using docsift::extract::PageRule;
using docsift::extract::PageValues;
using docsift::journal::Record;

const docsift::extract::FieldSchema& schema() {
  static const auto s =
      docsift::extract::load_field_schema(std::string(docsift::extract::kBuiltinSchema));
  return s;
}

// The record of page `page` of `pages` of "inv.pdf": ok with `fields`, failed without.
Record page_record(int page, int pages, std::optional<std::map<std::string, std::string>> fields) {
  Record r;
  r.file = "inv.pdf#page=" + std::to_string(page);
  r.document = Record::Document{pages, docsift::extract::page_rules(schema())};
  if (fields) {
    r.status = Record::Status::Ok;
    r.fields = *fields;
  } else {
    r.status = Record::Status::Failed;
    r.error = "inv.pdf#page=" + std::to_string(page) + ": the page cannot be read";
  }
  return r;
}

}  // namespace

TEST_CASE(
    "schema page rules: lists join every page, the sums come from the last, the rest from the "
    "first") {
  const auto rules = docsift::extract::page_rules(schema());
  CHECK(rules.at("TOTAL") == PageRule::kLast);
  CHECK(rules.at("SUBTOTAL") == PageRule::kLast);
  CHECK(rules.at("GST") == PageRule::kLast);
  CHECK(rules.at("CLOSING_BALANCE") == PageRule::kLast);
  CHECK(rules.at("DESCRIPTIONS") == PageRule::kAll);
  CHECK(rules.at("PRICES") == PageRule::kAll);
  CHECK(rules.count("SUPPLIER") == 0);  // kFirst is every other field's, left out
  CHECK(rules.count("OPENING_BALANCE") == 0);

  docsift::testing::TempDir dir;
  docsift::testing::write_text(
      dir / "bad.yaml",
      "fields:\n  - {name: SUPPLIER, pages: all, type: text, instruction: \"x\"}\n");
  CHECK_THROWS_WITH_AS(docsift::extract::load_field_schema(dir / "bad.yaml"),
                       doctest::Contains("SUPPLIER has pages: all but is not a list"),
                       docsift::ConfigError);
  docsift::testing::write_text(
      dir / "typo.yaml",
      "fields:\n  - {name: TOTAL, pages: final, type: monetary, instruction: \"x\"}\n");
  // The unknown rule is named, and the choices listed.
  CHECK_THROWS_WITH_AS(docsift::extract::load_field_schema(dir / "typo.yaml"),
                       doctest::Contains("unknown page rule \"final\" (known: first, last, all)"),
                       docsift::ConfigError);
}

TEST_CASE("document values: each field by its rule, a value's confidence from its page") {
  const std::map<std::string, PageRule> rules{{"TOTAL", PageRule::kLast},
                                              {"PRICES", PageRule::kAll}};
  const std::vector<PageValues> pages{
      {{{"SUPPLIER", "Acme Pty Ltd"},
        {"TOTAL", "$10.00"},
        {"PRICES", "$1.00 | $2.00"},
        {"ABN", "N/A"}},
       {{"SUPPLIER", 0.9}, {"TOTAL", 0.5}, {"PRICES", 0.8}}},
      {{{"SUPPLIER", "Acme"}, {"TOTAL", "$30.00"}, {"PRICES", "N/A"}, {"ABN", "N/A"}},
       {{"SUPPLIER", 0.7}, {"TOTAL", 0.95}}},
      {{{"SUPPLIER", "N/A"}, {"TOTAL", "N/A"}, {"PRICES", "$3.00"}}, {{"PRICES", 0.6}}},
  };
  const PageValues doc = docsift::extract::document_values(pages, rules);
  CHECK(doc.fields.at("SUPPLIER") == "Acme Pty Ltd");  // the first page that has one
  CHECK(doc.confidence.at("SUPPLIER") == doctest::Approx(0.9));
  CHECK(doc.fields.at("TOTAL") == "$30.00");  // the last page that has one, not page 3's N/A
  CHECK(doc.confidence.at("TOTAL") == doctest::Approx(0.95));
  CHECK(doc.fields.at("PRICES") == "$1.00 | $2.00 | $3.00");
  CHECK(doc.confidence.at("PRICES") == doctest::Approx(0.6));  // the lowest of the pages joined
  CHECK(doc.fields.at("ABN") == "N/A");
  CHECK(doc.confidence.count("ABN") == 0);

  // A list page without a confidence leaves the joined list without one.
  const std::vector<PageValues> unsure{{{{"PRICES", "$1.00"}}, {{"PRICES", 0.9}}},
                                       {{{"PRICES", "$2.00"}}, {}}};
  CHECK(docsift::extract::document_values(unsure, rules).confidence.count("PRICES") == 0);
}

TEST_CASE("a page's record carries its document's page count and rules, and a bad one is refused") {
  const Record r = page_record(2, 3, std::map<std::string, std::string>{{"TOTAL", "$1.00"}});
  const nlohmann::json j = r.to_json();
  CHECK(j["document"]["pages"] == 3);
  CHECK(j["document"]["rules"]["TOTAL"] == "last");
  CHECK(Record::from_json(j, "x").document == r.document);
  Record plain = r;  // a file of one page: no "document"
  plain.document.reset();
  CHECK_FALSE(plain.to_json().contains("document"));
  CHECK_FALSE(Record::from_json(plain.to_json(), "x").document.has_value());

  nlohmann::json zero = j;
  zero["document"]["pages"] = 0;
  CHECK_THROWS_WITH_AS(Record::from_json(zero, "results.jsonl:4"),
                       doctest::Contains("results.jsonl:4: \"document\": \"pages\" is 0"),
                       docsift::MalformedInputError);
  nlohmann::json rule = j;
  rule["document"]["rules"]["TOTAL"] = "final";
  CHECK_THROWS_WITH_AS(Record::from_json(rule, "results.jsonl:5"), doctest::Contains("TOTAL"),
                       docsift::MalformedInputError);
}

TEST_CASE("a record's line items: written and read back, a bad row refused") {
  Record r = page_record(1, 1, std::map<std::string, std::string>{{"DESCRIPTIONS", "Fuel"}});
  r.line_items = std::vector<Record::LineItem>{{"Fuel",
                                                std::nullopt,
                                                std::nullopt,
                                                std::nullopt,
                                                "14 Mar",
                                                "$45.00",
                                                std::nullopt,
                                                "$955.00",
                                                {10, 20, 300, 25},
                                                0.875}};
  const nlohmann::json j = r.to_json();
  CHECK(j["line_items"][0]["debit"] == "$45.00");
  CHECK(j["line_items"][0]["confidence"] == 0.875);
  CHECK_FALSE(j["line_items"][0].contains("credit"));  // a cell the row did not print is absent
  CHECK(Record::from_json(j, "x").line_items == r.line_items);
  CHECK(docsift::batch::line_item_rows(r) ==
        "inv.pdf#page=1,1,Fuel,,,,14 Mar,$45.00,,$955.00,0.8750,10,20,300,25\n");
  // A row without a confidence (a model's) leaves the key and the column empty.
  r.line_items->front().confidence.reset();
  CHECK_FALSE(r.to_json()["line_items"][0].contains("confidence"));
  CHECK(docsift::batch::line_item_rows(r) ==
        "inv.pdf#page=1,1,Fuel,,,,14 Mar,$45.00,,$955.00,,10,20,300,25\n");
  nlohmann::json bad = j;
  bad["line_items"][0]["box"] = {1, 2, 3};
  CHECK_THROWS_WITH_AS(Record::from_json(bad, "results.jsonl:9"),
                       doctest::Contains("box is not four integers"), docsift::MalformedInputError);
  bad = j;
  bad["line_items"][0]["confidence"] = 1.5;
  CHECK_THROWS_WITH_AS(Record::from_json(bad, "results.jsonl:9"),
                       doctest::Contains("confidence is not a number in [0, 1]"),
                       docsift::MalformedInputError);
}

TEST_CASE(
    "documents.csv rows: a file's row once every page is ok, in any order, a failed page holding "
    "it back") {
  const std::vector<std::string> fields{"SUPPLIER", "TOTAL"};
  docsift::batch::DocumentRows rows(fields);

  Record single;
  single.file = "receipt.jpg";
  single.status = Record::Status::Ok;
  single.fields = std::map<std::string, std::string>{{"SUPPLIER", "Cafe"}, {"TOTAL", "$4.50"}};
  CHECK(rows.add(single) == "receipt.jpg,Cafe,$4.50\n");  // one page: its own row at once

  // Page 2 first (a page read again comes later in the journal), page 1 failed.
  CHECK(rows.add(page_record(
            2, 2, std::map<std::string, std::string>{{"SUPPLIER", "N/A"}, {"TOTAL", "$30.00"}})) ==
        "");
  CHECK(rows.add(page_record(1, 2, std::nullopt)) ==
        "");  // held back: no row from part of a document
  // Page 1 retried and read: the document is whole.
  const std::string row = rows.add(page_record(
      1, 2, std::map<std::string, std::string>{{"SUPPLIER", "Acme"}, {"TOTAL", "$10.00"}}));
  CHECK(row == "inv.pdf,Acme,$30.00\n");

  // undo takes the last add back: the same page added again completes the document again.
  docsift::batch::DocumentRows again(fields);
  CHECK(again.add(page_record(
            1, 2, std::map<std::string, std::string>{{"SUPPLIER", "Acme"}, {"TOTAL", "N/A"}})) ==
        "");
  CHECK(again.add(page_record(
            2, 2, std::map<std::string, std::string>{{"SUPPLIER", "N/A"}, {"TOTAL", "$7.00"}})) ==
        "inv.pdf,Acme,$7.00\n");
  again.undo();
  CHECK(again.add(page_record(
            2, 2, std::map<std::string, std::string>{{"SUPPLIER", "N/A"}, {"TOTAL", "$8.00"}})) ==
        "inv.pdf,Acme,$8.00\n");
}
