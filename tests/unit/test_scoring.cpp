// Scoring value by value under both rule sets (docs/eval.md, "Rule sets"): one table of (type,
// truth, predicted) with the score each rule set gives, the reference's quirks (docs/eval.md,
// "reference-2025") and money to the cent with its sign among them, then the settings the docsift
// rules take (eval.date_order, eval.list_match, eval.money_tolerance) and the date parser.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "docsift/eval/scoring.h"
#include "docsift/extract/dates.h"

namespace {

using docsift::eval::score_field;
using docsift::extract::DateOrder;
using docsift::extract::FieldType;
using docsift::extract::ItemType;
using docsift::extract::ListMatch;
using docsift::extract::RuleSet;
using docsift::extract::ScoringRules;

struct Row {
  FieldType type;
  ItemType items;
  const char* truth;
  const char* predicted;
  double docsift;    // the default rules
  double reference;  // reference-2025
  const char* why;
};

constexpr auto kId = FieldType::kNumericId;
constexpr auto kMoney = FieldType::kMonetary;
constexpr auto kDate = FieldType::kDate;
constexpr auto kList = FieldType::kList;
constexpr auto kText = FieldType::kText;
constexpr auto kPlain = ItemType::kText;
constexpr auto kPrices = ItemType::kMonetary;
constexpr auto kNumbers = ItemType::kNumber;

const std::vector<Row> kRows{
    // Where the two rule sets differ: the reference's quirks, kept on purpose.
    {kDate, kPlain, "01/02/2024", "02/01/2024", 0, 1,
     "day and month swapped: the reference compares digit sets"},
    {kDate, kPlain, "28/06/2024", "28 June 2024", 1, 0.8, "a month name is the same day"},
    {kList, kPrices, "$1,234.56 | $10.00", "$1 | $10.00", 0.5, 2.0 / 3,
     "the reference splits $1,234.56 on its comma"},
    {kList, kPlain, "Coffee | Tea | Milk", "Milk | Tea | Coffee", 1.0 / 3, 1,
     "ordered: only Tea is in its place"},
    {kText, kPlain, "Acme Pty Ltd", "A", 0, 0.9, "a substring earned 0.9"},
    // Missing values and the common normalisation: the same under both.
    {kText, kPlain, "NOT_FOUND", "N/A", 1, 1, "both missing"},
    {kText, kPlain, "", "n/a", 1, 1, "empty is missing"},
    {kMoney, kPlain, "$5.00", "N/A", 0, 0, "a value missed"},
    {kMoney, kPlain, "NOT_FOUND", "$5.00", 0, 0, "a value where there is none"},
    {kDate, kPlain, "N/A", "01/01/2024", 0, 0, "a date where there is none"},
    {kList, kPlain, "Tea", "N/A", 0, 0, "a list missed"},
    {kText, kPlain, "acme pty ltd", "ACME (Pty) Ltd", 1, 1, "case, parentheses and spaces ignored"},
    {kText, kPlain, "(02) 9876 5432", "02 9876 5432", 1, 1, "a phone number, formatted"},
    {kText, kPlain, "TAX INVOICE", "tax invoice", 1, 1, "case"},
    // Numeric ids: unchanged.
    {kId, kPlain, "04904754234", "04 904 754 234", 1, 1, "digits alone"},
    {kId, kPlain, "04 904 754 234", "ABN: 04-904-754-234", 1, 1, "a label and hyphens"},
    {kId, kPlain, "04 904 754 234", "04 904 754 235", 0, 0, "one digit wrong"},
    {kId, kPlain, "04 904 754 234", "4 904 754 234", 0, 0, "a lost digit"},
    {kId, kPlain, "063 140", "063-140", 1, 1, "a BSB"},
    // Money: to the cent and with its sign under docsift (eval.money_tolerance 0), within 1 % under
    // reference-2025.
    {kMoney, kPlain, "1234.56", "$1,234.56", 1, 1, "thousands separator"},
    {kMoney, kPlain, "$100.00", "$100.99", 0, 1, "within 1 %, not to the cent"},
    {kMoney, kPlain, "$2,480.62", "$2,500.00", 0, 1, "within 1 %, not to the cent"},
    {kMoney, kPlain, "$100.00", "$100.001", 1, 1, "the same cent"},
    {kMoney, kPlain, "$100.00", "$101.01", 0, 0, "beyond 1 %"},
    {kMoney, kPlain, "$0.00", "$0.01", 0, 1, "a cent at zero"},
    {kMoney, kPlain, "$0.00", "$0.02", 0, 0, "beyond 0.01 at zero"},
    {kMoney, kPlain, "-12", "-$12.00", 1, 1, "negative"},
    {kMoney, kPlain, "$1,373.03", "($1,373.03)", 0, 1,
     "parentheses: negative (reference: normalised away)"},
    {kMoney, kPlain, "$1,373.03", "-1,373.03", 0, 0, "a leading minus"},
    {kMoney, kPlain, "$1,373.03", "1,373.03-", 0, 0, "a trailing minus"},
    {kMoney, kPlain, "$1,373.03", "$-1,373.03", 0, 0, "a minus after the currency sign"},
    {kMoney, kPlain, "-$1,373.03", "($1,373.03)", 1, 0, "two ways to write one negative amount"},
    {kMoney, kPlain, "-1373.03", "1,373.03-", 1, 0, "a trailing minus is a sign"},
    {kMoney, kPlain, "$12.00", "twelve dollars", 0, 0, "not a number"},
    {kMoney, kPlain, "$58.62", "58.62", 1, 1, "no $"},
    {kMoney, kPlain, "$58.62", "AUD 58.62", 1, 1, "a currency code"},
    {kMoney, kPlain, "$58.62", "58-62", 0, 0, "a minus between digits: not an amount"},
    {kMoney, kPlain, "TBA", "tba", 1, 1, "not amounts: the normalised match"},
    // Dates.
    {kDate, kPlain, "07/07/2025", "7/7/2025", 1, 1, "leading zeros"},
    {kDate, kPlain, "06/08/2025", "2025-08-06", 1, 1, "ISO"},
    {kDate, kPlain, "06/08/2025", "06/08/2024", 0.8, 0.8, "another year"},
    {kDate, kPlain, "06/08/2025", "01/02/2024", 0, 0, "another day"},
    {kDate, kPlain, "28/06/2024", "27/06/2024", 0, 0.8,
     "a day off: the reference shares two groups"},
    {kDate, kPlain, "28/06/2024", "28-Jun-2024", 1, 0.8, "abbreviated month"},
    {kDate, kPlain, "28/06/2024", "June 28, 2024", 1, 0.8, "month first, in words"},
    {kDate, kPlain, "28/06/2024", "28th June 2024", 1, 0.8, "an ordinal"},
    {kDate, kPlain, "28/06/2024", "28/06/24", 1, 0.8, "a 2-digit year"},
    {kDate, kPlain, "28/06/2024", "28.06.2024", 1, 1, "dots"},
    {kDate, kPlain, "28/06/2024", "28/06/2023", 0.8, 0.8, "another year"},
    {kDate, kPlain, "29/02/2024", "29 Feb 2024", 1, 0.8, "a leap day"},
    {kDate, kPlain, "03/04/2025", "2025-04-03", 1, 1, "day first against ISO"},
    {kDate, kPlain, "28/06/2024", "next Friday", 0, 0, "not a date"},
    {kDate, kPlain, "sometime", "Sometime", 1, 1, "unparseable: the normalised match"},
    {kDate, kPlain, "sometime", "some time later", 0, 0, "unparseable and different"},
    {kDate, kPlain, "07/07/2025 to 06/08/2025", "07/07/2025 - 06/08/2025", 1, 1,
     "a period, either separator"},
    {kDate, kPlain, "07/07/2025 to 06/08/2025", "2025-07-07 to 2025-08-06", 1, 1,
     "a period in ISO"},
    {kDate, kPlain, "07/07/2025 to 06/08/2025", "07/07/2025 to 07/08/2025", 0, 0.8,
     "a period with a wrong end"},
    {kDate, kPlain, "07/07/2025 to 06/08/2025", "07/07/2024 to 06/08/2024", 0.8, 0.8,
     "a period a year off"},
    {kDate, kPlain, "07/07/2025 to 06/08/2025", "07/07/2025", 0, 0.8, "half a period"},
    // Lists.
    {kList, kNumbers, "3 | 3 | 3 | 1", "3 | 3 | 3 | 1", 1, 1, "equal"},
    {kList, kNumbers, "3 | 3 | 3 | 1", "3 | 3 | 3", 6.0 / 7, 0.75,
     "one item short: F1 against matched ÷ longer"},
    {kList, kNumbers, "2 | 1", "2.0 | 1", 1, 1, "numbers, not strings"},
    {kList, kNumbers, "10 | 1", "1 | 10", 0, 1, "swapped: the reference finds 1 inside 10"},
    {kList, kPrices, "$12.00", "$1", 0, 1, "$1 is inside $12.00"},
    {kList, kPrices, "$10.00 | $20.00", "$10.05 | $20.00", 0.5, 0.5,
     "prices to the cent (reference: 1 of 2 by containment)"},
    {kList, kPrices, "$10.00 | $20.00", "($10.00) | $20.00", 0.5, 1, "a negative price"},
    {kList, kPrices, "$1,234.56", "$1234.56", 1, 1, "the normalised match"},
    {kList, kPlain, "Widget A | Widget B | Widget C", "Widget A | Widget B", 0.8, 2.0 / 3,
     "one item missed"},
    {kList, kPlain, "Widget A | Widget B", "Widget A; Widget B; Extra; Extra 2", 0, 0.5,
     "semicolons do not separate"},
    {kList, kPlain, "pears | plums", "apples", 0, 0, "nothing in common"},
    {kList, kPlain, "Coffee beans | Tea", "Cofee beans | Tea", 1, 0.5, "a typo within ANLS 0.5"},
    {kList, kPlain, "Coffee | Tea", "Coffee\nTea", 1, 1, "newlines separate"},
    {kList, kPlain, "Coffee, large | Tea", "Coffee | Tea", 1, 2.0 / 3, "a comma inside an item"},
    // Text.
    {kText, kPlain, "Commonwealth Bank of Australia", "Commonwealth Bank", 1 - 11.0 / 27, 0.9,
     "ANLS, not containment"},
    {kText, kPlain, "12 George Street Sydney NSW 2000 Australia", "12 George Street Sydney",
     1 - 16.0 / 36, 0.9, "ANLS just above 0.5"},
    {kText, kPlain, "12 Pitt Street Sydney NSW 2000", "George Street", 0, 0, "below 0.5"},
    {kText, kPlain, "Acme Pty Ltd", "Acme Pty. Ltd", 1 - 1.0 / 11, 0,
     "one character: the reference's word overlap fails"},
    {kText, kPlain, "RECEIPT", "TAX INVOICE", 0, 0, "wrong type"},
    {kText, kPlain, "info@acme.com.au", "info@acme.com", 1 - 3.0 / 16, 0.9, "a truncated email"},
    {kText, kPlain, "John Smith", "Smith John", 0, 1, "words reordered: the reference's word set"},
    {kText, kPlain, "Acme Pty Ltd", "Acme", 0, 0.9, "a prefix"},
};

}  // namespace

