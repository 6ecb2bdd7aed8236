// Which values of one page go to a person, and why: the one rule `run` marks the queue by
// (batch/outputs.h, mark_review) and `eval` predicts it by (eval/confidence.cpp), so that the two
// always agree (docs/confidence.md, "The review queue").
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/extract/schema.h"
#include "docsift/names.h"

namespace docsift::extract {

// Why a value is queued, in the order the rule asks: a field the page's document type requires
// came out N/A, and the engine is not sure the page prints none; a value carries no confidence; the
// page's printed sums do not tie SUBTOTAL + GST to TOTAL (sums_disagree; TOTAL only under
// ReviewThresholds::sums_total); the page's table does
// not add up (its rows against the subtotal or total, quantity × unit price against a row's
// amount, a statement's opening balance + transactions against its closing balance: the list
// fields the engine's checks speak against, journal/page_arithmetic.h); its lists (QUANTITIES,
// PRICES, DESCRIPTIONS) hold different numbers of items; the payer's name, address or phone is
// the seller's (parties_clash); two of its dates contradict each other (dates_disagree); the
// payer's name and the name its email address spells are one or two letters apart
// (names_disagree); other pages of the run read the value near alike with other digits
// (PageDoubts::pages_off, batch/agreement.h); an ABN, website, email or postal address, or a list
// of descriptions, is not one (malformed_values); the value's confidence is under its threshold.
enum class ReviewReason {
  kMissing,
  kNoConfidence,
  kSumsDisagree,
  kRowsDisagree,
  kCountsDisagree,
  kPartiesClash,
  kDatesDisagree,
  kNamesDisagree,
  kPagesDisagree,
  kMalformed,
  kLowConfidence
};
inline constexpr Names<ReviewReason, 11> kReviewReasonNames{
    {{ReviewReason::kMissing, "missing"},
     {ReviewReason::kNoConfidence, "no confidence"},
     {ReviewReason::kSumsDisagree, "sums disagree"},
     {ReviewReason::kRowsDisagree, "rows disagree"},
     {ReviewReason::kCountsDisagree, "counts disagree"},
     {ReviewReason::kPartiesClash, "parties clash"},
     {ReviewReason::kDatesDisagree, "dates disagree"},
     {ReviewReason::kNamesDisagree, "names disagree"},
     {ReviewReason::kPagesDisagree, "pages disagree"},
     {ReviewReason::kMalformed, "malformed"},
     {ReviewReason::kLowConfidence, "low confidence"}}};
constexpr std::string_view to_string(ReviewReason reason) {
  return name_of(kReviewReasonNames, reason);
}

struct QueuedValue {
  std::string field;
  ReviewReason reason;
  // None for a value without one; for a missing value, the engine's that the page prints none,
  // where it judged that (under the threshold, or it would not be queued).
  std::optional<double> confidence;
  std::optional<double> threshold;  // the field's, when it has one
};

// review.threshold and review.fields, the one type run, eval and report read them as: a field's
// own threshold, else every field's. Without either a field is never queued for its confidence
// (eval without thresholds), only for the page's own evidence.
struct ReviewThresholds {
  std::optional<double> every;           // review.threshold
  std::map<std::string, double> fields;  // review.fields
  // review.sums_total: a TOTAL at or above this confidence is not queued for its sums (SUBTOTAL and
  // GST still are); 1, every such TOTAL is, one at a confidence of 1 too. Its confidence weighs the
  // sums already (docs/confidence.md, "A sure TOTAL over sums that disagree").
  double sums_total = 1.0;
  bool sure_over_sums(double total_confidence) const {
    return sums_total < 1.0 && total_confidence >= sums_total;
  }
  std::optional<double> of(const std::string& field) const {
    const auto it = fields.find(field);
    return it != fields.end() ? std::optional<double>(it->second) : every;
  }
  bool empty() const { return !every && fields.empty(); }
};

// What a page's record says against its values beyond the values themselves
// (journal/page_arithmetic.h, page_doubts), which run and eval both read from the journal: the
// fields the page's table arithmetic speaks against (`rows_off`), and those another page of the run
// read otherwise (`pages_off`: batch/agreement.h, Record::Agreement::disputed).
struct PageDoubts {
  std::set<std::string> rows_off, pages_off;
  bool empty() const { return rows_off.empty() && pages_off.empty(); }
};

// SUBTOTAL + GST - TOTAL when all three are amounts.
std::optional<double> sums_difference(const std::map<std::string, std::string>& fields);
// The queue's "sums disagree" (and review.csv's check): all three are amounts, SUBTOTAL + GST is
// more than 2 cents off TOTAL (cash rounding to 5 cents moves a bill by up to 2), and SUBTOTAL is
// not TOTAL itself with a GST of at most a fifth of it (a subtotal printed with the tax in it,
// which the sums then do not tie to the GST).
bool sums_disagree(const std::map<std::string, std::string>& fields);

// The fields whose value is the same for both parties of the page (docsift/parties.h: PAYER_NAME
// and SUPPLIER, PAYER_ADDRESS and BUSINESS_ADDRESS, PAYER_PHONE and BUSINESS_PHONE, by their
// letters and digits), both fields of the page's type (any, without one). One of each pair was read
// from the other party's lines: the queue's "parties clash" takes both, as a person cannot tell
// which from the values alone.
std::set<std::string> parties_clash(const FieldSchema& schema,
                                    const std::map<std::string, std::string>& fields);

// The fields whose dates contradict each other, each a field of the page's type (any, without
// one): DUE_DATE more than kMostDaysApart before or after INVOICE_DATE (both queued: either may be
// the misread one; a due date a few months before its invoice's is printed so on samples/' own
// invoices), a STATEMENT_PERIOD that ends before it starts or spans more than kMostDaysApart
// ("01/04/2025 to 28/04/2020": a misread year). Contradicted only when every date order that reads
// the dates (dates.h: day first, month first, year first) finds them so, as a value says nothing
// of its order.
inline constexpr int kMostDaysApart = 372;
std::set<std::string> dates_disagree(const FieldSchema& schema,
                                     const std::map<std::string, std::string>& fields);

// PAYER_NAME and PAYER_EMAIL, both of the page's type (any, without one), where the email's name
// (before its '@' and any "+tag", its '_' and '-' read as stops, the digits it ends with left out)
// is one or two letters from the payer's name spelled as such names are, its words' letters
// joined by a stop or by nothing ("jordan.smith", "jordansmith"; a title or an initial left out),
// and at least kLeastSpelledName letters long: "Jordan Sinith" beside "jordan.smith@",
// "jjordan.smith@" beside Jordan Smith. The page prints one name twice, OCR read the two apart, and
// the values alone do not say which is misread, so both are queued. Equal, or further apart
// ("accounts@", "j.smith@"), they say nothing.
inline constexpr std::size_t kLeastSpelledName = 6;
std::set<std::string> names_disagree(const FieldSchema& schema,
                                     const std::map<std::string, std::string>& fields);

// The fields whose value cannot be what any page prints, each a field of the page's type (any,
// without one): an ABN that is not 11 digits whose check digits pass (docsift/abn.h), a
// SUPPLIER_WEBSITE that is no well-formed website and a PAYER_EMAIL that is no well-formed email
// address (addresses.h), such as one whose domain ends in no top-level domain ("www.redgum.com.du":
// a misread .au); a BUSINESS_ADDRESS or PAYER_ADDRESS holding a sign no address prints ("Hobart
// TAS 700¢"); DESCRIPTIONS with a debit or misread amount in an item ("-$508:47") or a count read
// as a letter ("lkg"); a SUPPLIER, PAYER_NAME or ACCOUNT_HOLDER of fewer than two letters ("a"),
// or that is the start of either address the page read ("44 Rundle Mall, Adelaide SA":
// docsift/parties.h, name_is_address).
std::set<std::string> malformed_values(const FieldSchema& schema,
                                       const std::map<std::string, std::string>& fields);

// The page's queue in the order a person works it: rising confidence, the values without one (the
// missing ones) first, then by the schema's field order. `fields` holds the page's values ("N/A"
// or absent: none); `confidence` the fields with one, and a required field left N/A that the
// engine judged absent from the page (its probability that the page prints none: not queued at
// its threshold or over). The document type is fields' DOCUMENT_TYPE;
// a page without one requires nothing and its sums and lists are still checked. `doubts.rows_off`:
// the fields the page's table arithmetic speaks against; its list fields with a value are queued,
// whatever their confidence, and a statement's opening and closing balances when its transactions
// do not add up between them. `doubts.pages_off`: queued, whatever their confidence.
std::vector<QueuedValue> review_queue(const FieldSchema& schema,
                                      const std::map<std::string, std::string>& fields,
                                      const std::map<std::string, double>& confidence,
                                      const ReviewThresholds& thresholds,
                                      const PageDoubts& doubts = {});

}  // namespace docsift::extract
