// A table's figure OCR misread as letters ("sl" for a quantity's 1; ocr/table.h,
// TableRow::Misread): kept out of the description, marked for the second recognizer, read again and
// its rows taken (engine.h: sure_reading, take_reread_items); and an address's line that a skewed
// page split in two, joined, with the stop OCR read for a space taken out (values.h:
// clean_address).
#include <optional>
#include <string>
#include <vector>

#include "docsift/ocr/engine.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/table.h"
#include "docsift/ocr/values.h"
#include "support/word_pages.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::Box;
using docsift::ocr::Column;
using docsift::ocr::Engine;
using docsift::ocr::Extraction;
using docsift::ocr::LineText;
using docsift::ocr::Page;
using docsift::ocr::WordRun;
using docsift::testing::page_at;
using docsift::testing::page_of;

const docsift::ocr::Rules& rules() { return docsift::testing::shipped_rules(); }

const std::vector<std::string> kLists{"DESCRIPTIONS", "QUANTITIES", "PRICES", "SUBTOTAL"};

// samples/synthetic_invoice_005.png as Tesseract reads it: the Whiteboard's quantity, a 1 beside a
// speck, read "sl" where the other quantities end.
Page misread_invoice() {
  return page_of({{{"Description", 10}, {"Qty", 300}, {"Price", 400}},
                  {{"Stapler", 10}, {"6", 320}, {"$244.20", 400}},
                  {{"Whiteboard", 10}, {"sl", 310}, {"$219.57", 400}},
                  {{"Labour", 10}, {"(hour)", 80}, {"4", 320}, {"$173.53", 400}},
                  {{"Subtotal", 300}, {"$637.30", 400}}});
}

Engine::Result result_of(const Extraction& e) {
  Engine::Result out;
  out.fields = e.fields, out.text = e.text, out.text_source = "ocr";
  out.confidence = e.confidence, out.evidence = e.evidence;
  out.doubtful = e.doubtful, out.items = e.items;
  return out;
}

}  // namespace

TEST_CASE("table rows: a word where a quantity stands that is no figure is no description's") {
  const Page page = misread_invoice();
  const auto header = docsift::ocr::table_header(page.lines[0], rules().table);
  REQUIRE(header);
  const auto rows =
      docsift::ocr::table_rows(page, 1, 4, *header, rules().lexicon, docsift::testing::every_word);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1].cells.at(Column::kDescription) == "Whiteboard");
  CHECK(rows[1].cells.count(Column::kQuantity) == 0);
  REQUIRE(rows[1].misread.size() == 1);
  CHECK(rows[1].misread[0].column == Column::kQuantity);
  CHECK(rows[1].misread[0].line == 2);
  CHECK(rows[1].misread[0].word == 1);
  CHECK(rows[0].misread.empty());
  CHECK(rows[2].misread.empty());
  CHECK(rows[2].cells.at(Column::kDescription) == "Labour (hour)");

  // Left of where the figures start, or a long word in the quantity's place: the description's.
  const Page wordy = page_of({{{"Description", 10}, {"Qty", 300}, {"Price", 400}},
                              {{"Stapler", 10}, {"6", 320}, {"$244.20", 400}},
                              {{"Whiteboard", 10}, {"sl", 200}, {"$219.57", 400}},
                              {{"Desk", 10}, {"lamp", 200}, {"large", 280}, {"$99.00", 400}}});
  const auto kept =
      docsift::ocr::table_rows(wordy, 1, 4, *header, rules().lexicon, docsift::testing::every_word);
  REQUIRE(kept.size() == 3);
  CHECK(kept[1].cells.at(Column::kDescription) == "Whiteboard sl");
  CHECK(kept[2].cells.at(Column::kDescription) == "Desk lamp large");
  CHECK(kept[1].misread.empty());
  CHECK(kept[2].misread.empty());
}

