// The dates written in a value, as the docsift scoring rules read them (docs/eval.md, "Rule sets")
// and as the review queue checks a page's dates against each other (review_queue.h, "dates
// disagree"): every calendar date, so that "28/06/2024" and "28 June 2024" are one day and
// "01/02/2024" and "02/01/2024" are two.
//
// Its own small parser, not ocr/values.h's find_dates (extract/ does not use ocr/): that one is a
// finder for noisy OCR text, tuned by the OCR rules' lexicon and its page-level date-order guess,
// and neither scoring nor the queue may change when the OCR heuristics are tuned. This one reads
// only the forms a person or a model writes, strictly.
#pragma once

#include <string_view>
#include <vector>

#include "docsift/extract/scoring_rules.h"

namespace docsift::extract {

struct CalendarDate {
  int year = 0, month = 0, day = 0;
  bool operator==(const CalendarDate&) const = default;
};

// Every date in `text`, in order: numeric with one separator used twice (/ - .), a 2- or 4-digit
// year (2-digit: 20YY), read in `order` unless the first group has 4 digits (ISO 2024-06-28);
// English month names and three-letter abbreviations ("28 June 2024", "28-Jun-24", "June 28,
// 2024", "28th June 2024"). Days that do not exist (31/04) are not dates. Empty when none.
std::vector<CalendarDate> parse_dates(std::string_view text, DateOrder order);

}  // namespace docsift::extract