TEST_CASE("scoring table: each row under the docsift rules and under reference-2025") {
  REQUIRE(kRows.size() >= 60);
  const ScoringRules docsift{};
  const ScoringRules reference{RuleSet::kReference2025};
  for (const Row& row : kRows) {
    CAPTURE(row.truth);
    CAPTURE(row.predicted);
    CAPTURE(row.why);
    CHECK(score_field(row.type, row.predicted, row.truth, docsift, row.items) ==
          doctest::Approx(row.docsift));
    CHECK(score_field(row.type, row.predicted, row.truth, reference, row.items) ==
          doctest::Approx(row.reference));
  }
}

TEST_CASE("scoring: reference-2025 ignores the docsift settings") {
  const ScoringRules odd{RuleSet::kReference2025, DateOrder::kMdy, ListMatch::kAny};
  CHECK(score_field(FieldType::kDate, "02/01/2024", "01/02/2024", odd) == 1.0);
  CHECK(score_field(FieldType::kList, "Widget A | Widget B", "Widget A; Widget C", odd) == 0.5);
}

TEST_CASE(
    "scoring: eval.money_tolerance, relative to the truth, for amounts and prices (reference-2025 "
    "ignores it)") {
  ScoringRules percent;
  percent.money_tolerance = 0.01;
  CHECK(score_field(FieldType::kMonetary, "$2,500.00", "$2,480.62", percent) == 1.0);
  CHECK(score_field(FieldType::kMonetary, "$2,510.00", "$2,480.62", percent) == 0.0);
  CHECK(score_field(FieldType::kMonetary, "$0.01", "$0.00", percent) ==
        0.0);  // relative: nothing at zero
  CHECK(score_field(FieldType::kMonetary, "($2,480.62)", "$2,480.62", percent) ==
        0.0);  // the sign is no tolerance
  CHECK(score_field(FieldType::kList, "$10.05 | $20.00", "$10.00 | $20.00", percent,
                    ItemType::kMonetary) == 1.0);
  ScoringRules reference{RuleSet::kReference2025};
  reference.money_tolerance = 0.5;
  CHECK(score_field(FieldType::kMonetary, "$101.01", "$100.00", reference) == 0.0);
  CHECK(score_field(FieldType::kMonetary, "$100.99", "$100.00", reference) == 1.0);
}

