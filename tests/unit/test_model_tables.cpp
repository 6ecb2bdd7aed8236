// The tables a model is asked for (extraction.tables, extract/tables.h): the schema's `tables:`,
// the prompt's extra lines, the keys plan's extra keys, a table line read into rows, and the
// record those rows make (batch/vlm_tables.h): line_items, and the lists made from them.
#include <doctest/doctest.h>

#include <string>

#include "docsift/batch/vlm_tables.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/extract/tables.h"
#include "support/temp_dir.h"

using docsift::extract::parse_table;
using docsift::extract::TableSpec;

namespace {

TableSpec line_items() {
  TableSpec t;
  t.name = "LINE_ITEMS";
  t.applies_to = {"TAX INVOICE", "RECEIPT"};
  t.columns = {"description", "quantity", "unit_price", "amount"};
  t.instruction = "rows";
  return t;
}

}  // namespace

TEST_CASE(
    "a table's line is read as JSON rows: cells as printed, numbers as written, empties dropped") {
  const auto t = line_items();
  const auto r = parse_table(
      "DOCUMENT_TYPE: TAX INVOICE\nTOTAL: $33.00\nLINE_ITEMS: [{\"description\": \"Widgets\", "
      "\"quantity\": 3, \"unit_price\": \"$10.00\", \"amount\": \"$30.00\"}, {\"description\": \" "
      "Delivery \", \"quantity\": null, \"amount\": \"N/A\"}, {\"quantity\": \"\"}]\nNEXT: x",
      t);
  CHECK(r.found);
  CHECK(r.problem.empty());
  REQUIRE(r.rows.size() == 2);  // the third row has no cell
  CHECK(r.rows[0].at("description") == "Widgets");
  CHECK(r.rows[0].at("quantity") == "3");
  CHECK(r.rows[0].at("amount") == "$30.00");
  CHECK(r.rows[1].at("description") == "Delivery");
  CHECK(r.rows[1].count("quantity") == 0);
  CHECK(r.rows[1].count("amount") == 0);
  // Absent, N/A and [] are no rows and no problem.
  CHECK_FALSE(parse_table("TOTAL: $1.00", t).found);
  CHECK(parse_table("LINE_ITEMS: N/A", t).rows.empty());
  CHECK(parse_table("LINE_ITEMS: N/A", t).problem.empty());
  CHECK(parse_table("LINE_ITEMS: []", t).problem.empty());
}

TEST_CASE("a table line that is not rows is a problem, never a crash, and gives no rows") {
  const auto t = line_items();
  const auto problem = [&](const std::string& value) {
    const auto r = parse_table("LINE_ITEMS: " + value, t);
    CHECK(r.found);
    CHECK(r.rows.empty());
    return r.problem;
  };
  CHECK(problem("[{\"description\": \"a\"") == "not a JSON array of objects");  // cut at the cap
  CHECK(problem("{\"description\": \"a\"}") == "not a JSON array");
  CHECK(problem("[\"a\", \"b\"]") == "a row is not an object");
  CHECK(problem("[{\"colour\": \"red\"}]").find("'colour'") != std::string::npos);
  CHECK(problem("[{\"description\": {\"x\": 1}}]") == "not a JSON array of objects");  // too deep
  CHECK(problem("[{\"description\": [1]}]") == "not a JSON array of objects");
  CHECK(problem("[{\"description\": true}]") == "a cell is neither a string nor a number");
  CHECK(problem("[{\"description\": \"a\", \"description\": \"b\"}]") ==
        "not a JSON array of objects");  // a duplicate key
  CHECK(problem(std::string(70000, '[')) == "the line is over 64 KiB");
  std::string many = "[";
  for (int i = 0; i < 1001; ++i) many += std::string(i ? "," : "") + "{\"amount\": 1}";
  CHECK(problem(many + "]") == "more than 1,000 rows");
}

