// Tables in the layouts bench/rows/make_tables.py generates (bench/rows/GENERATED.md): rows
// spaced apart into blocks of their own, descriptions wrapped with the figures on a row's last
// line, labels that begin a description, a statement's opening and closing balances as rows,
// signed amounts and CR/DR balances, a sign the running balance puts right, a store's number
// ending a description, marks OCR reads from a ruled header, a table continued on a page without
// its header, a balance check to the cent, and a ruled table's lines whitened before reading.
#include <map>
#include <opencv2/imgproc.hpp>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "docsift/ocr/engine.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/page_image.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/table.h"
#include "support/word_pages.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::Column;
using docsift::ocr::Word;

using docsift::testing::page_at;
using docsift::testing::Placed;

const docsift::ocr::Rules& rules() { return docsift::testing::shipped_rules(); }

constexpr auto kAll = docsift::testing::every_word;

std::vector<docsift::ocr::TableRow> rows_under(const docsift::ocr::Page& page) {
  const auto header = docsift::ocr::table_header(page.lines[0], rules().table);
  REQUIRE(header);
  return docsift::ocr::table_rows(page, 1, page.lines.size(), *header, rules().lexicon, kAll);
}

}  // namespace

TEST_CASE(
    "a table's rows spaced apart, each a block of its own, are its rows to the summary, and a page "
    "number under it is not") {
  const auto page = page_at(
      {{0, {{"Description", 10}, {"Qty", 500}, {"Amount", 640}}},
       {50, {{"Toner", 10}, {"cartridge,", 70}, {"black", 180}, {"2", 520}, {"$90.00", 640}}},
       {75, {{"high", 10}, {"yield", 60}}},  // wrapped
       {125, {{"Copper", 10}, {"fittings", 80}, {"1", 520}, {"$12.50", 640}}},
       {175, {{"Whiteboard", 10}, {"3", 520}, {"$45.00", 640}}},
       {225, {{"Page", 500}, {"1", 550}, {"of", 580}, {"2", 630}}}});
  REQUIRE(page.lines.size() == 6);
  CHECK(page.lines[3].block != page.lines[1].block);  // Tesseract-like blocks: rows apart
  const auto e = docsift::ocr::extract_fields(page, rules(), {"DESCRIPTIONS", "QUANTITIES"});
  CHECK(e.fields.at("DESCRIPTIONS") ==
        "Toner cartridge, black high yield | Copper fittings | Whiteboard");
  CHECK(e.fields.at("QUANTITIES") == "2 | 1 | 3");
  REQUIRE(e.items.size() == 3);
  CHECK(e.items[2].amount == "$45.00");
}

TEST_CASE(
    "wrapped descriptions with the figures on the row's last line: the words above them begin "
    "the row") {
  const auto page = page_at(
      {{0, {{"Description", 10}, {"Qty", 500}, {"Price", 640}}},
       {40, {{"Labour:", 10}, {"installation", 90}, {"of", 220}, {"split", 250}}},
       {65, {{"system", 10}, {"air", 80}, {"conditioner", 120}, {"9", 520}, {"$164.66", 640}}},
       {100, {{"Heavy", 10}, {"duty", 70}, {"outdoor", 120}}},
       {125, {{"leads,", 10}, {"ten", 80}, {"metres", 120}, {"4", 520}, {"$415.63", 640}}}});
  const auto rows = rows_under(page);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].cells.at(Column::kDescription) ==
        "Labour: installation of split system air conditioner");
  CHECK(rows[0].cells.at(Column::kQuantity) == "9");
  CHECK(rows[1].cells.at(Column::kDescription) == "Heavy duty outdoor leads, ten metres");
  CHECK(rows[1].cells.at(Column::kUnitPrice) == "$415.63");
}

TEST_CASE(
    "a label that begins a description is a row, a summary's label ends the table, and a number "
    "ending a description in a table without unit prices is no quantity") {
  const auto page = page_at(
      {{0, {{"Description", 10}, {"Amount", 640}}},
       {30, {{"Tax", 10}, {"return", 50}, {"preparation", 120}, {"$1,647.19", 640}}},
       {60, {{"Support", 10}, {"hours", 90}, {"block", 150}, {"10", 210}, {"$825.00", 640}}},
       {90, {{"Subtotal", 400}, {"$2,472.19", 640}}},
       {120, {{"Freight", 10}, {"$15.00", 640}}}});
  const auto e = docsift::ocr::extract_fields(page, rules(),
                                              {"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"});
  CHECK(e.fields.at("DESCRIPTIONS") == "Tax return preparation | Support hours block 10");
  CHECK(e.fields.at("QUANTITIES") == "N/A");
  CHECK(e.fields.at("PRICES") == "$1,647.19 | $825.00");  // the amounts: no unit price printed
}

