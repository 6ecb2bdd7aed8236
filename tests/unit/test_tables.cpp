// Tables from word boxes (ocr/table.h): the header's columns, each line cut into a row from its
// ends, figures placed by where the full rows' figures stand, wrapped descriptions and rows broken
// over two lines; the line items the field finder reads from them (find_items.cpp); and the rows
// checked against themselves and the page's subtotal (page_checks.h).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "docsift/ocr/page.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/table.h"
#include "support/word_pages.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::Column;
using docsift::ocr::Word;

using docsift::testing::page_of;
using docsift::testing::Placed;

const docsift::ocr::Rules& rules() { return docsift::testing::shipped_rules(); }

// A row of a table's items: its description and the cells it prints.
docsift::ocr::LineItem row_of(std::string description, std::optional<std::string> quantity,
                              std::optional<std::string> unit_price,
                              std::optional<std::string> amount) {
  docsift::ocr::LineItem item;
  item.description = std::move(description), item.quantity = std::move(quantity);
  item.unit_price = std::move(unit_price), item.amount = std::move(amount);
  return item;
}

std::vector<Column> kinds(const std::vector<docsift::ocr::TableColumn>& columns) {
  std::vector<Column> out;
  for (const auto& c : columns) out.push_back(c.kind);
  return out;
}

constexpr auto kAll = docsift::testing::every_word;

}  // namespace

TEST_CASE(
    "table header: columns by their words, the longest phrase first, marks around words ignored") {
  const auto page =
      page_of({{{"Description", 10}, {"Qty", 300}, {"Unit", 400}, {"price", 450}, {"Amount", 600}},
               {{"Item", 10},
                {"Code", 60},
                {"Description", 150},
                {"Qty", 400},
                {"Tax", 500},
                {"Total", 600}},
               {{"[Datum", 10},
                {"_Verwendungszweck", 100},
                {"Soll|", 400},
                {"Haben", 500},
                {"Saldo_", 600}},
               {{"Total", 10}, {"$5.00", 600}}});
  const auto& words = rules().table;
  const auto first = docsift::ocr::table_header(page.lines[0], words);
  REQUIRE(first);
  CHECK(kinds(*first) ==
        std::vector{Column::kDescription, Column::kQuantity, Column::kUnitPrice, Column::kAmount});
  CHECK((*first)[2].left == 400);  // "Unit price": both words
  CHECK((*first)[2].right == 500);
  // "Item" and "Description" both name the description: the list's first name wins, where it
  // stands.
  const auto second = docsift::ocr::table_header(page.lines[1], words);
  REQUIRE(second);
  CHECK(kinds(*second) == std::vector{Column::kDescription, Column::kQuantity, Column::kAmount});
  CHECK((*second)[0].left == 150);
  const auto third = docsift::ocr::table_header(page.lines[2], words);
  REQUIRE(third);
  CHECK(kinds(*third) == std::vector{Column::kDate, Column::kDescription, Column::kDebit,
                                     Column::kCredit, Column::kBalance});
  CHECK_FALSE(docsift::ocr::table_header(page.lines[3], words));  // no description column
}

TEST_CASE(
    "table rows: figures where the full rows put them, not under a header that stands elsewhere") {
  // A proportional header over a monospace table: "Qty" and "Price" end far left of the figures.
  const auto page = page_of(
      {{{"Description", 10}, {"Qty", 150}, {"Price", 200}},
       {{"Catering", 10}, {"platter", 100}, {"4", 300}, {"$69.73", 400}},
       {{"Toner", 10}, {"cartridge", 70}, {"3", 300}, {"$234.32", 390}},
       {{"Whiteboard", 10}, {"$119.38", 390}},  // its quantity unread
       {{"Flyers", 10}, {"x500", 80}, {"2", 300}, {"$129", 390}, {".32", 430}}});  // cents apart
  const auto header = docsift::ocr::table_header(page.lines[0], rules().table);
  REQUIRE(header);
  const auto rows =
      docsift::ocr::table_rows(page, 1, page.lines.size(), *header, rules().lexicon, kAll);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].cells.at(Column::kDescription) == "Catering platter");
  CHECK(rows[0].cells.at(Column::kQuantity) == "4");
  CHECK(rows[0].cells.at(Column::kUnitPrice) == "$69.73");
  // One figure: the price, by where the full rows' prices end, though the header's "Qty" is nearer.
  CHECK(rows[2].cells.count(Column::kQuantity) == 0);
  CHECK(rows[2].cells.at(Column::kUnitPrice) == "$119.38");
  CHECK(rows[3].cells.at(Column::kDescription) == "Flyers x500");  // "x500" is no figure
  CHECK(rows[3].cells.at(Column::kUnitPrice) == "$129.32");
}