TEST_CASE("the built-in schema's tables, the prompt's extra lines, and schema errors in tables:") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  REQUIRE(schema.tables.size() == 2);
  CHECK(schema.tables[0].name == "LINE_ITEMS");
  CHECK(schema.tables[0].applies("receipt"));
  CHECK_FALSE(schema.tables[0].applies("BANK STATEMENT"));
  CHECK(schema.tables[1].name == "TRANSACTIONS");
  // Off: the reference's prompt, unchanged; on: one line per table after the fields.
  const std::string plain = docsift::extract::build_prompt(schema);
  const std::string with = docsift::extract::build_prompt(schema, true);
  CHECK(plain.find("LINE_ITEMS") == std::string::npos);
  CHECK(plain.find("stop after DESCRIPTIONS.") != std::string::npos);
  CHECK(with.find("stop after TRANSACTIONS.") != std::string::npos);
  CHECK(with.find("\nLINE_ITEMS: [the line items as one JSON array") != std::string::npos);
  CHECK(with.find("(TAX INVOICE, RECEIPT)\nTRANSACTIONS: [") != std::string::npos);

  docsift::testing::TempDir dir;
  const auto refused = [&](const std::string& tables, const char* message) {
    docsift::testing::write_text(dir / "s.yaml",
                                 "fields:\n  - {name: TOTAL, type: monetary, instruction: x}\n"
                                 "tables:\n" +
                                     tables);
    CHECK_THROWS_WITH_AS(docsift::extract::load_field_schema(dir / "s.yaml"),
                         doctest::Contains(message), docsift::ConfigError);
  };
  refused("  - {name: ROWS, columns: [description, colour], instruction: x}\n",
          "columns must start with description");
  refused("  - {name: ROWS, columns: [amount, description], instruction: x}\n",
          "columns must start with description");
  refused("  - {name: rows, columns: [description], instruction: x}\n", "must be upper-case");
  refused("  - {name: ROWS, columns: [description]}\n", "has no instruction");
  refused("  - {name: ROWS, columns: [description], instruction: x, max_tokens: 0}\n",
          "max_tokens must be 1 to 8192");
  refused("  - {name: ROWS, columns: [description], instruction: x, colour: red}\n",
          "unknown key 'colour'");
  refused("  - {name: TOTAL, columns: [description], instruction: x}\n", "has a field's name");
  refused(
      "  - {name: R, columns: [description], instruction: x}\n  - {name: R, columns: "
      "[description], instruction: y}\n",
      "appears twice");
  refused("  {name: R}\n", "'tables' must be a list");
}

TEST_CASE(
    "a model's table becomes the record's line_items, and the lists are made from its rows with "
    "its confidence") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  const std::string answer =
      "DOCUMENT_TYPE: RECEIPT\nQUANTITIES: 1 | 2 | 3\nPRICES: $1.00\nDESCRIPTIONS: a\n"
      "LINE_ITEMS: [{\"description\": \"Tea\", \"quantity\": \"2\", \"unit_price\": \"$3.00\", "
      "\"amount\": \"$6.00\"}, {\"description\": \"Cake\", \"amount\": \"$4.50\"}]\n"
      "TRANSACTIONS: [{\"description\": \"never read: not a statement\"}]\n";
  docsift::journal::Record record;
  record.fields = {{"DOCUMENT_TYPE", "RECEIPT"},
                   {"QUANTITIES", "1 | 2 | 3"},
                   {"PRICES", "$1.00"},
                   {"DESCRIPTIONS", "a"},
                   {"BANK_NAME", "N/A"}};
  const auto values = docsift::batch::table_values(schema, answer);
  CHECK(values.at("LINE_ITEMS").starts_with("[{"));
  std::map<std::string, double> confidence{{"QUANTITIES", 0.9},
                                           {"PRICES", 0.9},
                                           {"DESCRIPTIONS", 0.9},
                                           {"LINE_ITEMS", 0.4},
                                           {"TRANSACTIONS", 0.8}};
  docsift::batch::record_tables(schema, answer, record, confidence);
  REQUIRE(record.line_items);
  REQUIRE(record.line_items->size() == 2);
  CHECK((*record.line_items)[0].description == "Tea");
  CHECK((*record.line_items)[0].quantity == "2");
  CHECK((*record.line_items)[1].amount == "$4.50");
  CHECK_FALSE((*record.line_items)[1].quantity);
  // The lists line up with the rows: a description each, the quantities and prices they print.
  CHECK(record.fields->at("DESCRIPTIONS") == "Tea | Cake");
  CHECK(record.fields->at("QUANTITIES") == "2");
  CHECK(record.fields->at("PRICES") == "$3.00 | $4.50");
  CHECK(confidence.at("DESCRIPTIONS") == 0.4);
  CHECK(confidence.at("PRICES") == 0.4);
  CHECK(confidence.count("LINE_ITEMS") == 0);
  CHECK(confidence.count("TRANSACTIONS") == 0);
  CHECK_FALSE(record.warning);

  // A table line that is no rows: the fields as read, the reason in the warning.
  docsift::journal::Record bad;
  bad.fields = {{"DOCUMENT_TYPE", "TAX INVOICE"}, {"DESCRIPTIONS", "a"}};
  std::map<std::string, double> none;
  docsift::batch::record_tables(schema, "LINE_ITEMS: [{\"description\": ", bad, none);
  CHECK_FALSE(bad.line_items);
  CHECK(bad.fields->at("DESCRIPTIONS") == "a");
  REQUIRE(bad.warning);
  CHECK(*bad.warning == "LINE_ITEMS: not a JSON array of objects; no rows read");
}