TEST_CASE("scoring: eval.list_match any pairs each item with any unused truth item") {
  const ScoringRules any{RuleSet::kDocsift, DateOrder::kDmy, ListMatch::kAny};
  CHECK(score_field(FieldType::kList, "Milk | Tea | Coffee", "Coffee | Tea | Milk", any) == 1.0);
  CHECK(score_field(FieldType::kList, "1 | 10", "10 | 1", any, ItemType::kNumber) == 1.0);
  // Each truth item is used once: two predicted Teas against one.
  CHECK(score_field(FieldType::kList, "Tea | Tea", "Tea | Milk", any) == doctest::Approx(0.5));
}

TEST_CASE("scoring: eval.date_order reads numeric dates in the truth and the prediction alike") {
  const ScoringRules mdy{RuleSet::kDocsift, DateOrder::kMdy, ListMatch::kOrdered};
  const ScoringRules ymd{RuleSet::kDocsift, DateOrder::kYmd, ListMatch::kOrdered};
  CHECK(score_field(FieldType::kDate, "June 28, 2024", "06/28/2024", mdy) == 1.0);
  CHECK(score_field(FieldType::kDate, "28 June 2024", "06/28/2024", ScoringRules{}) ==
        0.0);  // 06/28 is no dmy date
  CHECK(score_field(FieldType::kDate, "02/01/2024", "01/02/2024", mdy) == 0.0);  // still swapped
  CHECK(score_field(FieldType::kDate, "28 June 2024", "24/06/28", ymd) == 1.0);
  CHECK(score_field(FieldType::kDate, "2024-06-28", "06/28/2024", mdy) ==
        1.0);  // ISO is read as ISO
}