TEST_CASE(
    "table rows: a wrapped description, a row broken over two lines, dates with month names, a tax "
    "rate passed over") {
  const auto page = page_of(
      {{{"Date", 10}, {"Description", 120}, {"Debit", 450}, {"Credit", 550}, {"Balance", 650}},
       {{"14", 10}, {"Mar", 40}, {"Fuel", 120}, {"$45.00", 450}, {"$955.00", 650}},
       {{"15", 10},
        {"Mar", 40},
        {"Transfer", 120},
        {"from", 220},
        {"$500.00", 550},
        {"$1,455.00", 650}},
       {{"savings", 120}, {"account", 200}},  // wrapped
       {{"16", 10}, {"Mar", 40}, {"Coles", 120}},
       {{"$12.50", 450}, {"$1,442.50", 650}}});  // the row's figures, a line lower
  const auto header = docsift::ocr::table_header(page.lines[0], rules().table);
  REQUIRE(header);
  const auto rows =
      docsift::ocr::table_rows(page, 1, page.lines.size(), *header, rules().lexicon, kAll);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].cells.at(Column::kDate) == "14 Mar");
  CHECK(rows[0].cells.at(Column::kDescription) == "Fuel");  // four letters, but no month
  CHECK(rows[0].cells.at(Column::kDebit) == "$45.00");
  CHECK(rows[0].cells.at(Column::kBalance) == "$955.00");
  CHECK(rows[1].cells.at(Column::kDescription) == "Transfer from savings account");
  CHECK(rows[1].cells.at(Column::kCredit) == "$500.00");
  CHECK(rows[1].lines.size() == 2);
  CHECK(rows[2].cells.at(Column::kDescription) == "Coles");
  CHECK(rows[2].cells.at(Column::kDebit) == "$12.50");
  CHECK(rows[2].cells.at(Column::kBalance) == "$1,442.50");

  const auto taxed =
      page_of({{{"Description", 10}, {"Qty", 300}, {"Price", 400}, {"Tax", 500}, {"Amount", 600}},
               {{"Consulting", 10}, {"2", 300}, {"$30.00", 400}, {"10%", 500}, {"$60.00", 600}}});
  const auto columns = docsift::ocr::table_header(taxed.lines[0], rules().table);
  REQUIRE(columns);
  const auto row = docsift::ocr::table_rows(taxed, 1, 2, *columns, rules().lexicon, kAll);
  REQUIRE(row.size() == 1);
  CHECK(row[0].cells.at(Column::kQuantity) == "2");
  CHECK(row[0].cells.at(Column::kUnitPrice) == "$30.00");
  CHECK(row[0].cells.at(Column::kAmount) == "$60.00");
}

