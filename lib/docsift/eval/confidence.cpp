#include "docsift/eval/confidence.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "docsift/error.h"
#include "docsift/extract/field.h"

namespace docsift::eval {

namespace {

namespace fs = std::filesystem;

// A confidence must be a probability; anything else is a malformed input, named where it is.
double checked_confidence(double value, const std::string& where) {
  if (!std::isfinite(value) || value < 0 || value > 1) {
    throw MalformedInputError(where + ": confidence " + std::to_string(value) + " is not in [0, 1]");
  }
  return value;
}

// The shortest text that reads back as the same double, so that a threshold written to YAML and
// read back by `run --config` splits the values exactly where eval split them.
std::string exact(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

// Field types that give partial credit: text (ANLS) and lists (F1). The others score 1 or 0 (a
// date a year off, 0.8, is a wrong date).
bool partial_credit(extract::FieldType type) {
  return type == extract::FieldType::kText || type == extract::FieldType::kList;
}

std::optional<double> found_in(const std::map<std::string, double>& fields, const std::string& field) {
  const auto it = fields.find(field);
  return it == fields.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace

Confidences read_confidences_csv(const fs::path& path, const std::string& role) {
  const Records cells = read_records_csv(path, role);
  Confidences out;
  for (const auto& [image, fields] : cells) {
    auto& row = out[image];
    for (const auto& [field, text] : fields) {
      if (text.find_first_not_of(" \t") == std::string::npos) continue;  // no value, no confidence
      const std::string where = path.string() + ": " + image + ", " + field;
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || std::string_view(end).find_first_not_of(" \t") != std::string_view::npos) {
        throw MalformedInputError(where + ": '" + text + "' is not a number");
      }
      row[field] = checked_confidence(value, where);
    }
  }
  return out;
}

std::vector<CoveragePoint> risk_coverage(std::vector<Judged> values) {
  std::sort(values.begin(), values.end(), [](const Judged& a, const Judged& b) { return a.confidence > b.confidence; });
  std::vector<CoveragePoint> curve;
  std::size_t accepted = 0, correct = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    ++accepted;
    correct += values[i].correct ? 1 : 0;
    // A row at the end of each group of equal confidences: a threshold accepts all of them or none.
    if (i + 1 < values.size() && values[i + 1].confidence == values[i].confidence) continue;
    CoveragePoint p;
    p.threshold = values[i].confidence;
    p.accepted = accepted;
    p.correct = correct;
    p.coverage = static_cast<double>(accepted) / static_cast<double>(values.size());
    p.accuracy = static_cast<double>(correct) / static_cast<double>(accepted);
    curve.push_back(p);
  }
  return curve;
}

double area_under_risk_coverage(const std::vector<CoveragePoint>& curve) {
  double area = 0, previous = 0;
  for (const CoveragePoint& p : curve) {
    area += (p.coverage - previous) * (1 - p.accuracy);
    previous = p.coverage;
  }
  return area;
}

Calibration calibrate(const std::vector<Judged>& values) {
  Calibration c;
  std::array<double, kCalibrationBins> confidence_sum{}, correct_sum{};
  for (int k = 0; k < kCalibrationBins; ++k) {
    c.bins[k].lower = static_cast<double>(k) / kCalibrationBins;
    c.bins[k].upper = static_cast<double>(k + 1) / kCalibrationBins;
  }
  for (const Judged& v : values) {
    const int k = std::clamp(static_cast<int>(std::floor(v.confidence * kCalibrationBins)), 0, kCalibrationBins - 1);
    ++c.bins[k].count;
    confidence_sum[k] += v.confidence;
    correct_sum[k] += v.correct ? 1 : 0;
  }
  for (int k = 0; k < kCalibrationBins; ++k) {
    CalibrationBin& b = c.bins[k];
    if (b.count == 0) continue;
    b.mean_confidence = confidence_sum[k] / static_cast<double>(b.count);
    b.accuracy = correct_sum[k] / static_cast<double>(b.count);
    c.ece += static_cast<double>(b.count) / static_cast<double>(values.size()) * std::abs(b.accuracy - b.mean_confidence);
  }
  return c;
}

std::size_t errors_allowed(std::size_t accepted, double target) {
  // The small epsilon keeps 100 × (1 − 0.99), 0.99999999999999989 in doubles, at 1.
  return static_cast<std::size_t>(std::floor(static_cast<double>(accepted) * (1 - target) + 1e-9));
}

namespace {

// Whether `correct` of `accepted` reach `target`, with the same epsilon as errors_allowed.
bool reaches(std::size_t correct, std::size_t accepted, double target) {
  return accepted > 0 && static_cast<double>(correct) + 1e-9 >= target * static_cast<double>(accepted);
}

}  // namespace

TargetFit fit_threshold(const std::vector<CoveragePoint>& curve, std::size_t values, double target) {
  TargetFit fit;
  fit.target = target;
  // Rows run from the highest threshold to the lowest: the last that reaches is the lowest.
  const CoveragePoint* best = nullptr;
  for (const CoveragePoint& p : curve) {
    if (reaches(p.correct, p.accepted, target)) best = &p;
  }
  if (best != nullptr) {
    fit.reached = true;
    fit.threshold = best->threshold;
    fit.accepted = best->accepted;
    fit.correct = best->correct;
  } else {
    // Threshold 1 accepts only the values of confidence 1, if any (the first row, then).
    if (!curve.empty() && curve.front().threshold >= 1) {
      fit.accepted = curve.front().accepted;
      fit.correct = curve.front().correct;
    }
  }
  fit.coverage = values == 0 ? 0 : static_cast<double>(fit.accepted) / static_cast<double>(values);
  fit.accuracy = fit.accepted == 0 ? 0 : static_cast<double>(fit.correct) / static_cast<double>(fit.accepted);
  fit.errors_allowed = errors_allowed(fit.accepted, target);
  return fit;
}

ThresholdCheck check_threshold(const std::vector<Judged>& values, double threshold) {
  ThresholdCheck c;
  c.threshold = threshold;
  for (const Judged& v : values) {
    const bool under = v.confidence < threshold;
    c.under += under ? 1 : 0;
    c.wrong += v.correct ? 0 : 1;
    c.wrong_under += (under && !v.correct) ? 1 : 0;
  }
  return c;
}

std::optional<double> Thresholds::of(const std::string& field) const {
  const auto it = fields.find(field);
  if (it != fields.end()) return it->second;
  return default_value;
}

void parse_threshold(const std::string& text, Thresholds& into) {
  const auto eq = text.find('=');
  const std::string field = eq == std::string::npos ? "" : text.substr(0, eq);
  const std::string number = eq == std::string::npos ? text : text.substr(eq + 1);
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(value >= 0 && value <= 1) || (eq != std::string::npos && field.empty())) {
    throw ConfigError("--threshold " + text + ": expected a number in [0, 1] (every field) or FIELD=X");
  }
  if (field.empty()) {
    into.default_value = value;
  } else {
    into.fields[field] = value;
  }
}

std::string thresholds_yaml(const Thresholds& t, const std::string& comment) {
  std::ostringstream out;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out << "# " << line << '\n';
  // The keys lib/docsift/config/schema.cpp reads: review.threshold for every field, and
  // review.fields, per-field thresholds that replace it.
  out << "review:\n  threshold: " << exact(t.default_value.value_or(0)) << '\n';
  if (!t.fields.empty()) {
    out << "  fields:\n";
    for (const auto& [field, value] : t.fields) out << "    " << field << ": " << exact(value) << '\n';
  }
  return out.str();
}

namespace {

ConfidenceGroup make_group(std::string name, std::vector<Judged> values) {
  ConfidenceGroup g;
  g.name = std::move(name);
  for (const Judged& v : values) g.correct += v.correct ? 1 : 0;
  g.curve = risk_coverage(values);
  g.aurc = area_under_risk_coverage(g.curve);
  g.calibration = calibrate(values);
  g.values = std::move(values);
  return g;
}

// Under per-field thresholds, a group of several fields (a type, all) counts each value under its
// own field's threshold.
struct Tagged {
  std::string field;
  Judged value;
};

void check_group(ConfidenceGroup& g, const std::vector<Tagged>& tagged, const Thresholds& thresholds) {
  ThresholdCheck c;
  bool any = false;
  for (const Tagged& t : tagged) {
    const auto threshold = thresholds.of(t.field);
    c.wrong += t.value.correct ? 0 : 1;
    if (!threshold) continue;
    any = true;
    const bool under = t.value.confidence < *threshold;
    c.under += under ? 1 : 0;
    c.wrong_under += (under && !t.value.correct) ? 1 : 0;
  }
  if (!any) return;
  // One threshold for the group only when its fields share it; else NaN ("per field").
  std::optional<double> shared;
  bool same = true;
  for (const Tagged& t : tagged) {
    const auto threshold = thresholds.of(t.field);
    if (!threshold) continue;
    if (shared && *shared != *threshold) same = false;
    shared = threshold;
  }
  c.threshold = same && shared ? *shared : std::nan("");
  g.at_threshold = c;
}

}  // namespace

ConfidenceEvaluation evaluate_confidence(const extract::FieldSchema& schema, const Evaluation& evaluation,
                                         const Records& predictions, const Confidences& confidences,
                                         const ConfidenceOptions& options) {
  ConfidenceEvaluation c;
  c.correct_at = options.correct_at;
  c.target_accuracy = options.target_accuracy;
  std::map<std::string, std::vector<Judged>> by_field;
  std::map<extract::FieldType, std::vector<Tagged>> by_type;
  std::vector<Tagged> all;
  for (const ImageScore& image : evaluation.images) {
    if (!image.predicted) continue;
    const auto& values = predictions.at(image.image);
    const auto conf_it = confidences.find(image.image);
    for (const auto& [field, score] : image.fields) {
      const auto value = values.find(field);
      if (value == values.end() || extract::is_missing(value->second)) continue;  // no value, no confidence
      const auto field_conf = conf_it == confidences.end() ? std::nullopt : found_in(conf_it->second, field);
      if (!field_conf) {
        ++c.without_confidence;
        continue;
      }
      const extract::Field* f = schema.find(field);
      const double cut = f != nullptr && partial_credit(f->type) ? options.correct_at : 1.0;
      const Judged judged{*field_conf, score >= cut};
      by_field[field].push_back(judged);
      if (f != nullptr) by_type[f->type].push_back({field, judged});
      all.push_back({field, judged});
    }
  }

  std::vector<Judged> all_values;
  for (const Tagged& t : all) all_values.push_back(t.value);
  c.all = make_group("all", std::move(all_values));
  for (const std::string& field : evaluation.fields) {
    const auto it = by_field.find(field);
    if (it != by_field.end()) c.fields.push_back(make_group(field, it->second));
  }
  for (const auto& [type, tagged] : by_type) {
    std::vector<Judged> values;
    for (const Tagged& t : tagged) values.push_back(t.value);
    c.types.push_back(make_group(std::string(extract::to_string(type)), std::move(values)));
  }

  if (options.target_accuracy) {
    const double target = *options.target_accuracy;
    for (ConfidenceGroup& g : c.fields) {
      g.fit = fit_threshold(g.curve, g.values.size(), target);
      c.thresholds.fields[g.name] = g.fit->threshold;
    }
    for (ConfidenceGroup& g : c.types) g.fit = fit_threshold(g.curve, g.values.size(), target);
    c.all.fit = fit_threshold(c.all.curve, c.all.values.size(), target);
    // Fields with no value to fit on get the threshold fitted over every value.
    c.thresholds.default_value = c.all.fit->threshold;
    c.thresholds_fitted = true;
  } else {
    c.thresholds = options.thresholds;
  }

  if (!c.thresholds.empty()) {
    for (ConfidenceGroup& g : c.fields) {
      std::vector<Tagged> tagged;
      for (const Judged& v : g.values) tagged.push_back({g.name, v});
      check_group(g, tagged, c.thresholds);
    }
    for (ConfidenceGroup& g : c.types) {
      for (const auto& [type, tagged] : by_type) {
        if (extract::to_string(type) == g.name) check_group(g, tagged, c.thresholds);
      }
    }
    check_group(c.all, all, c.thresholds);
    // The queue a run makes (lib/docsift/batch/outputs.cpp, mark_review): on every page predicted
    // that has confidences, scored or not, each value under its field's threshold, or with no
    // confidence at all.
    for (const auto& [image, fields] : confidences) {
      const auto values = predictions.find(image);
      if (values == predictions.end()) continue;
      for (const auto& [field, value] : values->second) {
        if (extract::is_missing(value)) continue;
        const auto threshold = c.thresholds.of(field);
        const auto confidence = found_in(fields, field);
        if (threshold && (!confidence || *confidence < *threshold)) {
          ++c.review[field];
          ++c.review_total;
        }
      }
    }
  }
  return c;
}

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

nlohmann::json optional_number(double value) { return std::isnan(value) ? nlohmann::json() : nlohmann::json(value); }

nlohmann::json group_json(const ConfidenceGroup& g) {
  nlohmann::json bins = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const CalibrationBin& b : g.calibration.bins) {
    bins.push_back({{"lower", b.lower}, {"upper", b.upper}, {"count", b.count}, {"mean_confidence", b.mean_confidence},
                    {"accuracy", b.accuracy}});
  }
  for (const CoveragePoint& p : listed_rows(g.curve)) {
    rows.push_back({{"threshold", p.threshold}, {"accepted", p.accepted}, {"coverage", p.coverage}, {"accuracy", p.accuracy}});
  }
  nlohmann::json out = {{"values", g.values.size()},
                        {"correct", g.correct},
                        {"accuracy", g.values.empty() ? 0.0 : static_cast<double>(g.correct) / static_cast<double>(g.values.size())},
                        {"aurc", g.aurc},
                        {"ece", g.calibration.ece},
                        {"bins", bins},
                        {"risk_coverage", rows},
                        {"risk_coverage_rows", g.curve.size() <= kCurveRowsListed ? "each threshold" : "grid of 0.01"}};
  if (g.at_threshold) {
    const ThresholdCheck& t = *g.at_threshold;
    out["at_threshold"] = {{"threshold", optional_number(t.threshold)}, {"under", t.under}, {"wrong", t.wrong},
                           {"wrong_under", t.wrong_under}};
  }
  if (g.fit) {
    const TargetFit& f = *g.fit;
    out["fit"] = {{"target", f.target},     {"reached", f.reached},   {"threshold", f.threshold},
                  {"accepted", f.accepted}, {"coverage", f.coverage}, {"accuracy", f.accuracy},
                  {"errors_allowed", f.errors_allowed}};
  }
  return out;
}

