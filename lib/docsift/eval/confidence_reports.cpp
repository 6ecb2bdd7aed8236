// confidence.h's reports: the JSON report's "confidence" object, the Markdown section and the
// short table for stdout, each listing a group's risk–coverage rows (listed_rows).
#include "docsift/eval/confidence.h"

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "docsift/eval/evaluate.h"

namespace docsift::eval {

std::vector<CoveragePoint> listed_rows(const std::vector<CoveragePoint>& curve) {
  if (curve.size() <= kCurveRowsListed) return curve;
  std::vector<CoveragePoint> rows;
  // Rows run from the highest threshold down; for each grid threshold from 1.00 down to 0.00, the
  // last row at or above it holds the values it accepts.
  std::size_t next = 0;
  const CoveragePoint* current = nullptr;
  for (int step = 100; step >= 0; --step) {
    const double t = step / 100.0;
    while (next < curve.size() && curve[next].threshold >= t) current = &curve[next++];
    if (current == nullptr) continue;
    CoveragePoint p = *current;
    p.threshold = t;
    rows.push_back(p);
  }
  return rows;
}

namespace {

nlohmann::json optional_number(double value) {
  return std::isnan(value) ? nlohmann::json() : nlohmann::json(value);
}

nlohmann::json group_json(const ConfidenceGroup& g) {
  nlohmann::json bins = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const CalibrationBin& b : g.calibration.bins) {
    bins.push_back({{"lower", b.lower},
                    {"upper", b.upper},
                    {"count", b.count},
                    {"mean_confidence", b.mean_confidence},
                    {"accuracy", b.accuracy}});
  }
  for (const CoveragePoint& p : listed_rows(g.curve)) {
    rows.push_back({{"threshold", p.threshold},
                    {"accepted", p.accepted},
                    {"coverage", p.coverage},
                    {"accuracy", p.accuracy}});
  }
  nlohmann::json out = {{"values", g.values.size()},
                        {"correct", g.correct},
                        {"accuracy", g.values.empty() ? 0.0
                                                      : static_cast<double>(g.correct) /
                                                            static_cast<double>(g.values.size())},
                        {"aurc", g.aurc},
                        {"ece", g.calibration.ece},
                        {"bins", bins},
                        {"risk_coverage", rows},
                        {"risk_coverage_rows",
                         g.curve.size() <= kCurveRowsListed ? "each threshold" : "grid of 0.01"}};
  if (g.at_threshold) {
    const ThresholdCheck& t = *g.at_threshold;
    out["at_threshold"] = {{"threshold", optional_number(t.threshold)},
                           {"under", t.under},
                           {"wrong", t.wrong},
                           {"wrong_under", t.wrong_under}};
  }
  if (g.fit) {
    const TargetFit& f = *g.fit;
    out["fit"] = {{"target", f.target},
                  {"reached", f.reached},
                  {"threshold", f.threshold},
                  {"accepted", f.accepted},
                  {"coverage", f.coverage},
                  {"accuracy", f.accuracy},
                  {"errors_allowed", f.errors_allowed}};
  }
  return out;
}

std::string fixed3(double value) { return fixed(value, 3); }

// A column of `width` characters, left-aligned, at least one space after.
std::string pad(const std::string& s, std::size_t width) {
  return s + std::string(s.size() < width ? width - s.size() : 1, ' ');
}

std::string accuracy_of(const ConfidenceGroup& g) {
  return g.values.empty()
             ? "-"
             : fixed3(static_cast<double>(g.correct) / static_cast<double>(g.values.size()));
}

std::string threshold_text(const ThresholdCheck& t) {
  return std::isnan(t.threshold) ? "per field" : fixed(t.threshold, 4);
}

std::string correct_rule(double correct_at) {
  return "a value is correct when it scores 1 (text and lists: at least " + fixed3(correct_at) +
         ")";
}

}  // namespace

nlohmann::json confidence_json(const ConfidenceEvaluation& c) {
  nlohmann::json fields = nlohmann::json::object(), types = nlohmann::json::object();
  for (const ConfidenceGroup& g : c.fields) fields[g.name] = group_json(g);
  for (const ConfidenceGroup& g : c.types) types[g.name] = group_json(g);
  nlohmann::json thresholds = {
      {"default", c.thresholds.every ? nlohmann::json(*c.thresholds.every) : nlohmann::json()},
      {"fields", c.thresholds.fields},
      {"fitted", c.thresholds_fitted}};
  return {{"correct_at", c.correct_at},
          {"correct_rule", correct_rule(c.correct_at)},
          {"values", c.all.values.size()},
          {"without_confidence", c.without_confidence},
          {"target_accuracy",
           c.target_accuracy ? nlohmann::json(*c.target_accuracy) : nlohmann::json()},
          {"thresholds", thresholds},
          {"review", {{"total", c.review_total}, {"fields", c.review}}},
          {"fields", fields},
          {"types", types},
          {"all", group_json(c.all)}};
}