TEST_CASE(
    "a statement's balances as rows, a label after a date, signed amounts, a sign its running "
    "balance puts right, a store's number, and the balance check to the cent") {
  const auto statement = [&](const std::string& closing) {
    return page_at(
        {{0, {{"BANK", 10}, {"STATEMENT", 70}}},
         {40, {{"Date", 10}, {"Description", 150}, {"Amount", 520}, {"Balance", 650}}},
         {70, {{"01/07", 10}, {"Opening", 150}, {"balance", 230}, {"$1,000.00", 650}}},
         {100,
          {{"03/07", 10},
           {"EFTPOS", 300},
           {"Coles", 370},
           {"0862", 430},
           {"(45.00)", 520},
           {"$955.00", 650}}},
         {130,
          {{"05/07", 10}, {"Interest", 150}, {"credit", 240}, {"1.18-", 530}, {"$956.18", 650}}},
         {160, {{"28/07", 10}, {"Closing", 150}, {"balance", 230}, {closing, 650}}}});
  };
  const std::vector<std::string> fields{"DOCUMENT_TYPE", "DESCRIPTIONS", "OPENING_BALANCE",
                                        "CLOSING_BALANCE", "PRICES"};
  auto e = docsift::ocr::extract_fields(statement("$956.18"), rules(), fields);
  // The balances' rows are no transactions; "EFTPOS" after the date is no card payment's label.
  CHECK(e.fields.at("DESCRIPTIONS") == "EFTPOS Coles 0862 | Interest credit");
  CHECK(e.fields.at("OPENING_BALANCE") == "$1,000.00");
  CHECK(e.fields.at("CLOSING_BALANCE") == "$956.18");
  REQUIRE(e.items.size() == 2);
  CHECK(e.items[0].amount == "-$45.00");  // "(45.00)", in the page's currency
  CHECK(e.items[0].date == "03/07");
  // "1.18-" read with a minus the balance says is not there: $955.00 + 1.18 = $956.18.
  CHECK(e.items[1].amount == "$1.18");
  CHECK(e.checks.at("balance") == "sum");
  // A closing balance a cent off does not add up: statements are never rounded.
  e = docsift::ocr::extract_fields(statement("$956.19"), rules(), fields);
  CHECK(e.checks.at("balance") == false);
}

TEST_CASE(
    "debit, credit and balance columns: German headers, CR and DR balances, a negative closing "
    "balance") {
  const auto page =
      page_at({{0, {{"Kontoauszug", 10}}},
               {40, {{"Anfangssaldo:", 10}, {"$50.00", 160}}},
               {80,
                {{"Datum", 10},
                 {"Buchungstext", 120},
                 {"Belastung", 400},
                 {"Gutschrift", 520},
                 {"Saldo", 660}}},
               {110,
                {{"04/01", 10},
                 {"Rent", 120},
                 {"payment", 170},
                 {"95.10", 410},
                 {"45.10", 650},
                 {"DR", 710}}},
               {140, {{"06/01", 10}, {"Refund", 120}, {"20.00", 540}, {"25.10", 650}, {"DR", 710}}},
               {180, {{"Endsaldo:", 10}, {"-$25.10", 120}}}});
  const auto e = docsift::ocr::extract_fields(
      page, rules(), {"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"});
  REQUIRE(e.items.size() == 2);
  CHECK(e.items[0].debit == "$95.10");
  CHECK(e.items[0].balance == "-$45.10");
  CHECK(e.items[1].credit == "$20.00");
  CHECK(e.items[1].balance == "-$25.10");
  CHECK(e.fields.at("CLOSING_BALANCE") == "-$25.10");
  CHECK(e.checks.at("balance") == "sum");  // 50.00 - 95.10 + 20.00 = -25.10
}