std::string fixed3(double value) { return fixed(value, 3); }

// A column of `width` characters, left-aligned, at least one space after.
std::string pad(const std::string& s, std::size_t width) { return s + std::string(s.size() < width ? width - s.size() : 1, ' '); }

std::string accuracy_of(const ConfidenceGroup& g) {
  return g.values.empty() ? "-" : fixed3(static_cast<double>(g.correct) / static_cast<double>(g.values.size()));
}

std::string threshold_text(const ThresholdCheck& t) { return std::isnan(t.threshold) ? "per field" : fixed(t.threshold, 4); }

std::string correct_rule(double correct_at) {
  return "a value is correct when it scores 1 (text and lists: at least " + fixed3(correct_at) + ")";
}

}  // namespace

nlohmann::json confidence_json(const ConfidenceEvaluation& c) {
  nlohmann::json fields = nlohmann::json::object(), types = nlohmann::json::object();
  for (const ConfidenceGroup& g : c.fields) fields[g.name] = group_json(g);
  for (const ConfidenceGroup& g : c.types) types[g.name] = group_json(g);
  nlohmann::json thresholds = {{"default", c.thresholds.default_value ? nlohmann::json(*c.thresholds.default_value) : nlohmann::json()},
                               {"fields", c.thresholds.fields},
                               {"fitted", c.thresholds_fitted}};
  return {{"correct_at", c.correct_at},
          {"correct_rule", correct_rule(c.correct_at)},
          {"values", c.all.values.size()},
          {"without_confidence", c.without_confidence},
          {"target_accuracy", c.target_accuracy ? nlohmann::json(*c.target_accuracy) : nlohmann::json()},
          {"thresholds", thresholds},
          {"review", {{"total", c.review_total}, {"fields", c.review}}},
          {"fields", fields},
          {"types", types},
          {"all", group_json(c.all)}};
}

