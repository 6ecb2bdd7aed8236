// The confidences of a page's reading (Engine::calibrate; engine.h, calibration.h): the page's own
// checks on the final values, then the calibrated probability of each value, each row and each
// required value left N/A, and (ocr.write_evidence) the evidence they were computed from.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "docsift/ocr/engine.h"
#include "docsift/ocr/page_checks.h"

namespace docsift::ocr {

void Engine::calibrate(Result& result) const {
  check_page(result.fields, result.evidence,
             rules_);  // on the final values: after the second readings and the list
  check_rows(result.items, result.fields, result.evidence, result.info["checks"]);
  mark_rows(result.items, result.fields, result.info["checks"]);
  result.probability.clear();
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