TEST_CASE(
    "a ruled header: marks OCR reads from its lines, a word joined to the next by a rule, a "
    "word read without its accent, a phrase read as one word") {
  const auto page = page_at(
      {{0, {{"[Details", 10}, {"Units", 300}, {"_—Price__Line", 400}, {"total]", 540}}},
       {30, {{"Date", 10}, {"Operation", 120}, {"Debit", 400}, {"Crédit", 520}, {"Solde", 640}}},
       {60, {{"‘Désignation", 10}, {"Quantité", 300}, {"Prixunitaire", 400}, {"Montant", 560}}}});
  const auto first = docsift::ocr::table_header(page.lines[0], rules().table);
  REQUIRE(first);
  REQUIRE(first->size() == 4);
  CHECK((*first)[2].kind == Column::kUnitPrice);
  CHECK((*first)[3].kind == Column::kAmount);
  const auto second = docsift::ocr::table_header(page.lines[1], rules().table);
  REQUIRE(second);
  CHECK((*second)[1].kind == Column::kDescription);  // "Operation" for "Opération"
  CHECK((*second)[4].kind == Column::kBalance);
  const auto third = docsift::ocr::table_header(page.lines[2], rules().table);
  REQUIRE(third);
  REQUIRE(third->size() == 4);
  CHECK((*third)[0].kind == Column::kDescription);  // a quote read before it
  CHECK((*third)[2].kind == Column::kUnitPrice);    // "prix unitaire"
}

TEST_CASE(
    "a table continued on a page without its header: rows that check themselves, a quantity "
    "read with little confidence") {
  const auto page = page_at(
      {{0, {{"Kookaburra", 10}, {"Cafe", 120}, {"-", 170}, {"TAX", 190}, {"INVOICE", 230}}},
       {30, {{"Page", 10}, {"2", 60}, {"of", 80}, {"2", 110}}},
       {70, {{"Filing", 10}, {"cabinet", 80}, {"8", 400}, {"$47.09", 500}, {"$376.72", 640}}},
       {100, {{"Network", 10}, {"switch", 90}, {"9", 400}, {"$256.24", 490}, {"$2,306.16", 620}}},
       {140, {{"Total", 10}, {"(ex", 70}, {"GST)", 110}, {"$2,682.88", 620}}}});
  const auto table = docsift::ocr::headless_table(page, rules().lexicon, kAll);
  REQUIRE(table);
  CHECK(table->first == 2);
  CHECK(table->end == 4);
  const auto e =
      docsift::ocr::extract_fields(page, rules(), {"DESCRIPTIONS", "QUANTITIES", "PRICES"});
  CHECK(e.fields.at("DESCRIPTIONS") == "Filing cabinet | Network switch");
  CHECK(e.fields.at("QUANTITIES") == "8 | 9");
  CHECK(e.fields.at("PRICES") == "$47.09 | $256.24");
  // Lines whose figures do not check themselves (8 x $47.09 is not $376.00) are not read.
  const auto loose = page_at(
      {{70, {{"Filing", 10}, {"cabinet", 80}, {"8", 400}, {"$47.09", 500}, {"$376.00", 640}}},
       {100, {{"Network", 10}, {"switch", 90}, {"9", 400}, {"$256.24", 490}, {"$2,306.16", 620}}}});
  CHECK_FALSE(docsift::ocr::headless_table(loose, rules().lexicon, kAll));
  // A quantity read with little confidence stands as tall as the row's letters: no speck.
  const auto faint = page_at({{0, {{"Description", 10}, {"Qty", 400}, {"Price", 500}}},
                              {30, {{"Stapler", 10}, {"3", 410}, {"$12.50", 500}}}},
                             40.0f);
  const auto speck = [](const Word& w) { return w.confidence >= 50.0f || w.text.size() > 3; };
  const auto header = docsift::ocr::table_header(faint.lines[0], rules().table);
  REQUIRE(header);
  const auto rows = docsift::ocr::table_rows(faint, 1, 2, *header, rules().lexicon, speck);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].cells.at(Column::kQuantity) == "3");
}

TEST_CASE(
    "a ruled table's lines are whitened before reading, and a page's edges and rules one way are "
    "not") {
  cv::Mat grid(600, 800, CV_8U, cv::Scalar(255));
  for (const int x : {100, 400, 700}) cv::line(grid, {x, 100}, {x, 500}, cv::Scalar(0), 2);
  for (const int y : {100, 140, 500}) cv::line(grid, {100, y}, {700, y}, cv::Scalar(0), 2);
  cv::rectangle(grid, cv::Rect(150, 200, 12, 20), cv::Scalar(0), cv::FILLED);  // a letter's ink
  const cv::Mat clean = docsift::ocr::without_rules(grid);
  CHECK(clean.at<std::uint8_t>(300, 400) == 255);  // the rule down
  CHECK(clean.at<std::uint8_t>(140, 300) == 255);  // the rule across
  CHECK(clean.at<std::uint8_t>(210, 155) == 0);    // the letter stays
  // Rules across alone (a receipt's dashes, an underline), or down only at the edges (a scan's
  // border): the page is read as it is.
  cv::Mat edges(600, 800, CV_8U, cv::Scalar(255));
  cv::line(edges, {2, 0}, {2, 599}, cv::Scalar(0), 2);
  cv::line(edges, {797, 0}, {797, 599}, cv::Scalar(0), 2);
  for (const int y : {100, 300}) cv::line(edges, {100, y}, {700, y}, cv::Scalar(0), 2);
  CHECK(cv::countNonZero(docsift::ocr::without_rules(edges) != edges) == 0);
}