std::string confidence_table(const ConfidenceEvaluation& c) {
  std::ostringstream out;
  out << "\nconfidence: " << c.all.values.size() << " values; " << correct_rule(c.correct_at);
  if (c.without_confidence > 0)
    out << "; " << c.without_confidence << " values without a confidence left out";
  out << "\n"
      << pad("field", 25)
      << "values  accuracy  AURC   ECE    threshold  review  wrong  wrong in review\n";
  const auto row = [&](const ConfidenceGroup& g, const std::string& name) {
    out << pad(name, 25) << pad(std::to_string(g.values.size()), 8) << pad(accuracy_of(g), 10)
        << pad(fixed3(g.aurc), 7) << pad(fixed3(g.calibration.ece), 7);
    if (g.at_threshold) {
      const ThresholdCheck& t = *g.at_threshold;
      out << pad(threshold_text(t), 11) << pad(std::to_string(t.under), 8)
          << pad(std::to_string(t.wrong), 7) << t.wrong_under << " of " << t.wrong;
    } else {
      out << pad("-", 11) << pad("-", 8) << pad(std::to_string(g.values.size() - g.correct), 7)
          << "-";
    }
    out << '\n';
  };
  for (const ConfidenceGroup& g : c.fields) row(g, g.name);
  for (const ConfidenceGroup& g : c.types) row(g, "(" + g.name + ")");
  row(c.all, "(all)");
  if (c.target_accuracy) {
    out << "\ntarget accuracy " << fixed3(*c.target_accuracy)
        << ": the lowest threshold whose accepted values reach it\n"
        << pad("field", 25) << "threshold  accepted  coverage  accuracy  errors allowed\n";
    const auto fit_row = [&](const ConfidenceGroup& g, const std::string& name) {
      const TargetFit& f = *g.fit;
      out << pad(name, 25) << pad(fixed(f.threshold, 4), 11)
          << pad(std::to_string(f.accepted) + "/" + std::to_string(g.values.size()), 10)
          << pad(fixed3(f.coverage), 10) << pad(f.accepted == 0 ? "-" : fixed3(f.accuracy), 10)
          << f.errors_allowed << (f.reached ? "" : "  (not reached: every value below 1 to review)")
          << '\n';
    };
    for (const ConfidenceGroup& g : c.fields) fit_row(g, g.name);
    fit_row(c.all, "(all; the default)");
  }
  if (!c.thresholds.empty()) {
    out << "review queue at these thresholds, over every page predicted: " << c.review_total
        << " values\n";
  }
  return out.str();
}