TEST_CASE("dates: the forms parse_dates reads, and the days it refuses") {
  using docsift::extract::CalendarDate;
  using docsift::extract::parse_dates;
  const auto one = [](const char* text, DateOrder order = DateOrder::kDmy) {
    const auto d = parse_dates(text, order);
    return d.size() == 1 ? d[0] : CalendarDate{};
  };
  CHECK(one("03/04/2025") == CalendarDate{2025, 4, 3});
  CHECK(one("03/04/2025", DateOrder::kMdy) == CalendarDate{2025, 3, 4});
  CHECK(one("3-4-25") == CalendarDate{2025, 4, 3});
  CHECK(one("2025.04.03") == CalendarDate{2025, 4, 3});
  CHECK(one("Due: 3 Sept 2025") == CalendarDate{2025, 9, 3});
  CHECK(one("DECEMBER 1ST, 2025") == CalendarDate{2025, 12, 1});
  CHECK(parse_dates("31/04/2025", DateOrder::kDmy).empty());  // no 31 April
  CHECK(parse_dates("29/02/2025", DateOrder::kDmy).empty());  // 2025 is no leap year
  CHECK(parse_dates("03/04-2025", DateOrder::kDmy).empty());  // mixed separators
  CHECK(parse_dates("12/2025", DateOrder::kDmy).empty());     // no day
  CHECK(parse_dates("01/07/2025 - 28/07/2025", DateOrder::kDmy).size() == 2);
}