TEST_CASE("the balance check follows the reading the rows were taken from") {
  using docsift::ocr::Engine;
  Engine::Result first, second;
  first.fields = {{"DESCRIPTIONS", "Rent"}};
  first.confidence = {{"DESCRIPTIONS", 40}};
  first.info = {{"checks", {{"balance", false}}}};
  second.fields = {{"DESCRIPTIONS", "Rent payment"}};
  second.confidence = {{"DESCRIPTIONS", 90}};
  second.info = {{"checks", {{"balance", "sum"}}}};
  Engine::Result merged = first;
  docsift::ocr::take_second_reading(merged, second, false);
  CHECK(merged.fields["DESCRIPTIONS"] == "Rent payment");
  CHECK(merged.info["checks"]["balance"] == "sum");
}

TEST_CASE(
    "the rules' opening is cv::morphologyEx's with a line of ones, byte for byte, runs at the "
    "edges and kernels of even and odd length included") {
  cv::RNG rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = rng.uniform(1, 90), cols = rng.uniform(1, 90);
    cv::Mat ink(rows, cols, CV_8U);
    // Runs of every length: mostly ink, so that long runs (and runs at the borders) are common.
    rng.fill(ink, cv::RNG::UNIFORM, 0, 100);
    ink = (ink < 85) / 255 * 255;
    for (const bool down : {true, false}) {
      for (const int k : {1, 2, 3, 4, 7, 8, 20, 41, 120}) {
        CAPTURE(trial);
        CAPTURE(down);
        CAPTURE(k);
        cv::Mat expected;
        cv::morphologyEx(
            ink, expected, cv::MORPH_OPEN,
            cv::getStructuringElement(cv::MORPH_RECT, down ? cv::Size(1, k) : cv::Size(k, 1)));
        CHECK(cv::countNonZero(docsift::ocr::open_along(ink, down, k) != expected) == 0);
      }
    }
  }
}

TEST_CASE(
    "a transaction whose figure OCR dropped gets what its balances moved by, and its own check "
    "does not vouch for it") {
  // Date | Description | Amount | Balance, or Debit | Credit | Balance: the rent's row prints its
  // balance and no figure, as a word OCR lost leaves it.
  const auto statement = [&](bool split) {
    const std::vector<Placed> header =
        split ? std::vector<Placed>{{"Date", 10},
                                    {"Description", 150},
                                    {"Debit", 400},
                                    {"Credit", 520},
                                    {"Balance", 650}}
              : std::vector<Placed>{
                    {"Date", 10}, {"Description", 150}, {"Amount", 520}, {"Balance", 650}};
    return page_at({{0, {{"BANK", 10}, {"STATEMENT", 70}}},
                    {40, header},
                    {70, {{"01/07", 10}, {"Opening", 150}, {"balance", 230}, {"$1,000.00", 650}}},
                    {100, {{"03/07", 10}, {"Rent", 150}, {"payment", 210}, {"$890.00", 650}}},
                    {130,
                     {{"05/07", 10},
                      {"Interest", 150},
                      {"credit", 240},
                      {"1.18", split ? 540 : 530},
                      {"$891.18", 650}}},
                    {160, {{"28/07", 10}, {"Closing", 150}, {"balance", 230}, {"$891.18", 650}}}});
  };
  const std::vector<std::string> fields{"DOCUMENT_TYPE", "DESCRIPTIONS", "OPENING_BALANCE",
                                        "CLOSING_BALANCE"};
  for (const bool split : {false, true}) {
    CAPTURE(split);
    auto e = docsift::ocr::extract_fields(statement(split), rules(), fields);
    REQUIRE(e.items.size() == 2);
    CHECK(e.items[0].from_balances);
    CHECK_FALSE(e.items[1].from_balances);
    if (split) {
      CHECK(e.items[0].debit == "$110.00");
      CHECK_FALSE(e.items[0].amount);
    } else {
      CHECK(e.items[0].amount == "-$110.00");
    }
    CHECK(e.checks.at("balance") == "sum");
    docsift::ocr::mark_rows(e.items, e.fields, e.checks);
    CHECK_FALSE(e.items[0].evidence.vouched);  // taken from the balances: no check of its own
    CHECK(e.items[1].evidence.vouched);        // $890.00 + $1.18 = $891.18
    CHECK(e.items[0].evidence.sums_agree);
  }
}
