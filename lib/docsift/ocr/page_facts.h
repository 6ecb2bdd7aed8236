// What a page says of itself before any field is chosen (the OCR rules' page facts): computed once
// from the page's segments and the rules, and read, never changed, by every step of the field
// finder (field_finder.h), so no step sees them half-built or altered by a step before it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/rule_text.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr::detail {

// The document's heading ("TAX INVOICE"): heading words in the top third, or a line mostly a
// heading's in the top half; none found, a line anywhere that is mostly a heading read glued or
// misread, or that begins one the next line ends, with no digit (`garbled`: not read as printed).
// Its segment and the document type it names.
struct Heading {
  std::optional<std::size_t> at;
  std::string type;
  bool garbled = false;
};
Heading heading_of(const Page& page, const std::vector<Segment>& r, const Rules& rules);

// What a page says of itself before any field is chosen: computed once (page_facts) and const in
// the finder, so every step reads the same facts whichever steps ran before it.
struct PageFacts {
  // Numeric dates: day first unless the rule or the page says otherwise (date_order_of).
  DateOrder order = DateOrder::Dmy;
  // The page's currency: the mark printed most often with its amounts, for amounts printed bare.
  std::string currency;
  // Amounts printed with cents. A page that prints cents prints them on its total too: a bare
  // whole number there is noise.
  int with_cents = 0;
  std::set<long long> printed;  // every amount with cents read on the page
  // Per line: in a tax summary table (a total there is the tax base, not the bill's total), and
  // naming a rounding; the first line that rounds the total and its adjustment (sign unknown).
  std::vector<bool> tax_summary, rounds;
  std::optional<std::size_t> rounding_line;
  std::optional<long long> rounding_amount;
  // Net + tax on one line, the tax a whole percentage of the net ("SR 6% 16.98 1.02": 18.00): a
  // printed sum of the bill, as subtotal + tax is (page_facts.cpp: add_tax_rows).
  std::set<long long> row_sums;
  Heading heading;  // heading_of
  // What the trained finder's TOTAL features read of the page (field_finder.h: total_features):
  // how many segments print each amount (a segment counts once per amount), the segments' median
  // height (at least 1), the last line's index (at least 1).
  std::map<long long, int> segments_printing;
  double median_height = 1;
  std::size_t last_line = 1;
  // The seller's company registration number, the first printed at the top of the page (a number
  // of 5 digits or more and its check letter: "(001451637-M)", "CO REG NO : 210038-K"): its digits,
  // leading zeros dropped ("1451637"); empty where none. A shop prints the same number on every
  // receipt however its name is read, so the run finds its other pages by it (Extraction's).
  std::string registration;
};
// `r`: the page's segments (rule_text.h: segments_of).
PageFacts page_facts(const Page& page, const std::vector<Segment>& r, const Rules& rules,
                     DateOrderRule date_order);
DateOrder date_order_of(const std::vector<Segment>& r, const Rules& rules, DateOrderRule rule);

}  // namespace docsift::ocr::detail
