// Pages that agree (docs/confidence.md, "Pages that agree"): a shop prints its name and address
// alike on every receipt, and where two pages of a run read them with the same words, both were
// read right far more often than either page's own evidence says (a misread differs from page to
// page). The OCR engine marks the values pages are compared on (journal/record.h: Record's
// `agreement`: the value's words (ocr/known_names.h: words_key), the weight the calibration gives
// agreement, the confidence the page alone gave); once every page of a run is read, the run counts
// them here and gives each value that another page read alike its weight, as the calibration's
// `agreed` feature (ocr/calibration.h), fitted with the rest by bench/confidence/refit.py.
//
// A name read in part ("99 SPEED" for "99 SPEED MART S/B", "PERNIAGAAN GIN KEE" from "SYARIKAT :
// PERNIAGAAN GIN KEE") is no misreading of it, but a shop prints its registration number on every
// receipt: where two or more pages printing the page's number read one name that holds the page's,
// the page's is that name in part, and with ocr.batch_spelling it is completed likewise
// (docs/confidence.md, "A name read in part").
//
// A misread differs from page to page, so a name or address that one page alone read, within one
// misread per 8 letters and digits of what two or more other pages read alike (the rule
// ocr.known_sellers matches a vendor list by: ocr/known_names.h) and with the same digits, is that
// value misread: with ocr.batch_spelling the run writes their spelling in its place, agreed
// (Record::Agreement::read_value keeps the page's own). On the development receipts every value so
// replaced but one was right after (docs/confidence.md, "The spelling the pages agree on").
//
// Such a value with **other digits** ("7 Elizabeth Street, Hobart TAS 7006" beside pages of "...
// TAS 7000", "2 Gerbang Alaf Restaurants" beside "Gerbang Alaf Restaurants") is a misread digit or
// another branch, which the values alone cannot tell apart: it is not respelled but disputed, and
// the review queue takes it ("pages disagree"; docs/confidence.md, "Pages that disagree"). The
// payer's name, address and email are compared too (one company pays every invoice of an
// accounts-payable batch, one holder owns every statement of an account), and the seller's website
// and phone (printed alike on its every page), at weight 0: never agreed nor respelled (no fit has
// measured them), only disputed, also where the digits are the same.
//
// A batch is of a period (a month's receipts, a quarter's invoices), and a date's year misread
// ("15/03/2013" for 15-03-18, "04/06/2000" for 2018) is one no other page reads: the engine marks a
// date with its year as key, at weight 0 (never agreed), and a year one page alone read, outside
// the span of kDatedSpan years in which at least 9 in 10 of the run's dated pages lie (so 10 dated
// pages at least), is disputed by that span and queued (docs/confidence.md, "A year apart from the
// run's").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "docsift/batch/record.h"
#include "docsift/config/config.h"
#include "docsift/extract/schema.h"

namespace docsift::batch {

// How many ok pages read each value compared (field, key), and how they spelled it, counted one
// record at a time: each page's latest record, in any order, each once. A page counts as it read
// the value (its own key and spelling, not one the count wrote in its place).
class PageCounts {
 public:
  void add(const Record& record);
  int pages(const std::string& field, const std::string& key) const;
  bool empty() const { return pages_.empty(); }

  // Of the values of `field` that two or more pages read alike, the one `key` (read by one page) is
  // a misreading of: the same digits, and its letters and digits (spaces aside) within one edit per
  // 8 of that value's. The nearest; none where two are equally near. Its spelling: the one most of
  // its pages read (of equals, the first in byte order).
  std::optional<std::string> spelling_near(const std::string& field, const std::string& key) const;
  // The same with other digits (of two equally near, the first in byte order of their keys): the
  // value `key` disputes.
  std::optional<std::string> spelling_apart(const std::string& field, const std::string& key) const;
  // The name a page read in part completed: of the values of `field` that pages printing the
  // seller's registration number `registration` read, the one most of them read (two or more
  // pages, no other as many), where it is not `key` and its letters and digits (spaces aside) hold
  // `key`'s ("99 SPEED" of "99 SPEED MART S/B", "Hardwa" of "ENW Hardware Centre (M) Sdn. Bhd.").
  // Its spelling as spelling_near's.
  std::optional<std::string> spelling_completed(const std::string& field,
                                                const std::string& registration,
                                                const std::string& key) const;
  // The years the run's dates of `field` lie in ("2016 to 2018", "2025"), where the year `key`
  // (a page's date's: its key) is apart from them: of the dated pages, 9 in 10 or more read a
  // year in the span of kDatedSpan consecutive years that most pages read (of equals, the
  // earliest), `key`'s is outside it, and no other page read it. With one page outside, that is
  // 10 dated pages at least.
  std::optional<std::string> years_apart(const std::string& field, const std::string& key) const;
  static constexpr int kDatedSpan = 3;

 private:
  struct Value {
    int pages = 0;
    std::map<std::string, int> spellings;
    std::string spelling() const;  // the one most of its pages read; of equals, the first
  };
  // The nearest value of `field` two or more pages read alike, not `key`, whose digits are `key`'s
  // (`same_digits`) or not, within one edit per 8 of its letters and digits; null where none.
  // `tied`: another was as near.
  const Value* nearest(const std::string& field, const std::string& key, bool same_digits,
                       bool& tied) const;
  std::map<std::pair<std::string, std::string>, Value> pages_;
  // (field, registration) → each key read on pages printing it → how many.
  std::map<std::pair<std::string, std::string>, std::map<std::string, int>> registered_;
};

// Whether the name of key `whole` (ocr::words_key's) holds the one of key `part`, their letters and
// digits compared with spaces aside, and is not the same: `part` is `whole` read in part
// (PageCounts::spelling_completed; review.csv says "completed" for it, not "respelled").
bool holds_in_part(std::string_view whole, std::string_view part);

// `record` (a page's latest) as the counted pages say it should be, when that differs from it: a
// copy with Agreement::agreed set as it now is, the field's confidence the page's own (`read`) with
// the weight added to its logit where agreed, and the review queue redone (outputs.h: mark_review).
// A value agrees when another ok page's value of the same field has the same key. A value a person
// corrected (review apply) neither agrees nor is agreed with: its page keeps it, at confidence 1.
// With `spelling`, a value no other page read alike and the calibration weighs agreement for takes
// PageCounts::spelling_near's spelling where there is one (agreed, its own kept as `read_value`),
// and gives it back where there no longer is. A value no other page read alike and none respelled
// is `disputed` by PageCounts::spelling_apart's spelling, where there is one, and queued; one the
// calibration does not weigh (weight 0: never respelled) by spelling_near's too. Depends
// on the pages counted, not their order; a record it returned, counted in place of the one it came
// from, gives none. A seller no other page read alike nor near, on a page that printed its
// registration number, takes PageCounts::spelling_completed's where there is one, as it would a
// spelling: a name read in part (a cut-off crop, one line of two, a lead-in read as a label) that
// the shop's other pages, by its number, read whole. A date (the schema's
// `date` type) neither agrees nor is respelled: it is disputed by PageCounts::years_apart's span
// where there is one.
std::optional<Record> agreed(const Record& record, const PageCounts& counts,
                             const config::ReviewConfig& review, const extract::FieldSchema& schema,
                             bool spelling);

}  // namespace docsift::batch
