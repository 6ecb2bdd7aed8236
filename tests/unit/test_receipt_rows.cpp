// A receipt's items read without a column heading (lib/docsift/ocr/table_receipt.h; docs/ocr.md,
// "Line items"): a name over its figures, quantity × unit price, the summary that ends the items,
// lines in the block that are no item, and a block that nothing printed vouches for.
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/findings.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/table_receipt.h"
#include "support/word_pages.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::Word;

const auto receipt = docsift::testing::till_receipt;

constexpr auto kAll = docsift::testing::every_word;

// A seller's head, the items, then the summary: Mr D.I.Y.'s and Super Seven's layouts, a name on
// its own line over its figures, and one with name and figures on a line.
std::vector<std::vector<std::string>> head() {
  return {{"KEDAI", "BUKU", "SDN", "BHD"},
          {"NO", "8,", "JALAN", "7/118B"},
          {"Tel", ":", "03-42601064"},
          {"28-12-17", "18:52", "Cashier", ":", "ANN"}};
}

}  // namespace

TEST_CASE("a receipt's items without a heading are its lines that end in an amount") {
  auto lines = head();
  lines.push_back({"KF", "MODELLING", "CLAY"});
  lines.push_back({"9555916500133", "1", "X", "6.00", "6.00", "SR"});
  lines.push_back({"PADLOCK", "ST-P6150", "50MM"});
  lines.push_back({"0202", "-", "12/48"});  // a shelf's line between a name and its figures
  lines.push_back({"6942131561507", "2X", "4.95", "9,90", "SR"});
  lines.push_back({"PB", "D/S", "Tape", "12mm", "@", "2.50", "1.00PCS", "2.50", "T"});
  lines.push_back({"Total", "Incl.", "GST@6%", "RM", "18.40"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  REQUIRE(rows->items.size() == 3);
  CHECK(rows->items[0].description == "KF MODELLING CLAY");
  CHECK(rows->items[0].quantity == "1");
  CHECK(rows->items[0].unit_price == "6.00");
  CHECK(rows->items[0].amount == "6.00");
  CHECK(rows->items[1].description == "PADLOCK ST-P6150 50MM");
  CHECK(rows->items[1].quantity == "2");
  CHECK(rows->items[1].unit_price == "4.95");
  CHECK(rows->items[1].amount == "9.90");
  CHECK(rows->items[2].description == "PB D/S Tape 12mm");
  CHECK(rows->items[2].quantity == "1.00");
  CHECK(rows->items[2].unit_price == "2.50");
  CHECK(rows->items[2].amount == "2.50");
}

TEST_CASE(
    "the summary ends a receipt's items: its tax, payment and tax summary lines are no rows") {
  auto lines = head();
  lines.push_back({"2", "VM", "McChicken", "15.90"});
  lines.push_back({"2", "M", "Coke"});  // a set meal's part: no figure, no row
  lines.push_back({"1", "ChocTop", "1.90"});
  lines.push_back({"Sub-total", "17.80"});
  lines.push_back({"GST", "6%", "1.07"});
  lines.push_back({"Total", "18.87"});
  lines.push_back({"CASH", "20.00"});
  lines.push_back({"CHANGE", "1.13"});
  lines.push_back({"SR", "6", "17.80", "1.07"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  REQUIRE(rows->items.size() == 2);
  CHECK(rows->items[0].description == "VM McChicken");
  CHECK(rows->items[0].quantity == "2");
  CHECK_FALSE(rows->items[0].unit_price);
  CHECK(rows->items[0].amount == "15.90");
  CHECK(rows->items[1].description == "ChocTop");
  CHECK(rows->items[1].amount == "1.90");
}

TEST_CASE("a discount line among a receipt's items is no row, and the items still add up") {
  auto lines = head();
  lines.push_back({"Teh", "(B)"});
  lines.push_back({"1x", "2.10", "2,10", "ZRL"});
  lines.push_back({"Item", "Discount", "0.00"});
  lines.push_back({"Take", "Away"});
  lines.push_back({"4", "x", "0,20", "0.80", "ZRL"});
  lines.push_back({"Total", "Qty:", "5"});
  lines.push_back({"TOTAL:", "2.90"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  REQUIRE(rows->items.size() == 2);
  CHECK(rows->items[0].description == "Teh (B)");
  CHECK(rows->items[0].amount == "2.10");
  CHECK(rows->items[1].description == "Take Away");
  CHECK(rows->items[1].quantity == "4");
  CHECK(rows->items[1].unit_price == "0.20");
  CHECK(rows->items[1].amount == "0.80");
}

TEST_CASE(
    "lines that end in amounts are rows the sums do not vouch for where nothing printed does") {
  auto lines = head();
  // Two amounts that add up to no figure under them, and no quantity times a price: a figure
  // misread. The rows are read, and `sums` says nothing vouches for them (their lists queue).
  lines.push_back({"TOWEL", "ROD", "BRACKET", "12.00"});
  lines.push_back({"WALL", "PLUG", "3.40", "3.50"});
  lines.push_back({"Total", "277.90"});
  lines.push_back({"CASH", "300.00"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK_FALSE(rows->sums);
  REQUIRE(rows->items.size() == 2);
  CHECK(rows->items[0].description == "TOWEL ROD BRACKET");
  CHECK(rows->items[1].amount == "3.50");
  CHECK(docsift::ocr::checked_rows(rows->items) == 0);
  CHECK_FALSE(docsift::ocr::receipt_rows(receipt(lines), kAll, true));  // none vouches for itself
  // Nor without a summary line at all.
  auto open = head();
  open.push_back({"TOWEL", "ROD", "BRACKET", "12.00"});
  open.push_back({"SCREW", "12.00"});
  CHECK_FALSE(docsift::ocr::receipt_rows(receipt(open), kAll));
  // A tax summary's row under the first sum printed is no item, though its figures add up.
  auto summary = head();
  summary.push_back({"Total", "Sales", ":", "8.90"});
  summary.push_back({"Tax", "Code", "%", "Amt(RM)", "Tax(RM)"});
  summary.push_back({"SR", "6", "8.90", "0.53"});
  summary.push_back({"Total:", "8.90", "0.53"});
  CHECK_FALSE(docsift::ocr::receipt_rows(receipt(summary), kAll));
}

TEST_CASE("a receipt without a heading gives its items to DESCRIPTIONS, QUANTITIES and PRICES") {
  auto lines = head();
  lines.push_back({"KF", "MODELLING", "CLAY"});
  lines.push_back({"9555916500133", "2", "X", "6.00", "12.00", "SR"});
  lines.push_back({"Total", "Incl.", "GST@6%", "RM", "12.00"});
  const auto e = docsift::ocr::extract_fields(receipt(lines), docsift::testing::shipped_rules(),
                                              {"DESCRIPTIONS", "QUANTITIES", "PRICES", "TOTAL"});
  REQUIRE(e.items.size() == 1);
  CHECK(e.fields.at("DESCRIPTIONS") == "KF MODELLING CLAY");
  CHECK(e.fields.at("QUANTITIES") == "2");
  CHECK(e.fields.at("PRICES") == "6.00");
  CHECK(e.items[0].amount == "12.00");
}

TEST_CASE(
    "where a receipt's rows do not add up, every row stays and those that check are counted") {
  auto lines = head();
  lines.push_back({"DOUBLE", "EXT", "BOX"});
  lines.push_back({"9553114461423", "1X", "25.90", "25.90"});
  lines.push_back({"SPONGE", "MESH"});
  lines.push_back({"6928794601200", "1X", "2,30", "25.30"});  // 2.30 misread: checks nothing
  lines.push_back({"PLASTIC", "BAGS"});
  lines.push_back({"99999", "1X", "0.20", "0.20"});
  lines.push_back({"Total", "Incl.", "GST@6%", "RM", "28.40"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK_FALSE(rows->sums);
  REQUIRE(rows->items.size() == 3);
  CHECK(rows->items[0].description == "DOUBLE EXT BOX");
  CHECK(rows->items[0].amount == "25.90");
  CHECK(rows->items[1].description == "SPONGE MESH");
  CHECK(rows->items[1].amount == "25.30");  // misread, kept: its own figures contradict it
  CHECK(rows->items[2].description == "PLASTIC BAGS");
  CHECK(rows->items[2].unit_price == "0.20");
  CHECK(docsift::ocr::checked_rows(rows->items) == 2);
  CHECK(rows->lines.size() == 6);  // every row's lines are the lists' evidence
  // What may replace a heading's rows: those that vouch for themselves alone.
  const auto vouched = docsift::ocr::receipt_rows(receipt(lines), kAll, true);
  REQUIRE(vouched);
  REQUIRE(vouched->items.size() == 2);
  CHECK(vouched->items[1].description == "PLASTIC BAGS");
  CHECK(vouched->lines.size() == 4);
  // Their lists are given, contradicted, and the record says why (the review queue's "rows
  // disagree"); rows that add up say nothing of the kind.
  const std::vector<std::string> lists{"DESCRIPTIONS", "QUANTITIES", "PRICES", "TOTAL"};
  const auto rules = docsift::testing::shipped_rules();
  const auto e = docsift::ocr::extract_fields(receipt(lines), rules, lists);
  CHECK(e.items.size() == 3);
  CHECK(e.fields.at("DESCRIPTIONS") == "DOUBLE EXT BOX | SPONGE MESH | PLASTIC BAGS");
  CHECK(e.evidence.at("DESCRIPTIONS").contradicted);
  CHECK(e.evidence.at("PRICES").contradicted);
  CHECK(e.checks.value("rows_unchecked", false));
  lines[7] = {"6928794601200", "1X", "2.30", "2.30"};
  const auto summed = docsift::ocr::extract_fields(receipt(lines), rules, lists);
  CHECK(summed.items.size() == 3);
  CHECK_FALSE(summed.evidence.at("DESCRIPTIONS").contradicted);
  CHECK_FALSE(summed.checks.contains("rows_unchecked"));
}

TEST_CASE("a quantity and its unit price read as one word, either way round, are read apart") {
  auto lines = head();
  lines.push_back({"OPEN", "CODE", "ITEM"});
  lines.push_back({"0025679", "U", "2x11.80", "23.60", "§"});  // a mark after the amount
  lines.push_back({"Coca-Cola", "320ml"});
  lines.push_back({"9555589200385", "1.40*1", "1.40"});
  lines.push_back({"Whole", "Chicken"});
  lines.push_back({"2006031014359", "10.99*1.306", "14.35"});
  lines.push_back({"Total", "39.35"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  REQUIRE(rows->items.size() == 3);
  CHECK(rows->items[0].description == "OPEN CODE ITEM");
  CHECK(rows->items[0].quantity == "2");
  CHECK(rows->items[0].unit_price == "11.80");
  CHECK(rows->items[1].quantity == "1");
  CHECK(rows->items[1].unit_price == "1.40");
  CHECK(rows->items[2].description == "Whole Chicken");
  CHECK(rows->items[2].quantity == "1.306");
  CHECK(rows->items[2].unit_price == "10.99");
  CHECK(rows->items[2].amount == "14.35");
}

TEST_CASE("an amount read as two words at its point, or without its point, is read whole") {
  auto lines = head();
  lines.push_back({"Guiness", "Stout", "(B)"});
  lines.push_back({"4", "x", "15.", "40", "61.60", "SR"});
  lines.push_back({"GLOVE", "1200"});
  lines.push_back({"1432", "6", "2.12", "1272", "SR"});  // 6 x 2.12 gives the point back
  lines.push_back({"TOTAL:", "74.32"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  REQUIRE(rows->items.size() == 2);
  CHECK(rows->items[0].description == "Guiness Stout (B)");
  CHECK(rows->items[0].unit_price == "15.40");
  CHECK(rows->items[1].description == "GLOVE 1200");
  CHECK(rows->items[1].quantity == "6");
  CHECK(rows->items[1].unit_price == "2.12");
  CHECK(rows->items[1].amount == "12.72");
  // A number that nothing on its line gives a point stays no amount.
  auto code = head();
  code.push_back({"GLOVE", "1200"});
  code.push_back({"1432", "6", "2.12", "1273"});
  code.push_back({"TOTAL:", "12.72"});
  CHECK_FALSE(docsift::ocr::receipt_rows(receipt(code), kAll));
}

TEST_CASE(
    "names under their items are read across a rule's mark, and promotions come off the sum") {
  auto lines = head();
  lines.push_back({"1x", "000008204363", "14,99SR"});
  lines.push_back({"KIT", "KAT", "SHARE", "B"});
  lines.push_back({"Item", "promo", "@9,99", "-5,00"});
  lines.push_back({"1x", "000001018506", "21,10SR"});
  lines.push_back({"."});
  lines.push_back({"BERYLS", "TTOW"});
  lines.push_back({"1x", "000001057437", "18,", "295R"});  // "18.29 SR" read in two words
  lines.push_back({"VH", "BOX", "180G"});
  lines.push_back({"Sub-total", "49.38"});  // 54.38 less the promotion's 5.00
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  REQUIRE(rows->items.size() == 3);
  CHECK(rows->items[0].description == "KIT KAT SHARE B");
  CHECK(rows->items[0].amount == "14.99");
  CHECK(rows->items[1].description == "BERYLS TTOW");
  CHECK(rows->items[1].amount == "21.10");
  CHECK(rows->items[2].description == "VH BOX 180G");
  CHECK(rows->items[2].amount == "18.29");
}

TEST_CASE("an item's quantity and unit price printed on the line under its name and amount") {
  auto lines = head();
  lines.push_back({"620", "CARNATION", "SUSU", "KRIMER", "RH7,50", "z"});  // "RM" read "RH"
  lines.push_back({"03", "X", "RM", "2.50"});
  lines.push_back({"8402", "GULA", "PASIR", "1K", "=", "RN23.60", "z"});
  lines.push_back({"@8", "X", "RM", "2.95"});
  lines.push_back({"Total", "Sales", "RM", "31.10"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  REQUIRE(rows->items.size() == 2);
  CHECK(rows->items[0].description == "620 CARNATION SUSU KRIMER");
  CHECK(rows->items[0].quantity == "03");
  CHECK(rows->items[0].unit_price == "2.50");
  CHECK(rows->items[0].amount == "7.50");
  CHECK(rows->items[1].description == "8402 GULA PASIR 1K");
  CHECK(rows->items[1].quantity == "8");
  CHECK(rows->items[1].unit_price == "2.95");
  CHECK(rows->items[1].amount == "23.60");
}

TEST_CASE(
    "a heading's rows give way to a receipt's rows that check, and a row with no figure goes") {
  auto lines = head();
  lines.push_back({"Description", "Qty", "Price", "Amount"});
  lines.push_back({"HEINEKEN", "(5", "BTL)"});
  lines.push_back({"2x", "95.00", "190.00", "SR"});
  lines.push_back({"Total", "Incl.", "GST", "RM", "199.00"});  // 190.00 misread: nothing adds up
  const auto e = docsift::ocr::extract_fields(receipt(lines), docsift::testing::shipped_rules(),
                                              {"DESCRIPTIONS", "QUANTITIES", "PRICES", "TOTAL"});
  REQUIRE(e.items.size() == 1);
  CHECK(e.items[0].description == "HEINEKEN (5 BTL)");
  CHECK(e.items[0].quantity == "2");
  CHECK(e.items[0].unit_price == "95.00");
  CHECK(e.items[0].amount == "190.00");
  CHECK(e.fields.at("DESCRIPTIONS") == "HEINEKEN (5 BTL)");
}

TEST_CASE("figures in other orders: price times quantity, a unit, a code, a mark, four places") {
  auto lines = head();
  lines.push_back({"Plastic", "spoons", "8pcs"});
  lines.push_back({"5.90", "x", "3", "17.70", "SR"});  // the price first, the times sign apart
  lines.push_back({"FLOWER", "BUNCH", "-", "ROSE"});
  lines.push_back({"122", "pcs", "@", "18.90", "2,305.80", "SR"});  // a unit after the quantity
  lines.push_back({"UNICORN", "GLUE", "STICK"});
  lines.push_back({"2", "27755", "5.80", "11.60"});  // an item's code between quantity and price
  lines.push_back({"ORDER", "CHIT", "NCR"});
  lines.push_back(
      {"3", "X", "2.9000", ":", "8.70", "SR"});  // four places, a mark before the amount
  lines.push_back({"Total", "RM", "2,343.80"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  CHECK_FALSE(rows->unplaced);
  REQUIRE(rows->items.size() == 4);
  const std::vector<std::pair<std::string, std::string>> figures = {
      {"3", "5.90"}, {"122", "18.90"}, {"2", "5.80"}, {"3", "2.90"}};
  for (std::size_t i = 0; i < figures.size(); ++i) {
    CAPTURE(i);
    CHECK(rows->items[i].quantity == figures[i].first);
    CHECK(rows->items[i].unit_price == figures[i].second);
  }
  CHECK(rows->items[3].description == "ORDER CHIT NCR");
}

TEST_CASE("lists the rows show misread are doubted: PRICES that are amounts, figures in a name") {
  using docsift::ocr::detail::doubted;
  docsift::ocr::detail::Rows rows;
  docsift::ocr::LineItem item;
  // (Whole strings, not literals, into the optionals: GCC 12 warns, wrongly, of an overflow.)
  item.description = "Plastic spoons 8pcs", item.quantity = std::string("3");
  item.amount = std::string("17.70");
  rows.items = {item};
  rows.lists = {{"DESCRIPTIONS", item.description}, {"PRICES", "17.70"}};
  CHECK_FALSE(doubted(rows, "PRICES"));  // a heading's amount column: its own column says so
  rows.columned = false;                 // the receipt reader's rows
  CHECK(doubted(rows, "PRICES"));        // three at 17.70 each is not 17.70
  CHECK_FALSE(doubted(rows, "DESCRIPTIONS"));
  rows.items[0].quantity = "1.00";
  CHECK_FALSE(doubted(rows, "PRICES"));
  rows.unplaced = true;  // its line printed another figure ("5.90 ~ 3 17.70")
  CHECK(doubted(rows, "PRICES"));
  rows.items[0].unit_price = "5.90", rows.lists["PRICES"] = "5.90";  // PRICES of unit prices
  CHECK_FALSE(doubted(rows, "PRICES"));
  rows.items[0].description = "2 Meat 2 Vege $8.70 1";  // the row's figures read into its name
  CHECK(doubted(rows, "DESCRIPTIONS"));
  rows.transactions = true;  // a statement's rows: their balances check them
  CHECK_FALSE(doubted(rows, "DESCRIPTIONS"));
  // A receipt's one figure a line is its price: nothing speaks against it.
  auto lines = head();
  lines.push_back({"Plastic", "spoons", "8pcs"});
  lines.push_back({"17.70", "SR"});
  lines.push_back({"Total", "RM", "17.70"});
  const auto e = docsift::ocr::extract_fields(receipt(lines), docsift::testing::shipped_rules(),
                                              {"DESCRIPTIONS", "PRICES", "TOTAL"});
  REQUIRE(e.items.size() == 1);
  CHECK(e.fields.at("PRICES") == "17.70");
  CHECK_FALSE(e.evidence.at("PRICES").contradicted);
  CHECK_FALSE(e.evidence.at("DESCRIPTIONS").contradicted);
}

TEST_CASE("a heading's row named as a receipt's summary contradicts every list of the rows") {
  auto lines = head();
  lines.push_back({"DESCRIPTION", "AMOUNT"});
  lines.push_back({"MAKANAN", "2.30"});
  lines.push_back({"MINUMAN", "1.40"});
  // The sum misread, so no receipt rows that add up take the heading's place.
  lines.push_back({"Sub", "Total", "Incl.", "GST", "RM", "3.79"});
  lines.push_back({"Round", "Adjustmt", "RM", "0.00"});
  lines.push_back({"Total", "RM", "3.79"});
  const auto e = docsift::ocr::extract_fields(receipt(lines), docsift::testing::shipped_rules(),
                                              {"DESCRIPTIONS", "PRICES", "TOTAL"});
  CHECK(e.fields.at("DESCRIPTIONS") == "MAKANAN | MINUMAN | Sub Total Incl. GST | Round Adjustmt");
  CHECK(e.evidence.at("DESCRIPTIONS").contradicted);
  CHECK(e.evidence.at("PRICES").contradicted);
}

TEST_CASE("a quantity and unit price with OCR's specks between them are placed where they check") {
  auto lines = head();
  // Gardenia's "WHOLEMEAL 2.78 @ 3 8.34" as Tesseract reads it: a colon on the price, a speck
  // read as 3.8 and the quantity after the at sign, four words from the price.
  lines.push_back({"WHOLEMEAL", "2.78:", "3.8", "@", "3", "8.34"});
  lines.push_back({"ORDER", "CHIT", "NCR"});
  lines.push_back({"3", "X", "2.9000", "So", "8.70", "SR"});  // a speck read as a word
  // No pair checks: 7 x 1.10 is not 2.70, so no quantity and no unit price.
  lines.push_back({"KOPI", "O", "7", "1.10", "2.70"});
  lines.push_back({"Total", "RM", "19.74"});
  const auto rows = docsift::ocr::receipt_rows(receipt(lines), kAll);
  REQUIRE(rows);
  CHECK(rows->sums);
  REQUIRE(rows->items.size() == 3);
  CHECK(rows->items[0].description == "WHOLEMEAL");
  CHECK(rows->items[0].quantity == "3");
  CHECK(rows->items[0].unit_price == "2.78");
  CHECK(rows->items[1].description == "ORDER CHIT NCR");
  CHECK(rows->items[1].quantity == "3");
  CHECK(rows->items[1].unit_price == "2.90");
  CHECK(rows->items[2].description == "KOPI O 7");  // an unchecked price is no name
  CHECK_FALSE(rows->items[2].quantity);
  CHECK_FALSE(rows->items[2].unit_price);
}