std::string confidence_table(const ConfidenceEvaluation& c) {
  std::ostringstream out;
  out << "\nconfidence: " << c.all.values.size() << " values; " << correct_rule(c.correct_at);
  if (c.without_confidence > 0) out << "; " << c.without_confidence << " values without a confidence left out";
  out << "\n" << pad("field", 25) << "values  accuracy  AURC   ECE    threshold  review  wrong  wrong in review\n";
  const auto row = [&](const ConfidenceGroup& g, const std::string& name) {
    out << pad(name, 25) << pad(std::to_string(g.values.size()), 8) << pad(accuracy_of(g), 10) << pad(fixed3(g.aurc), 7)
        << pad(fixed3(g.calibration.ece), 7);
    if (g.at_threshold) {
      const ThresholdCheck& t = *g.at_threshold;
      out << pad(threshold_text(t), 11) << pad(std::to_string(t.under), 8) << pad(std::to_string(t.wrong), 7)
          << t.wrong_under << " of " << t.wrong;
    } else {
      out << pad("-", 11) << pad("-", 8) << pad(std::to_string(g.values.size() - g.correct), 7) << "-";
    }
    out << '\n';
  };
  for (const ConfidenceGroup& g : c.fields) row(g, g.name);
  for (const ConfidenceGroup& g : c.types) row(g, "(" + g.name + ")");
  row(c.all, "(all)");
  if (c.target_accuracy) {
    out << "\ntarget accuracy " << fixed3(*c.target_accuracy) << ": the lowest threshold whose accepted values reach it\n"
        << pad("field", 25) << "threshold  accepted  coverage  accuracy  errors allowed\n";
    const auto fit_row = [&](const ConfidenceGroup& g, const std::string& name) {
      const TargetFit& f = *g.fit;
      out << pad(name, 25) << pad(fixed(f.threshold, 4), 11) << pad(std::to_string(f.accepted) + "/" + std::to_string(g.values.size()), 10)
          << pad(fixed3(f.coverage), 10) << pad(f.accepted == 0 ? "-" : fixed3(f.accuracy), 10) << f.errors_allowed
          << (f.reached ? "" : "  (not reached: every value below 1 to review)") << '\n';
    };
    for (const ConfidenceGroup& g : c.fields) fit_row(g, g.name);
    fit_row(c.all, "(all; the default)");
  }
  if (!c.thresholds.empty()) {
    out << "review queue at these thresholds, over every page predicted: " << c.review_total << " values\n";
  }
  return out.str();
}

