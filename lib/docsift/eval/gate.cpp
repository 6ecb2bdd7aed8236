#include "docsift/eval/gate.h"

#include <algorithm>
#include <cstdlib>

#include "docsift/error.h"

namespace docsift::eval {
namespace {

const char* metric_name(GateMetric metric) { return metric == GateMetric::kF1 ? "F1" : "accuracy"; }

double value_of(GateMetric metric, double accuracy, const Counts& counts) {
  return metric == GateMetric::kF1 ? counts.f1() : accuracy;
}

// The baseline's value of `metric` for the overall (field empty) or a field; nullopt if absent.
std::optional<double> baseline_value(const nlohmann::json& baseline, GateMetric metric,
                                     const std::string& field) {
  // The baseline is a file: every step is looked up with find() on an object, never a const
  // operator[] (a missing key there is undefined behaviour, a non-object a nlohmann exception).
  const auto at = [](const nlohmann::json* node, const std::string& key) -> const nlohmann::json* {
    if (node == nullptr || !node->is_object()) return nullptr;
    const auto it = node->find(key);
    return it == node->end() ? nullptr : &*it;
  };
  const nlohmann::json* node = nullptr;
  if (metric == GateMetric::kAccuracy) {
    node = field.empty() ? at(&baseline, "overall") : at(at(&baseline, "fields"), field);
  } else if (field.empty()) {
    node = at(at(&baseline, "overall_counts"), "f1");
  } else {
    node = at(at(at(&baseline, "field_stats"), field), "f1");
  }
  if (node == nullptr || !node->is_number()) return std::nullopt;
  return node->get<double>();
}

}  // namespace

void check_gate(const Evaluation& e, const Gate& gate, const std::string& baseline_label) {
  for (const auto& [field, least] : gate.min_field) {
    if (std::find(e.fields.begin(), e.fields.end(), field) == e.fields.end()) {
      throw ConfigError("--min-field / gate.min_field " + field + ": not a scored field");
    }
  }
  if (gate.baseline == nullptr) return;
  const nlohmann::json& b = *gate.baseline;
  if (!b.is_object() || !b.contains("overall") || !b["overall"].is_number() ||
      !b.contains("fields") || !b["fields"].is_object()) {
    throw MalformedInputError(baseline_label +
                              ": not a docsift eval JSON report (written by --report FILE.json)");
  }
  // Reports from before eval.rules existed were scored by the reference's rules.
  const std::string before = b.contains("rules") && b["rules"].is_string()
                                 ? b["rules"].get<std::string>()
                                 : "reference-2025";
  const std::string now(name_of(extract::kRuleSetNames, e.rules.rules));
  if (before != now) {
    throw ConfigError(baseline_label + ": scored under the " + before +
                      " rules and this eval under " + now +
                      "; scores under different rules do not compare (--rules " + before +
                      ", or a new baseline)");
  }
  // Reports from before eval.money_tolerance existed were scored within 1 % under either rules.
  if (e.rules.rules == extract::RuleSet::kDocsift) {
    const double tolerance = b.contains("money_tolerance") && b["money_tolerance"].is_number()
                                 ? b["money_tolerance"].get<double>()
                                 : 0.01;
    if (tolerance != e.rules.money_tolerance) {
      throw ConfigError(
          baseline_label + ": scored with eval.money_tolerance " + fixed(tolerance, 4) +
          " and this eval with " + fixed(e.rules.money_tolerance, 4) +
          "; the money scores do not compare (--set eval.money_tolerance=" + fixed(tolerance, 4) +
          ", or a new baseline)");
    }
  }
  if (gate.metric == GateMetric::kF1 &&
      !(b.contains("overall_counts") && b.contains("field_stats"))) {
    throw ConfigError(baseline_label +
                      ": has no F1 (an older report); use --gate accuracy or a new baseline");
  }
}

std::vector<GateCase> judge(const Evaluation& e, const Gate& gate) {
  const char* metric = metric_name(gate.metric);
  const auto against_baseline = [&](GateCase& c, const std::string& field, double now) {
    if (gate.baseline == nullptr) return;
    const auto before = baseline_value(*gate.baseline, gate.metric, field);
    if (before && *before - now > gate.tolerance) {
      c.failures.push_back("regression: " +
                           (field.empty() ? std::string("overall ") + metric
                                          : field + (gate.metric == GateMetric::kF1 ? " F1" : "")) +
                           " fell from " + fixed(*before) + " to " + fixed(now) + " (more than " +
                           fixed(gate.tolerance) + ")");
    }
  };
  std::vector<GateCase> cases;
  GateCase overall{"overall", e.overall, e.counts, {}};
  if (gate.min_accuracy && e.overall < *gate.min_accuracy) {
    overall.failures.push_back("gate: overall accuracy " + fixed(e.overall, 4) +
                               " is below --min-accuracy " + fixed(*gate.min_accuracy, 4));
  }
  against_baseline(overall, "", value_of(gate.metric, e.overall, e.counts));
  // Coverage: scores over a part of the truth pass gates the whole would fail, so a gate on them
  // asks for the whole (cmd_eval sets --min-coverage 1 when any gate is set), and no gate passes a
  // prediction set that covers nothing.
  const std::size_t total = e.images.size(), missing = e.missing_predictions.size();
  if (gate.min_coverage ? e.coverage() < *gate.min_coverage : missing == total) {
    overall.failures.push_back(
        "gate: " + std::to_string(missing) + " of the truth's " + std::to_string(total) +
        " pages have no prediction" +
        (gate.min_coverage ? " (coverage " + fixed(e.coverage(), 4) + " is below --min-coverage " +
                                 fixed(*gate.min_coverage, 4) + ")"
                           : " (nothing to score; --min-coverage 0 lets it pass)"));
  }
  cases.push_back(std::move(overall));
  for (const std::string& field : e.fields) {
    const auto acc = e.field_accuracy.find(field);
    const auto counts = e.field_counts.find(field);
    GateCase c{field,
               acc == e.field_accuracy.end() ? 0.0 : acc->second,
               counts == e.field_counts.end() ? Counts{} : counts->second,
               {}};
    const double now = value_of(gate.metric, c.accuracy, c.counts);
    if (const auto least = gate.min_field.find(field);
        least != gate.min_field.end() && now < least->second) {
      c.failures.push_back("gate: " + field + " " + metric + " " + fixed(now, 4) +
                           " is below --min-field " + field + "=" + fixed(least->second, 4));
    }
    against_baseline(c, field, now);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::pair<std::string, double> parse_min_field(const std::string& text) {
  const auto eq = text.find('=');
  const std::string field = text.substr(0, eq);
  if (eq == std::string::npos || field.empty())
    throw ConfigError("--min-field " + text + ": expected FIELD=VALUE, e.g. TOTAL=0.9");
  const std::string value = text.substr(eq + 1);
  char* end = nullptr;
  const double least = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(least >= 0.0 && least <= 1.0)) {
    throw ConfigError("--min-field " + text + ": the value must be a number from 0 to 1");
  }
  return {field, least};
}

}  // namespace docsift::eval