namespace {

// The Markdown section of the fits to --target-accuracy, one row per group.
void markdown_target_fits(std::ostream& out, const ConfidenceEvaluation& c) {
  if (!c.target_accuracy) return;
  out << "\n### Target accuracy " << fixed3(*c.target_accuracy) << "\n\n"
      << "The lowest threshold whose accepted values reach the target on this truth, the coverage "
         "it keeps, and how many wrong values the target allows among those accepted.\n\n"
      << "| group | threshold | reached | accepted | coverage | accuracy | errors allowed "
         "|\n|---|---|---|---|---|---|---|\n";
  const auto fit_row = [&](const ConfidenceGroup& g, const std::string& name) {
    const TargetFit& f = *g.fit;
    out << "| " << name << " | " << fixed(f.threshold, 4) << " | " << (f.reached ? "yes" : "no")
        << " | " << f.accepted << " of " << g.values.size() << " | " << fixed3(f.coverage) << " | "
        << (f.accepted == 0 ? "-" : fixed3(f.accuracy)) << " | " << f.errors_allowed << " |\n";
  };
  for (const ConfidenceGroup& g : c.fields) fit_row(g, g.name);
  for (const ConfidenceGroup& g : c.types) fit_row(g, "type: " + g.name);
  fit_row(c.all, "all (the default)");
}

// The Markdown section of the calibration bins: a column per bin, a row per group.
void markdown_calibration_bins(std::ostream& out, const ConfidenceEvaluation& c) {
  out << "\n### Calibration bins\n\nPer bin of confidence: accuracy / mean confidence "
         "(values).\n\n| group |";
  for (const CalibrationBin& b : c.all.calibration.bins)
    out << ' ' << fixed(b.lower, 1) << "-" << fixed(b.upper, 1) << " |";
  out << "\n|---|";
  for (int k = 0; k < kCalibrationBins; ++k) out << "---|";
  out << '\n';
  const auto bins_row = [&](const ConfidenceGroup& g, const std::string& name) {
    out << "| " << name << " |";
    for (const CalibrationBin& b : g.calibration.bins) {
      if (b.count == 0) {
        out << " |";
      } else {
        out << ' ' << fixed3(b.accuracy) << " / " << fixed3(b.mean_confidence) << " (" << b.count
            << ") |";
      }
    }
    out << '\n';
  };
  for (const ConfidenceGroup& g : c.fields) bins_row(g, g.name);
  for (const ConfidenceGroup& g : c.types) bins_row(g, "type: " + g.name);
  bins_row(c.all, "all");
}

// The Markdown section of the risk-coverage tables: one per group, its rows listed_rows'.
void markdown_risk_coverage(std::ostream& out, const ConfidenceEvaluation& c) {
  out << "\n### Risk-coverage tables\n\nPer threshold (each distinct confidence, or a grid of 0.01 "
         "above "
      << kCurveRowsListed << " of them): the values it accepts, their share, and their accuracy.\n";
  const auto curve_table = [&](const ConfidenceGroup& g, const std::string& name) {
    out << "\n#### " << name << " (AURC " << fixed3(g.aurc)
        << ")\n\n| threshold | accepted | coverage | accuracy |\n|---|---|---|---|\n";
    for (const CoveragePoint& p : listed_rows(g.curve)) {
      out << "| " << fixed(p.threshold, 4) << " | " << p.accepted << " | " << fixed3(p.coverage)
          << " | " << fixed3(p.accuracy) << " |\n";
    }
  };
  for (const ConfidenceGroup& g : c.fields) curve_table(g, g.name);
  for (const ConfidenceGroup& g : c.types) curve_table(g, "type: " + g.name);
  curve_table(c.all, "all");
}

}  // namespace

std::string confidence_markdown(const ConfidenceEvaluation& c, const std::string& reliability_png,
                                const std::string& risk_coverage_png) {
  std::ostringstream out;
  out << "\n## Confidences\n\n"
      << c.all.values.size() << " values with a confidence; " << correct_rule(c.correct_at) << ".";
  if (c.without_confidence > 0)
    out << " " << c.without_confidence << " values without a confidence are left out.";
  out << " A threshold accepts the values at or above it; the others go to review (docs/eval.md, "
         "\"Confidences\").\n\n"
      << "| group | values | accuracy | AURC | ECE | threshold | to review | wrong | wrong in "
         "review |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
  const auto row = [&](const ConfidenceGroup& g, const std::string& name) {
    out << "| " << name << " | " << g.values.size() << " | " << accuracy_of(g) << " | "
        << fixed3(g.aurc) << " | " << fixed3(g.calibration.ece) << " | ";
    if (g.at_threshold) {
      const ThresholdCheck& t = *g.at_threshold;
      out << threshold_text(t) << " | " << t.under << " | " << t.wrong << " | " << t.wrong_under
          << " |\n";
    } else {
      out << "- | - | " << g.values.size() - g.correct << " | - |\n";
    }
  };
  for (const ConfidenceGroup& g : c.fields) row(g, g.name);
  for (const ConfidenceGroup& g : c.types) row(g, "type: " + g.name);
  row(c.all, "all");
  if (!reliability_png.empty()) {
    out << "\n![Reliability diagram](" << reliability_png << ")\n\n![Risk-coverage curves]("
        << risk_coverage_png << ")\n";
  }
  markdown_target_fits(out, c);
  if (!c.thresholds.empty()) {
    out << "\nReview queue at these thresholds over every page predicted: " << c.review_total
        << " values";
    for (const auto& [field, n] : c.review)
      out << (field == c.review.begin()->first ? " (" : ", ") << field << " " << n;
    out << (c.review.empty() ? ".\n" : ").\n");
  }
  markdown_calibration_bins(out, c);
  markdown_risk_coverage(out, c);
  return out.str();
}

}  // namespace docsift::eval