std::string confidence_markdown(const ConfidenceEvaluation& c, const std::string& reliability_png,
                                const std::string& risk_coverage_png) {
  std::ostringstream out;
  out << "\n## Confidences\n\n" << c.all.values.size() << " values with a confidence; " << correct_rule(c.correct_at) << ".";
  if (c.without_confidence > 0) out << " " << c.without_confidence << " values without a confidence are left out.";
  out << " A threshold accepts the values at or above it; the others go to review (docs/eval.md, \"Confidences\").\n\n"
      << "| group | values | accuracy | AURC | ECE | threshold | to review | wrong | wrong in review |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
  const auto row = [&](const ConfidenceGroup& g, const std::string& name) {
    out << "| " << name << " | " << g.values.size() << " | " << accuracy_of(g) << " | " << fixed3(g.aurc) << " | "
        << fixed3(g.calibration.ece) << " | ";
    if (g.at_threshold) {
      const ThresholdCheck& t = *g.at_threshold;
      out << threshold_text(t) << " | " << t.under << " | " << t.wrong << " | " << t.wrong_under << " |\n";
    } else {
      out << "- | - | " << g.values.size() - g.correct << " | - |\n";
    }
  };
  for (const ConfidenceGroup& g : c.fields) row(g, g.name);
  for (const ConfidenceGroup& g : c.types) row(g, "type: " + g.name);
  row(c.all, "all");
  if (!reliability_png.empty()) {
    out << "\n![Reliability diagram](" << reliability_png << ")\n\n![Risk-coverage curves](" << risk_coverage_png << ")\n";
  }
  if (c.target_accuracy) {
    out << "\n### Target accuracy " << fixed3(*c.target_accuracy) << "\n\n"
        << "The lowest threshold whose accepted values reach the target on this truth, the coverage it keeps, and how "
           "many wrong values the target allows among those accepted.\n\n"
        << "| group | threshold | reached | accepted | coverage | accuracy | errors allowed |\n|---|---|---|---|---|---|---|\n";
    const auto fit_row = [&](const ConfidenceGroup& g, const std::string& name) {
      const TargetFit& f = *g.fit;
      out << "| " << name << " | " << fixed(f.threshold, 4) << " | " << (f.reached ? "yes" : "no") << " | " << f.accepted
          << " of " << g.values.size() << " | " << fixed3(f.coverage) << " | " << (f.accepted == 0 ? "-" : fixed3(f.accuracy))
          << " | " << f.errors_allowed << " |\n";
    };
    for (const ConfidenceGroup& g : c.fields) fit_row(g, g.name);
    for (const ConfidenceGroup& g : c.types) fit_row(g, "type: " + g.name);
    fit_row(c.all, "all (the default)");
  }
  if (!c.thresholds.empty()) {
    out << "\nReview queue at these thresholds over every page predicted: " << c.review_total << " values";
    for (const auto& [field, n] : c.review) out << (field == c.review.begin()->first ? " (" : ", ") << field << " " << n;
    out << (c.review.empty() ? ".\n" : ").\n");
  }
  out << "\n### Calibration bins\n\nPer bin of confidence: accuracy / mean confidence (values).\n\n| group |";
  for (const CalibrationBin& b : c.all.calibration.bins) out << ' ' << fixed(b.lower, 1) << "-" << fixed(b.upper, 1) << " |";
  out << "\n|---|";
  for (int k = 0; k < kCalibrationBins; ++k) out << "---|";
  out << '\n';
  const auto bins_row = [&](const ConfidenceGroup& g, const std::string& name) {
    out << "| " << name << " |";
    for (const CalibrationBin& b : g.calibration.bins) {
      if (b.count == 0) {
        out << " |";
      } else {
        out << ' ' << fixed3(b.accuracy) << " / " << fixed3(b.mean_confidence) << " (" << b.count << ") |";
      }
    }
    out << '\n';
  };
  for (const ConfidenceGroup& g : c.fields) bins_row(g, g.name);
  for (const ConfidenceGroup& g : c.types) bins_row(g, "type: " + g.name);
  bins_row(c.all, "all");
  out << "\n### Risk-coverage tables\n\nPer threshold (each distinct confidence, or a grid of 0.01 above "
      << kCurveRowsListed << " of them): the values it accepts, their share, and their accuracy.\n";
  const auto curve_table = [&](const ConfidenceGroup& g, const std::string& name) {
    out << "\n#### " << name << " (AURC " << fixed3(g.aurc) << ")\n\n| threshold | accepted | coverage | accuracy |\n|---|---|---|---|\n";
    for (const CoveragePoint& p : listed_rows(g.curve)) {
      out << "| " << fixed(p.threshold, 4) << " | " << p.accepted << " | " << fixed3(p.coverage) << " | " << fixed3(p.accuracy)
          << " |\n";
    }
  };
  for (const ConfidenceGroup& g : c.fields) curve_table(g, g.name);
  for (const ConfidenceGroup& g : c.types) curve_table(g, "type: " + g.name);
  curve_table(c.all, "all");
  return out.str();
}

}  // namespace docsift::eval
