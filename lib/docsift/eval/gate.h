// The regression gate: one rule that decides both `docsift eval`'s exit code and the JUnit file
// (docs/eval.md, "In CI"). Every check belongs to one case, the overall or a field; a case fails
// when any of its checks does, and the gate fails when any case does.
//
//   overall  below --min-accuracy (overall accuracy); fell against --baseline by more than
//            --tolerance (in the --gate metric); the share of the truth's pages with a prediction
//            below --min-coverage, or, with no --min-coverage, no page predicted at all (an empty
//            or unrelated predictions file)
//   field    below its --min-field FIELD=X (in the --gate metric); fell against --baseline
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/eval/evaluate.h"

namespace docsift::eval {

enum class GateMetric { kAccuracy, kF1 };

struct Gate {
  std::optional<double> min_accuracy;  // overall accuracy
  std::optional<double> min_coverage;  // share of the truth's pages predicted; none: at least one
  std::map<std::string, double> min_field;   // field → least value of `metric`
  const nlohmann::json* baseline = nullptr;  // a previous to_json report, or none
  double tolerance = 0.02;
  GateMetric metric = GateMetric::kAccuracy;
};

struct GateCase {
  std::string name;  // "overall" or the field
  double accuracy = 0;
  Counts counts;
  std::vector<std::string> failures;  // each a whole sentence, as stderr and JUnit show it
};

// Throws ConfigError for a --min-field that names no scored field, and for a baseline scored
// under other rules or another eval.money_tolerance (or, with --gate f1, written before reports
// had F1); MalformedInputError for a baseline that is not a docsift eval JSON report. Run it
// before printing anything.
void check_gate(const Evaluation& evaluation, const Gate& gate, const std::string& baseline_label);

// The overall case first, then one per field in schema order.
std::vector<GateCase> judge(const Evaluation& evaluation, const Gate& gate);

// "FIELD=0.9" → {FIELD, 0.9}; ConfigError unless the value is a number in [0, 1].
std::pair<std::string, double> parse_min_field(const std::string& text);

}  // namespace docsift::eval
