// What a page says of itself before any field is chosen (lib/docsift/ocr/page_facts.h; docs/ocr.md,
// "Rules"): its date order, currency, amounts with cents, tax rows, rounding line, tax summary and
// heading, from the page's segments alone.
#include <set>
#include <string>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/page_facts.h"
#include "docsift/ocr/rule_text.h"
#include "docsift/ocr/rules.h"
#include "support/word_pages.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::DateOrder;
using docsift::ocr::DateOrderRule;
using docsift::ocr::Page;
using docsift::ocr::detail::PageFacts;

PageFacts facts_of(const Page& page, DateOrderRule rule = DateOrderRule::Auto) {
  const auto& rules = docsift::testing::shipped_rules();
  return docsift::ocr::detail::page_facts(page, docsift::ocr::detail::segments_of(page, rules),
                                          rules, rule);
}

// A Malaysian till receipt: a heading under the seller, a tax row whose tax is 6 % of its net,
// a rounding line, a GST summary, the bill in ringgit, and a date that only month first makes.
Page receipt() {
  return docsift::testing::till_receipt({{"KEDAI", "BUKU", "SDN", "BHD"},
                                         {"TAX", "INVOICE"},
                                         {"Date:", "12/31/2025"},
                                         {"PEN", "RM", "16.98"},
                                         {"SR", "6%", "16.98", "1.02"},
                                         {"Rounding", "Adj", "-0.02"},
                                         {"TOTAL", "RM", "18.00"},
                                         {"GST", "Summary"},
                                         {"SR", "16.98", "1.02"}});
}

}  // namespace

TEST_CASE("page facts: money, tax rows, rounding and the tax summary") {
  const PageFacts f = facts_of(receipt());
  CHECK(f.currency == "RM");
  CHECK(f.printed == std::set<long long>{2, 102, 1698, 1800});
  CHECK(f.with_cents == 7);                        // 16.98 three times, 1.02 twice, 0.02 and 18.00
  CHECK(f.row_sums == std::set<long long>{1800});  // 16.98 + 1.02, 6 % of the net
  REQUIRE(f.rounding_line);
  CHECK(*f.rounding_line == 5);
  CHECK(f.rounding_amount == 2);  // its sign is not known
  REQUIRE(f.tax_summary.size() == 9);
  REQUIRE(f.rounds.size() == 9);
  CHECK(f.rounds[5]);
  CHECK_FALSE(f.rounds[6]);
  CHECK_FALSE(f.tax_summary[6]);
  CHECK(f.tax_summary[7]);
  CHECK(f.tax_summary[8]);  // the summary's rows below its heading
}

TEST_CASE("page facts: the heading and its type, the date order by the page or by the rule") {
  const PageFacts f = facts_of(receipt());
  REQUIRE(f.heading.at);
  CHECK(*f.heading.at == 1);
  CHECK(f.heading.type == "TAX INVOICE");
  CHECK_FALSE(f.heading.garbled);
  CHECK(f.order == DateOrder::Mdy);  // 12/31 works only month first
  CHECK(facts_of(receipt(), DateOrderRule::Dmy).order == DateOrder::Dmy);

  // No heading word: none, and no type.
  const PageFacts plain = facts_of(docsift::testing::till_receipt(
      {{"KEDAI", "BUKU", "SDN", "BHD"}, {"Date:", "31/12/2025"}, {"TOTAL", "18.00"}}));
  CHECK_FALSE(plain.heading.at);
  CHECK(plain.heading.type.empty());
  CHECK(plain.order == DateOrder::Dmy);
  CHECK(plain.currency.empty());
  CHECK(plain.rounds == std::vector<bool>{false, false, false});
}

TEST_CASE("page facts: the seller's registration number, the first at the top of the page") {
  using docsift::testing::till_receipt;
  CHECK(facts_of(receipt()).registration.empty());
  const std::vector<std::string> foot = {"Thank", "you"};
  // Its digits alone, leading zeros dropped; in brackets, after a label, or read in two pieces.
  CHECK(facts_of(till_receipt({{"TEO", "HENG", "STATIONERY"},
                               {"(001451637-M)"},
                               {"TEL:", "03-3271", "9872"},
                               foot,
                               foot,
                               foot,
                               foot}))
            .registration == "1451637");
  CHECK(facts_of(till_receipt({{"WESTERN", "EASTERN"},
                               {"CO", "REG", "NO", ":", "210038-k"},
                               {"GST", "ID", ":", "000517095424"},
                               foot,
                               foot,
                               foot,
                               foot}))
            .registration == "210038");
  CHECK(facts_of(till_receipt({{"BOOK", "TA.K"}, {"78941", "7-W"}, foot, foot, foot, foot, foot}))
            .registration == "789417");
  // A telephone, a GST number with no check letter, one of four digits, a number low on the page:
  // none.
  CHECK(facts_of(till_receipt({{"KEDAI", "BUKU"},
                               {"TEL:", "03-3271", "9872", "GST:", "000517095424"},
                               {"No.", "1234-A"},
                               foot,
                               foot,
                               foot,
                               foot,
                               {"(001451637-M)"}}))
            .registration.empty());
}
