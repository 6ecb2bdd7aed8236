// The confidences of a page's reading (Engine::calibrate; engine.h, calibration.h): the page's own
// checks on the final values, then the calibrated probability of each value, each row and each
// required value left N/A, and (ocr.write_evidence) the evidence they were computed from.
#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "docsift/ocr/engine.h"
#include "docsift/ocr/known_names.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {
namespace {

// The fields pages are compared on (batch/agreement.h): who sold. A shop's name and address are
// printed alike on its every receipt, so two pages that read them alike have read them right far
// more often than either page's own evidence says (docs/confidence.md, "Pages that agree").
constexpr std::string_view kAgreedFields[] = {"SUPPLIER", "BUSINESS_ADDRESS"};
// And who paid, and the seller's website and phone, at weight 0: one company pays every invoice
// of an accounts-payable batch, and a seller prints one website and phone on its every page, but
// no fit has measured what agreement says of them, so such a value is only disputed where other
// pages read it otherwise ("Pages that disagree"), never agreed nor respelled.
constexpr std::string_view kComparedFields[] = {"PAYER_NAME", "PAYER_ADDRESS", "PAYER_EMAIL",
                                                "SUPPLIER_WEBSITE", "BUSINESS_PHONE"};

// And the date, keyed by its year, at weight 0 too: a batch is of a period, so a year one page
// alone read, apart from the years the run's other dates lie in, is a misread digit more often than
// not ("04/06/2000" for 2018; docs/confidence.md, "A year apart from the run's"), and is disputed.
constexpr std::string_view kDatedFields[] = {"INVOICE_DATE"};

bool one_of(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

void Engine::calibrate(Result& result) const {
  check_page(result.fields, result.evidence,
             rules_);  // on the final values: after the second readings and the list
  check_rows(result.items, result.fields, result.evidence, result.info["checks"]);
  mark_rows(result.items, result.fields, result.info["checks"]);
  result.probability.clear();
  result.agreeable.clear();
  // Each row's confidence, where the calibration has a model for rows (a user's own file may not).
  const auto rows = calibration_.kinds.find("row");
  nlohmann::json row_features = nlohmann::json::array();
  for (LineItem& item : result.items) {
    if (rows != calibration_.kinds.end())
      item.probability = rows->second.probability(item.evidence);
    if (write_evidence_) row_features.push_back(feature_values(item.evidence));
  }
  nlohmann::json evidence = nlohmann::json::object(), absent = nlohmann::json::object();
  for (const auto& [name, e] : result.absent) {  // still N/A after the second readings
    const auto value = result.fields.find(name);
    if (value == result.fields.end() || value->second != "N/A") continue;
    if (const auto p = calibration_.absent_probability(name, e)) result.probability[name] = *p;
    if (write_evidence_) absent[name] = feature_values(e);
  }
  for (const auto& [name, e] : result.evidence) {
    const auto value = result.fields.find(name);
    if (value == result.fields.end() || value->second == "N/A") continue;
    result.probability[name] = calibration_.probability(name, e);
    const bool weighed = one_of(kAgreedFields, name);
    if (weighed || one_of(kComparedFields, name)) {
      const double weight = weighed ? calibration_.agreement_weight(name, e) : 0.0;
      const std::string key = words_key(value->second);
      if ((weight != 0 || !weighed) && !key.empty())
        result.agreeable[name] = {key, weight, name == "SUPPLIER" ? result.registration : ""};
    } else if (one_of(kDatedFields, name)) {
      // Its year as format_date wrote it: four digits.
      if (formatted_date(value->second))
        result.agreeable[name] = {value->second.substr(6), 0.0, ""};
    }
    if (write_evidence_) {
      nlohmann::json f = feature_values(e);
      f["candidates"] = e.candidates;
      f["margin_points"] = e.margin;
      f["box"] = {e.box.left, e.box.top, e.box.right - e.box.left, e.box.bottom - e.box.top};
      evidence[name] = std::move(f);
    }
  }
  if (write_evidence_) {
    result.info["evidence"] = std::move(evidence);  // and per field left N/A, and per row:
    if (!absent.empty()) result.info["evidence_absent"] = std::move(absent);
    if (!result.items.empty()) result.info["evidence_rows"] = std::move(row_features);
  }
}

}  // namespace docsift::ocr