TEST_CASE("a misread quantity is read again by the second recognizer and the rows taken") {
  const Page page = misread_invoice();
  const Extraction e = docsift::ocr::extract_fields(page, rules(), kLists);
  CHECK(e.fields.at("QUANTITIES") == "6 | 4");  // the counts disagree with 3 descriptions
  CHECK(e.fields.at("DESCRIPTIONS") == "Stapler | Whiteboard | Labour (hour)");
  std::vector<WordRun> cells;
  for (const WordRun& run : e.doubtful) {
    if (run.field == "QUANTITIES") cells.push_back(run);
  }
  REQUIRE(cells.size() == 1);
  CHECK(cells[0].line == 2);
  CHECK(cells[0].first == 1);

  Engine::Result first = result_of(e);
  const auto sure = [&](const WordRun& run, const LineText& second) {
    return docsift::ocr::sure_reading(run, second, rules().lexicon, docsift::ocr::DateOrder::Dmy);
  };
  // PP-OCRv4 reads a count surely only as digits: "1" at 0.99 is put in, "l" or a doubtful "1"
  // not.
  CHECK(sure(cells[0], LineText{"1", 0.99, 0.99, {0.99f}}) == "1");
  CHECK_FALSE(sure(cells[0], LineText{"l", 0.99, 0.99, {0.99f}}));
  CHECK_FALSE(sure(cells[0], LineText{"1", 0.6, 0.6, {0.6f}}));
  CHECK(sure(cells[0], LineText{"1.5", 0.95, 0.9, {0.95f, 0.95f, 0.95f}}) == "1.5");

  const auto read = [](const Box&) {
    return std::optional<LineText>(LineText{"1", 0.994, 0.994, {0.994f}});
  };
  const docsift::ocr::Reread again_read = docsift::ocr::read_again(page, cells, read, sure);
  REQUIRE(again_read.replaced.size() == 1);
  CHECK(again_read.page.lines[2].text() == "Whiteboard 1 $219.57");
  const Engine::Result again =
      result_of(docsift::ocr::extract_fields(again_read.page, rules(), kLists));
  REQUIRE(docsift::ocr::take_reread_items(first, again, again_read.replaced_for("QUANTITIES")));
  CHECK(first.fields.at("QUANTITIES") == "6 | 1 | 4");
  CHECK(first.fields.at("PRICES") == "$244.20 | $219.57 | $173.53");
  CHECK(first.items.at(1).quantity == "1");
  CHECK(first.evidence.at("QUANTITIES").reader_taken);
  // Taken once: the same rows again add nothing; nor do rows read with none replaced.
  CHECK_FALSE(docsift::ocr::take_reread_items(first, again, again_read.replaced_for("QUANTITIES")));
  Engine::Result untouched = result_of(e);
  CHECK_FALSE(docsift::ocr::take_reread_items(untouched, again, {}));
  CHECK(untouched.fields.at("QUANTITIES") == "6 | 4");
}

TEST_CASE("an address: the rest of its line read apart on a skewed page, and a stop for a space") {
  // samples/synthetic_invoice_020.png: "QLD 4000" read as a line of its own, right of the street
  // and 11 px lower (under half its height: layout_page keeps it apart), right of the seller's
  // name.
  const Page page =
      page_at({{20, {{"RECEIPT", 10}}},
               {50, {{"Kookaburra", 10}, {"Cafe", 120}}},
               {80, {{"ABN", 10}, {"69", 50}, {"222", 80}, {"960", 120}, {"945", 160}}},
               {110, {{"301", 10}, {"Queen", 50}, {"Street,", 110}, {"Brisbane", 190}}},
               {121, {{"QLD", 290}, {"4000", 330}}},
               {140, {{"Phone", 10}, {"(05)", 70}, {"9778", 120}, {"4248", 170}}}});
  REQUIRE(page.lines.size() == 6);
  REQUIRE(page.lines[4].text() == "QLD 4000");
  const Extraction e =
      docsift::ocr::extract_fields(page, rules(), {"SUPPLIER", "BUSINESS_ADDRESS"});
  CHECK(e.fields.at("SUPPLIER") == "Kookaburra Cafe");
  CHECK(e.fields.at("BUSINESS_ADDRESS") == "301 Queen Street, Brisbane QLD 4000");

  CHECK(docsift::ocr::clean_address("301.Queen Street, Brisbane QLD 4000") ==
        "301 Queen Street, Brisbane QLD 4000");
  CHECK(docsift::ocr::clean_address(" No.5 Jalan 3.5, KL ") == "No.5 Jalan 3.5, KL");
  CHECK(docsift::ocr::clean_address("Unit 4.B Main Rd") == "Unit 4.B Main Rd");
  // Specks at an address's ends and a stop for the space before its postcode.
  for (const char* read :
       {"88 Collins Street, Melbourne VIC 3000 =", "88 Collins Street, Melbourne VIC 3000.",
        "88 Collins Street, Melbourne VIC 3000\u00b0", "88. Collins Street, Melbourne VIC 3000",
        "88: Collins Street, Melbourne VIC.3000", "88 Collins Street, Melbourne VIC..3000",
        "88 Collins Street, Melbourne VIC: 3000", "88 Collins Street, Melbourne VIC. 3000"}) {
    CAPTURE(read);
    CHECK(docsift::ocr::clean_address(read) == "88 Collins Street, Melbourne VIC 3000");
  }
  // What an address prints stays: a comma that continues it, a bracket, a unit's stop, a state's.
  CHECK(docsift::ocr::clean_address("LOT 12, 81100,") == "LOT 12, 81100,");
  CHECK(docsift::ocr::clean_address("Jalan Besar (Block 3)") == "Jalan Besar (Block 3)");
  CHECK(docsift::ocr::clean_address("NO. 5, JALAN 3, 47301 PETALING JAYA, SELANGOR.") ==
        "NO. 5, JALAN 3, 47301 PETALING JAYA, SELANGOR.");
}
