#include "docsift/extract/review_queue.h"

#include <utf8proc.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <regex>
#include <string_view>
#include <utility>

#include "docsift/abn.h"
#include "docsift/edit_distance.h"
#include "docsift/extract/addresses.h"
#include "docsift/extract/dates.h"
#include "docsift/parties.h"
#include "docsift/utf8.h"

namespace docsift::extract {
namespace {

// The three amounts a page's arithmetic ties together (configs/fields/business-documents.yaml).
constexpr std::string_view kSubtotal = "SUBTOTAL", kTax = "GST", kTotal = "TOTAL";
constexpr std::string_view kOpening = "OPENING_BALANCE", kClosing = "CLOSING_BALANCE";
constexpr std::string_view kIssued = "INVOICE_DATE", kDue = "DUE_DATE",
                           kPeriod = "STATEMENT_PERIOD";
constexpr std::string_view kAbn = "ABN", kWebsite = "SUPPLIER_WEBSITE", kEmail = "PAYER_EMAIL";
constexpr std::string_view kSellerAddress = "BUSINESS_ADDRESS", kPayerAddress = "PAYER_ADDRESS",
                           kDescriptions = "DESCRIPTIONS";
constexpr std::string_view kSupplier = "SUPPLIER", kPayerName = "PAYER_NAME",
                           kHolder = "ACCOUNT_HOLDER";

const std::string* value_of(const std::map<std::string, std::string>& fields,
                            std::string_view name) {
  const auto it = fields.find(std::string(name));
  return it == fields.end() || is_missing(it->second) ? nullptr : &it->second;
}

// Non-empty items between '|', the separator a list's value is written with (the prompt's and
// the OCR engine's).
std::size_t item_count(std::string_view value) {
  std::size_t count = 0;
  bool filled = false;
  for (const char c : value) {
    if (c == '|') {
      count += filled ? 1 : 0;
      filled = false;
    } else if (c != ' ' && c != '\t') {
      filled = true;
    }
  }
  return count + (filled ? 1 : 0);
}

// Cash rounding to 5 cents (Australia's, Malaysia's) moves a bill by up to 2 cents.
constexpr long long kRoundingCents = 2;
// The most of a total that a tax included in it can be: a fifth, at a 25 % rate.
constexpr double kMostIncludedTax = 0.2;

// Whether the field `name` is one of the page's type (any, without a type).
bool of_type(const FieldSchema& schema, const std::string* type, std::string_view name) {
  const Field* f = schema.find(std::string(name));
  return f != nullptr && (!type || f->applies(*type));
}

long long day_number(const CalendarDate& d) {
  using namespace std::chrono;
  const sys_days days{year{d.year} / month{static_cast<unsigned>(d.month)} /
                      day{static_cast<unsigned>(d.day)}};
  return days.time_since_epoch().count();
}

// Whether the dates `first` and `second` (the period's two, when `second` is null) contradict
// each other in every order that reads them; false where no order does. `ordered`: the second may
// not come before the first (a period); else only the distance counts (samples/ prints due dates
// up to nine months before their invoice's date).
bool contradicted(const std::string& first, const std::string* second, bool ordered) {
  bool read = false;
  for (const DateOrder order : {DateOrder::kDmy, DateOrder::kMdy, DateOrder::kYmd}) {
    std::vector<CalendarDate> dates = parse_dates(first, order);
    if (second) {
      const std::vector<CalendarDate> more = parse_dates(*second, order);
      if (dates.size() != 1 || more.size() != 1) continue;
      dates.push_back(more.front());
    }
    if (dates.size() != 2) continue;
    read = true;
    const long long apart = day_number(dates[1]) - day_number(dates[0]);
    if ((apart >= 0 || !ordered) && std::llabs(apart) <= kMostDaysApart) return false;
  }
  return read;
}

}  // namespace

std::set<std::string> parties_clash(const FieldSchema& schema,
                                    const std::map<std::string, std::string>& fields) {
  const std::string* type = value_of(fields, kDocumentTypeField);
  // Both fields of the page's type: a statement has no seller, and an address the rules or a
  // model read as a business's there is the holder's own.
  std::set<std::string> out;
  for (const auto& [payer, seller] : kPartyFields) {
    const std::string* a = value_of(fields, payer);
    const std::string* b = value_of(fields, seller);
    if (a && b && of_type(schema, type, payer) && of_type(schema, type, seller) &&
        same_party_value(*a, *b))
      out.insert({std::string(payer), std::string(seller)});
  }
  return out;
}

std::set<std::string> dates_disagree(const FieldSchema& schema,
                                     const std::map<std::string, std::string>& fields) {
  const std::string* type = value_of(fields, kDocumentTypeField);
  std::set<std::string> out;
  const std::string* issued = value_of(fields, kIssued);
  const std::string* due = value_of(fields, kDue);
  if (issued && due && of_type(schema, type, kIssued) && of_type(schema, type, kDue) &&
      contradicted(*issued, due, /*ordered=*/false))
    out.insert({std::string(kIssued), std::string(kDue)});
  const std::string* period = value_of(fields, kPeriod);
  if (period && of_type(schema, type, kPeriod) && contradicted(*period, nullptr, /*ordered=*/true))
    out.insert(std::string(kPeriod));
  return out;
}

std::set<std::string> names_disagree(const FieldSchema& schema,
                                     const std::map<std::string, std::string>& fields) {
  constexpr std::string_view kName = "PAYER_NAME";
  const std::string* type = value_of(fields, kDocumentTypeField);
  const std::string* name = value_of(fields, kName);
  const std::string* email = value_of(fields, kEmail);
  if (!name || !email || !of_type(schema, type, kName) || !of_type(schema, type, kEmail)) return {};
  const std::size_t at = email->find('@');
  if (at == std::string::npos) return {};
  // The email's name as its owner chose it among the ways to write one: lower case, any '_' or
  // '-' a stop, without a "+tag" and the digits it ends with ("Jordan_Smith77+inv" →
  // "jordan.smith").
  std::string local;
  for (const char c : email->substr(0, std::min(at, email->find('+'))))
    local +=
        c == '_' || c == '-' ? '.' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!local.empty() && std::isdigit(static_cast<unsigned char>(local.back()))) local.pop_back();
  // The name's words' ASCII letters, lower case ("Liam O'Connor": "liam", "oconnor"), without a
  // title or an initial, which an email's name seldom spells ("Dr Jordan K. Smith").
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i <= name->size(); ++i) {
    const char c = i < name->size() ? (*name)[i] : ' ';
    if (c == ' ') {
      static constexpr std::string_view kTitles[] = {"mr", "mrs", "ms", "miss", "dr"};
      if (word.size() > 1 &&
          std::find(std::begin(kTitles), std::end(kTitles), word) == std::end(kTitles))
        words.push_back(word);
      word.clear();
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  int apart = 3;  // the fewest edits from the words joined by a stop or by nothing, up to 3
  for (const std::string_view stop : {std::string_view("."), std::string_view("")}) {
    std::string spelt;
    for (const std::string& w : words) spelt += (spelt.empty() ? "" : std::string(stop)) + w;
    if (spelt.size() >= kLeastSpelledName) apart = std::min(apart, edit_distance(local, spelt, 3));
  }
  if (apart == 0 || apart > 2) return {};
  return {std::string(kName), std::string(kEmail)};
}

namespace {

// A name's letters: code points of Unicode's letter categories, so that "É" is one letter, not
// the two bytes it takes; a value that is not UTF-8 counts its ASCII letters alone.
std::size_t letters_in(std::string_view value) {
  if (find_invalid_utf8(value) != kNoError) {
    return static_cast<std::size_t>(std::count_if(value.begin(), value.end(), [](char c) {
      return std::isalpha(static_cast<unsigned char>(c)) != 0;
    }));
  }
  std::size_t letters = 0;
  for (std::size_t at = 0; at < value.size();) {
    // Lu, Ll, Lt, Lm and Lo are utf8proc's categories 1 to 5, as known_names.cpp reads them.
    const utf8proc_category_t category =
        utf8proc_category(static_cast<utf8proc_int32_t>(next_code_point(value, at)));
    if (category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO) ++letters;
  }
  return letters;
}

}  // namespace

// Whether no item of a DESCRIPTIONS list holds a debit or a misread amount (a statement's amount
// column read into it: "Coles -$508:47 Rent payment") or a count read as a letter before its unit
// ("Coffee beans lkg" for 1kg, "1lkg"). A price printed in an item's name stays ("1 Meat 3 Vege
// $7.10", as a food court's receipts print it).
bool descriptions_well_formed(std::string_view value) {
  static const std::regex kAmount(R"((^|[\s|])(-(\$|€|£)\d|(\$|€|£)\d+:\d\d($|\D)))");
  static const std::regex kCountAsLetter(R"((^|[\s|])\d*[lI](kg|ml|mm|cm)($|[\s|.,]))");
  const std::string v(value);
  return !std::regex_search(v, kAmount) && !std::regex_search(v, kCountAsLetter);
}

std::set<std::string> malformed_values(const FieldSchema& schema,
                                       const std::map<std::string, std::string>& fields) {
  // Each field with a form of its own, and the check of it.
  static constexpr std::pair<std::string_view, bool (*)(std::string_view)> kForms[] = {
      {kAbn, abn_value_ok},
      {kWebsite, website_well_formed},
      {kEmail, email_well_formed},
      {kSellerAddress, postal_address_well_formed},
      {kPayerAddress, postal_address_well_formed},
      {kDescriptions, descriptions_well_formed}};
  const std::string* type = value_of(fields, kDocumentTypeField);
  std::set<std::string> out;
  for (const auto& [field, well_formed] : kForms) {
    const std::string* value = value_of(fields, field);
    if (value && of_type(schema, type, field) && !well_formed(*value))
      out.insert(std::string(field));
  }
  // A party's name of fewer than two letters (a speck read after its label: "Customer: a"), or
  // that is an address the page read (docsift/parties.h, name_is_address).
  for (const std::string_view name : {kSupplier, kPayerName, kHolder}) {
    const std::string* value = value_of(fields, name);
    if (!value || !of_type(schema, type, name)) continue;
    if (letters_in(*value) < 2) out.insert(std::string(name));
    for (const std::string_view address : {kSellerAddress, kPayerAddress}) {
      const std::string* where = value_of(fields, address);
      if (where && name_is_address(*value, *where)) out.insert(std::string(name));
    }
  }
  return out;
}

// The queue's rule only: the OCR engine's own check (ocr/page_checks.h, the `vouched` and
// `contradicted` evidence the calibration was fitted on) still allows one cent.
bool sums_disagree(const std::map<std::string, std::string>& fields) {
  const auto off = sums_difference(fields);
  if (!off || std::llround(std::abs(*off) * 100) <= kRoundingCents) return false;
  // A subtotal printed with the tax in it ("Subtotal (incl. GST) 5.90, GST 0.33, Total 5.90"): the
  // page's sums do not tie the GST then, and contradict nothing.
  const auto sub = parse_amount(*value_of(fields, kSubtotal));
  const auto tax = parse_amount(*value_of(fields, kTax));
  const auto total = parse_amount(*value_of(fields, kTotal));
  const bool included = std::llround(std::abs(*sub - *total) * 100) <= kRoundingCents &&
                        *tax >= 0 && *tax <= kMostIncludedTax * *total;
  return !included;
}

std::optional<double> sums_difference(const std::map<std::string, std::string>& fields) {
  const std::string* sub = value_of(fields, kSubtotal);
  const std::string* tax = value_of(fields, kTax);
  const std::string* total = value_of(fields, kTotal);
  if (!sub || !tax || !total) return std::nullopt;
  const auto s = parse_amount(*sub), t = parse_amount(*tax), all = parse_amount(*total);
  if (!s || !t || !all) return std::nullopt;
  return *s + *t - *all;
}

std::vector<QueuedValue> review_queue(const FieldSchema& schema,
                                      const std::map<std::string, std::string>& fields,
                                      const std::map<std::string, double>& confidence,
                                      const ReviewThresholds& thresholds,
                                      const PageDoubts& doubts) {
  const std::string* type = value_of(fields, kDocumentTypeField);
  const bool sums_off = sums_disagree(fields);
  // The item counts of the page's lists that belong to its type and have a value.
  std::vector<std::size_t> counts;
  for (const Field& f : schema.fields) {
    const std::string* v = value_of(fields, f.name);
    if (f.type == FieldType::kList && v && (!type || f.applies(*type)))
      counts.push_back(item_count(*v));
  }
  const bool counts_off =
      std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) != counts.end();
  const std::set<std::string> clash = parties_clash(schema, fields);
  const std::set<std::string> dates_off = dates_disagree(schema, fields);
  const std::set<std::string> names_off = names_disagree(schema, fields);
  const std::set<std::string> malformed = malformed_values(schema, fields);

  std::vector<QueuedValue> queue;
  for (const Field& f : schema.fields) {
    const std::string* v = value_of(fields, f.name);
    const auto sure = confidence.find(f.name);
    QueuedValue q{f.name, ReviewReason::kLowConfidence,
                  sure == confidence.end() ? std::nullopt : std::optional<double>(sure->second),
                  thresholds.of(f.name)};
    if (!v) {
      if (!type || !f.required_on(*type)) continue;
      // A confidence on N/A is the engine's that the page prints no such value (an ABN on a
      // receipt from abroad): at its threshold, nothing is missing.
      if (q.confidence && q.threshold && *q.confidence >= *q.threshold) continue;
      q.reason = ReviewReason::kMissing;
    } else if (!q.confidence) {
      q.reason = ReviewReason::kNoConfidence;
    } else if (sums_off && (f.name == kSubtotal || f.name == kTax ||
                            (f.name == kTotal && !thresholds.sure_over_sums(*q.confidence)))) {
      q.reason = ReviewReason::kSumsDisagree;
    } else if (doubts.rows_off.count(f.name) > 0 &&
               (f.type == FieldType::kList || f.name == kOpening || f.name == kClosing)) {
      // A table's lists, and a statement's balances, which its transactions are checked against:
      // either balance may be the misread figure. Not an invoice's TOTAL against its rows, which a
      // row OCR missed makes disagree as often.
      q.reason = ReviewReason::kRowsDisagree;
    } else if (counts_off && f.type == FieldType::kList && (!type || f.applies(*type))) {
      q.reason = ReviewReason::kCountsDisagree;
    } else if (clash.count(f.name) > 0) {
      q.reason = ReviewReason::kPartiesClash;
    } else if (dates_off.count(f.name) > 0) {
      q.reason = ReviewReason::kDatesDisagree;
    } else if (names_off.count(f.name) > 0) {
      q.reason = ReviewReason::kNamesDisagree;
    } else if (doubts.pages_off.count(f.name) > 0) {
      q.reason = ReviewReason::kPagesDisagree;
    } else if (malformed.count(f.name) > 0) {
      q.reason = ReviewReason::kMalformed;
    } else if (!q.threshold || *q.confidence >= *q.threshold) {
      continue;
    }
    queue.push_back(std::move(q));
  }
  // Rising confidence, none first; stable, so ties keep the schema's order.
  std::stable_sort(queue.begin(), queue.end(), [](const QueuedValue& a, const QueuedValue& b) {
    return a.confidence.value_or(-1.0) < b.confidence.value_or(-1.0);
  });
  return queue;
}

}  // namespace docsift::extract