TEST_CASE(
    "line items from a table: unit prices as PRICES beside a line total, a statement's "
    "transactions without their dates") {
  const auto invoice =
      page_of({{{"TAX", 10}, {"INVOICE", 60}},
               {{"Description", 10}, {"Qty", 300}, {"Unit", 400}, {"price", 450}, {"Amount", 600}},
               {{"Espresso", 10},
                {"beans", 100},
                {"1", 160},
                {"kg", 180},
                {"4", 300},
                {"$38.50", 400},
                {"$154.00", 600}},
               {{"Milk", 10}, {"jug", 60}, {"2", 300}, {"$24.95", 400}, {"$49.90", 600}},
               {{"Subtotal", 400}, {"$203.90", 600}}});
  const auto e = docsift::ocr::extract_fields(invoice, rules(),
                                              {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"});
  CHECK(e.fields.at("DESCRIPTIONS") == "Espresso beans 1 kg | Milk jug");
  CHECK(e.fields.at("QUANTITIES") == "4 | 2");
  CHECK(e.fields.at("PRICES") == "$38.50 | $24.95");
  CHECK(e.fields.at("SUBTOTAL") == "$203.90");

  const auto statement = page_of(
      {{{"BANK", 10}, {"STATEMENT", 70}},
       {{"Opening", 10}, {"balance:", 90}, {"$1,000.00", 200}},
       {},
       {{"Date", 10}, {"Description", 120}, {"Debit", 450}, {"Credit", 550}, {"Balance", 650}},
       {{"14/03/2025", 10}, {"Fuel", 120}, {"$45.00", 450}, {"$955.00", 650}},
       {{"15/03/2025", 10}, {"Salary", 120}, {"$500.00", 550}, {"$1,455.00", 650}},
       {{"Closing", 10}, {"balance:", 90}, {"$1,455.00", 200}}});
  const auto s = docsift::ocr::extract_fields(
      statement, rules(),
      {"DOCUMENT_TYPE", "DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE", "PRICES"});
  CHECK(s.fields.at("DESCRIPTIONS") == "Fuel | Salary");
  CHECK(s.fields.at("PRICES") == "N/A");   // transactions, not line items
  CHECK(s.checks.at("balance") == "sum");  // 1,000.00 - 45.00 + 500.00 = 1,455.00
}

TEST_CASE(
    "a table's rows checked: quantity x unit price = amount, the amounts summing to the subtotal, "
    "and where it breaks") {
  using docsift::ocr::Evidence;
  using docsift::ocr::LineItem;
  std::vector<LineItem> items{row_of("Espresso beans", "4", "$38.50", "$154.00"),
                              row_of("Milk jug", "2", "$24.95", "$49.90")};
  std::map<std::string, std::string> fields{{"DESCRIPTIONS", "Espresso beans | Milk jug"},
                                            {"QUANTITIES", "4 | 2"},
                                            {"PRICES", "$38.50 | $24.95"},
                                            {"SUBTOTAL", "$203.90"}};
  std::map<std::string, Evidence> evidence{
      {"DESCRIPTIONS", {}}, {"QUANTITIES", {}}, {"PRICES", {}}, {"SUBTOTAL", {}}};
  nlohmann::json checks = nlohmann::json::object();
  docsift::ocr::check_rows(items, fields, evidence, checks);
  CHECK(checks["table"]["products"]["checked"] == 2);
  CHECK(checks["table"]["products"]["off"] == 0);
  CHECK(checks["table"]["against"] == "SUBTOTAL");
  CHECK(checks["table"]["difference"] == "0.00");
  // The printed amounts make the sum, not PRICES (the unit prices) or the quantities.
  CHECK(checks["table"]["made_of"] == nlohmann::json::array());
  for (const char* f : {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"}) {
    CAPTURE(f);
    CHECK(evidence[f].vouched);
    CHECK_FALSE(evidence[f].contradicted);
  }
  docsift::ocr::mark_rows(items, fields, checks);
  for (const LineItem& row : items) {
    CHECK(row.evidence.vouched);
    CHECK_FALSE(row.evidence.contradicted);
  }
  // The products tie the unit prices to the amounts: PRICES is not read again.
  CHECK(docsift::ocr::check_table(items, fields).prices_checked());
  // A receipt's rows the reader found to add up under them to nothing (rows_unchecked) vouch for
  // nothing, though their sum meets the subtotal read.
  std::map<std::string, Evidence> unvouched{
      {"DESCRIPTIONS", {}}, {"QUANTITIES", {}}, {"PRICES", {}}, {"SUBTOTAL", {}}};
  checks = {{"rows_unchecked", true}};
  docsift::ocr::check_rows(items, fields, unvouched, checks);
  CHECK(checks["table"]["difference"] == "0.00");
  for (const char* f : {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"}) {
    CAPTURE(f);
    CHECK_FALSE(unvouched[f].vouched);
  }
  // Nor does their sum agree for any row: each row keeps its own check only.
  docsift::ocr::mark_rows(items, fields, checks);
  for (const LineItem& row : items) {
    CHECK(row.evidence.vouched);
    CHECK_FALSE(row.evidence.sums_agree);
  }
  checks.erase("rows_unchecked");
  docsift::ocr::mark_rows(items, fields, checks);
  for (const LineItem& row : items) CHECK(row.evidence.sums_agree);

  // A misread amount: its row's product is off, and the sum misses the subtotal by the difference.
  items[1].amount = "$44.90";
  std::map<std::string, Evidence> doubted{
      {"DESCRIPTIONS", {}}, {"QUANTITIES", {}}, {"PRICES", {}}, {"SUBTOTAL", {}}};
  checks = nlohmann::json::object();
  docsift::ocr::check_rows(items, fields, doubted, checks);
  CHECK(checks["table"]["products"]["off"] == 1);
  CHECK(checks["table"]["sum"] == "198.90");
  CHECK(checks["table"]["difference"] == "-5.00");
  for (const char* f : {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"}) {
    CAPTURE(f);
    CHECK(doubted[f].contradicted);
  }
  // Per row, the break is where its own product fails: the first row still stands.
  docsift::ocr::mark_rows(items, fields, checks);
  CHECK(items[0].evidence.vouched);
  CHECK_FALSE(items[0].evidence.contradicted);
  CHECK_FALSE(items[1].evidence.vouched);
  CHECK(items[1].evidence.contradicted);
  CHECK_FALSE(docsift::ocr::check_table(items, fields).prices_checked());
}

TEST_CASE("a table's rows priced with the tax in them add up to the total, not the subtotal") {
  using docsift::ocr::Evidence;
  // 015.jpg of the development receipts: SUBTOTAL before GST, the row's amount with it.
  std::vector<docsift::ocr::LineItem> items{
      row_of("SR: HAGER TIMER, 24HRS POWER RESERVE", "3", "82.68", "248.04")};
  std::map<std::string, std::string> fields{
      {"DESCRIPTIONS", "SR: HAGER TIMER, 24HRS POWER RESERVE"},
      {"SUBTOTAL", "234.00"},
      {"GST", "14.04"},
      {"TOTAL", "248.04"}};
  std::map<std::string, Evidence> evidence{
      {"DESCRIPTIONS", {}}, {"SUBTOTAL", {}}, {"GST", {}}, {"TOTAL", {}}};
  nlohmann::json checks = nlohmann::json::object();
  docsift::ocr::check_rows(items, fields, evidence, checks);
  CHECK(checks["table"]["against"] == "TOTAL");
  CHECK(checks["table"]["difference"] == "0.00");
  CHECK(evidence["DESCRIPTIONS"].vouched);
  CHECK(evidence["TOTAL"].vouched);
  CHECK_FALSE(evidence["SUBTOTAL"].contradicted);
  // A row that matches neither stays against the subtotal, and says by how much.
  items[0].amount = "250.00";
  fields["DESCRIPTIONS"] = "SR: HAGER TIMER";
  std::map<std::string, Evidence> doubted{{"DESCRIPTIONS", {}}, {"SUBTOTAL", {}}, {"TOTAL", {}}};
  checks = nlohmann::json::object();
  docsift::ocr::check_rows(items, fields, doubted, checks);
  CHECK(checks["table"]["against"] == "SUBTOTAL");
  CHECK(checks["table"]["difference"] == "16.00");
  CHECK(doubted["DESCRIPTIONS"].contradicted);
  // A receipt's PRICES that are its rows' amounts (find_items.cpp, receipt_items) make the sum.
  fields["PRICES"] = "250.00";
  checks = nlohmann::json::object();
  docsift::ocr::check_rows(items, fields, doubted, checks);
  CHECK(checks["table"]["made_of"] == nlohmann::json::array({"PRICES"}));
  // ... a sum that misses checks none of them (the row's product, 248.04, misses its amount too).
  CHECK_FALSE(docsift::ocr::check_table(items, fields).prices_checked());
  // The amount as printed, and no quantity: the sum that adds up to the total ties PRICES.
  items[0].amount = "248.04", items[0].quantity.reset(), items[0].unit_price.reset();
  fields["PRICES"] = "248.04";
  const docsift::ocr::TableCheck added = docsift::ocr::check_table(items, fields);
  REQUIRE(added.sum);
  CHECK(added.sum->against == "TOTAL");
  CHECK(added.sum->prices);
  CHECK(added.prices_checked());
}

TEST_CASE(
    "a table of quantities and unit prices only: their products sum to the subtotal, or its unit "
    "prices are the lines' amounts") {
  using docsift::ocr::Evidence;
  using docsift::ocr::LineItem;
  // samples/synthetic_invoice_020.png's first rows: "Qty" and "Price", no line amount.
  std::vector<LineItem> items{row_of("Copper fitting", "5", "$158.90", std::nullopt),
                              row_of("Network switch", "2", "$50.21", std::nullopt)};
  std::map<std::string, std::string> fields{{"DESCRIPTIONS", "Copper fitting | Network switch"},
                                            {"QUANTITIES", "5 | 2"},
                                            {"PRICES", "$158.90 | $50.21"},
                                            {"SUBTOTAL", "$894.92"}};
  const auto fresh = [] {
    return std::map<std::string, Evidence>{
        {"DESCRIPTIONS", {}}, {"QUANTITIES", {}}, {"PRICES", {}}, {"SUBTOTAL", {}}};
  };
  auto evidence = fresh();
  nlohmann::json checks = nlohmann::json::object();
  docsift::ocr::check_rows(items, fields, evidence, checks);
  CHECK(checks["table"]["sum"] == "894.92");  // 5 × 158.90 + 2 × 50.21
  CHECK(checks["table"]["difference"] == "0.00");
  // The sum is made of the quantities and unit prices: a sum that misses speaks against them too.
  CHECK(checks["table"]["made_of"] == nlohmann::json::array({"QUANTITIES", "PRICES"}));
  CHECK_FALSE(checks["table"].contains("products"));  // no amount to check a product against
  for (const char* f : {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"}) {
    CAPTURE(f);
    CHECK(evidence[f].vouched);
  }
  // No row has an amount to check itself by: the table's sum is each row's evidence.
  docsift::ocr::mark_rows(items, fields, checks);
  for (const LineItem& row : items) {
    CHECK(row.evidence.sums_agree);
    CHECK_FALSE(row.evidence.vouched);
    CHECK_FALSE(row.evidence.contradicted);
  }

  // A quantity misread: the products miss the subtotal by its difference, and all are doubted.
  items[1].quantity.emplace(1, '3');
  evidence = fresh();
  docsift::ocr::check_rows(items, fields, evidence, checks);
  CHECK(checks["table"]["difference"] == "50.21");
  for (const char* f : {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"}) {
    CAPTURE(f);
    CHECK(evidence[f].contradicted);
  }
  // No row prints an amount to check itself by: the table's break says nothing of which.
  docsift::ocr::mark_rows(items, fields, checks);
  for (const LineItem& row : items) {
    CHECK_FALSE(row.evidence.sums_agree);
    CHECK_FALSE(row.evidence.contradicted);
  }

  // A "Price" column that holds the lines' amounts: they, not the products, make the subtotal.
  fields["SUBTOTAL"] = "$209.11";
  evidence = fresh();
  docsift::ocr::check_rows(items, fields, evidence, checks);
  CHECK(checks["table"]["sum"] == "209.11");
  CHECK(checks["table"]["made_of"] == nlohmann::json::array({"PRICES"}));
  CHECK(evidence["DESCRIPTIONS"].vouched);
  CHECK_FALSE(evidence["QUANTITIES"].vouched);
  // And where no row prints a quantity, the prices are summed as they are.
  for (LineItem& i : items) i.quantity.reset();
  fields.erase("QUANTITIES");
  evidence = fresh();
  docsift::ocr::check_rows(items, fields, evidence, checks);
  CHECK(checks["table"]["sum"] == "209.11");
  CHECK(checks["table"]["difference"] == "0.00");
}

TEST_CASE(
    "a statement's rows checked one by one: each balance is the one before moved by its amount") {
  using docsift::ocr::LineItem;
  std::vector<LineItem> rows(3);
  rows[0].description = "Salary", rows[0].credit = "$1,200.00", rows[0].balance = "$1,700.00";
  rows[1].description = "Rent", rows[1].debit = "$800.00", rows[1].balance = "$900.00";
  rows[2].description = "Groceries", rows[2].amount = "-$45.10", rows[2].balance = "$854.90";
  std::map<std::string, std::string> fields{{"OPENING_BALANCE", "$500.00"},
                                            {"CLOSING_BALANCE", "$854.90"}};
  nlohmann::json checks = {{"balance", "sum"}};
  docsift::ocr::mark_rows(rows, fields, checks);
  for (const LineItem& row : rows) {
    CAPTURE(row.description);
    CHECK(row.evidence.vouched);
    CHECK_FALSE(row.evidence.contradicted);
  }
  // Rent's debit misread: its own balance no longer follows, nor does the statement's sum; the
  // rows whose own balances follow stand.
  rows[1].debit = "$300.00";
  checks = {{"balance", false}};
  docsift::ocr::mark_rows(rows, fields, checks);
  CHECK(rows[0].evidence.vouched);
  CHECK(rows[1].evidence.contradicted);
  CHECK_FALSE(rows[1].evidence.vouched);
  CHECK(rows[2].evidence.vouched);
  // Without an opening balance the first row has nothing to follow; the statement's sum failing
  // does not say which row is wrong.
  fields.erase("OPENING_BALANCE");
  docsift::ocr::mark_rows(rows, fields, checks);
  CHECK_FALSE(rows[0].evidence.vouched);
  CHECK_FALSE(rows[0].evidence.contradicted);
  CHECK_FALSE(rows[0].evidence.sums_agree);
}

TEST_CASE("a row's evidence is the words whose centres lie in its box") {
  // Two words on the row's line (confidences 80 and 40), one on the line under it (99).
  std::vector<Word> words{{"Widget", {10, 100, 70, 120}, 80.0f},
                          {"$5.00", {300, 100, 350, 120}, 40.0f},
                          {"Total", {10, 200, 60, 220}, 99.0f}};
  const docsift::ocr::Page page = docsift::ocr::layout_page(std::move(words), 850, 1100);
  const docsift::ocr::Evidence e = docsift::ocr::row_evidence(page, {0, 95, 400, 125}, "Widget");
  CHECK(e.word_min == doctest::Approx(40));
  CHECK(e.word_mean == doctest::Approx(60));
  CHECK(e.labelled);
  CHECK(e.box.bottom == 125);
  // What the second recognizer reads of the row: the description's word, not its price.
  REQUIRE(e.parts.size() == 1);
  CHECK(e.parts[0].left == 10);
  CHECK(e.parts[0].right == 70);
}

TEST_CASE("a row's description is read again line by line, its words only") {
  // "Coffee beans" over "1kg", a quantity 1 and the price beside the first line: one part per line
  // of the description, the quantity's "1" (not the description's word "1kg") left out.
  std::vector<Word> words{{"Coffee", {10, 100, 70, 120}, 90.0f},
                          {"beans", {80, 100, 130, 120}, 90.0f},
                          {"1", {200, 100, 210, 120}, 90.0f},
                          {"$5.00", {300, 100, 350, 120}, 90.0f},
                          {"1kg", {10, 130, 40, 150}, 90.0f}};
  const docsift::ocr::Page page = docsift::ocr::layout_page(std::move(words), 850, 1100);
  const docsift::ocr::Evidence e =
      docsift::ocr::row_evidence(page, {0, 95, 400, 155}, "Coffee beans 1kg");
  REQUIRE(e.parts.size() == 2);
  CHECK(e.parts[0].left == 10);
  CHECK(e.parts[0].right == 130);
  CHECK(e.parts[1].top == 130);
  CHECK(e.parts[1].right == 40);
}
