// evaluate.h's reports of an Evaluation: the JSON report, the Markdown report (with a baseline's
// columns when given) and the short table for stdout.
#include "docsift/eval/evaluate.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

#include "docsift/extract/scoring_rules.h"
#include "docsift/names.h"

namespace docsift::eval {

namespace {

nlohmann::json counts_json(const Counts& c) {
  return {{"tp", c.tp},
          {"fp", c.fp},
          {"fn", c.fn},
          {"tn", c.tn},
          {"precision", c.precision()},
          {"recall", c.recall()},
          {"f1", c.f1()}};
}

// A value in a Markdown table cell: pipes escaped, line breaks as spaces.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out.empty() ? " " : out;
}

// The baseline's accuracy for `field` ("" when it has none).
std::optional<double> baseline_field(const nlohmann::json* baseline, const std::string& field) {
  if (baseline == nullptr || !baseline->contains("fields") || !(*baseline)["fields"].is_object())
    return std::nullopt;
  const auto& fields = (*baseline)["fields"];
  if (!fields.contains(field) || !fields[field].is_number()) return std::nullopt;
  return fields[field].get<double>();
}

std::string signed_fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.3f", value);
  return buffer;
}

}  // namespace

std::string fixed(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

nlohmann::json to_json(const Evaluation& e, std::size_t misses_shown) {
  nlohmann::json images = nlohmann::json::array();
  for (const ImageScore& s : e.images) {
    images.push_back({{"image", s.image},
                      {"document_type", s.document_type},
                      {"accuracy", s.accuracy},
                      {"predicted", s.predicted},
                      {"fields", s.fields}});
  }
  nlohmann::json field_stats = nlohmann::json::object(), misses = nlohmann::json::object();
  for (const std::string& f : e.fields) {
    const auto acc = e.field_accuracy.find(f);
    if (acc == e.field_accuracy.end()) continue;
    field_stats[f] = counts_json(e.field_counts.at(f));
    field_stats[f]["accuracy"] = acc->second;
    const auto count = e.field_miss_count.find(f);
    field_stats[f]["misses"] = count == e.field_miss_count.end() ? 0 : count->second;
    const auto m = e.field_misses.find(f);
    if (m == e.field_misses.end() || m->second.empty()) continue;
    nlohmann::json listed = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min(m->second.size(), misses_shown); ++i) {
      const Miss& miss = m->second[i];
      // No prediction is null, not "": an empty value is a prediction of nothing.
      listed.push_back(
          {{"image", miss.image},
           {"truth", miss.truth},
           {"predicted", miss.has_prediction ? nlohmann::json(miss.predicted) : nlohmann::json()},
           {"score", miss.score}});
    }
    misses[f] = listed;
  }
  nlohmann::json type_stats = nlohmann::json::object();
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const auto c = e.document_type_counts.find(type);
    type_stats[type] = counts_json(c == e.document_type_counts.end() ? Counts{} : c->second);
    type_stats[type]["accuracy"] = acc;
  }
  return {{"rules", name_of(extract::kRuleSetNames, e.rules.rules)},
          {"date_order", name_of(extract::kDateOrderNames, e.rules.date_order)},
          {"list_match", name_of(extract::kListMatchNames, e.rules.list_match)},
          {"money_tolerance", e.rules.money_tolerance},
          {"overall", e.overall},
          {"coverage", e.coverage()},
          {"band", band(e.overall)},
          {"image_median", e.image_median},
          {"overall_counts", counts_json(e.counts)},
          {"images_scored", e.images.size()},
          {"fields_left_out", e.fields_left_out},
          {"fields_not_predicted", e.fields_not_predicted},
          {"fields", e.field_accuracy},
          {"field_stats", field_stats},
          {"misses", misses},
          {"misses_shown_per_field", misses_shown},
          {"document_types", e.document_type_accuracy},
          {"document_type_stats", type_stats},
          {"missing_predictions", e.missing_predictions},
          {"unexpected_predictions", e.unexpected_predictions},
          {"images", images}};
}

std::string to_table(const Evaluation& e) {
  std::ostringstream out;
  out << "field                    accuracy  precision  recall     F1\n";
  for (const std::string& f : e.fields) {
    const auto it = e.field_accuracy.find(f);
    out << f << std::string(f.size() < 25 ? 25 - f.size() : 1, ' ');
    if (it == e.field_accuracy.end()) {
      out << "   -\n";
      continue;
    }
    const Counts& c = e.field_counts.at(f);
    out << fixed(it->second) << "     " << fixed(c.precision()) << "      " << fixed(c.recall())
        << "  " << fixed(c.f1()) << '\n';
  }
  out << "\ndocument type            accuracy  F1\n";
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const std::string name = type.empty() ? "(none)" : type;
    const auto c = e.document_type_counts.find(type);
    out << name << std::string(name.size() < 25 ? 25 - name.size() : 1, ' ') << fixed(acc)
        << "     " << (c == e.document_type_counts.end() ? std::string("-") : fixed(c->second.f1()))
        << '\n';
  }
  out << "\noverall " << fixed(e.overall) << " (" << band(e.overall) << ") over " << e.images.size()
      << " images";
  if (!e.missing_predictions.empty()) {
    out << "; " << e.missing_predictions.size()
        << " without a prediction (0 in each of their fields; coverage " << fixed(e.coverage())
        << ")";
  }
  if (!e.unexpected_predictions.empty())
    out << "; " << e.unexpected_predictions.size() << " predictions not in the ground truth";
  out << "\nmedian image " << fixed(e.image_median) << "; precision " << fixed(e.counts.precision())
      << ", recall " << fixed(e.counts.recall()) << ", F1 " << fixed(e.counts.f1()) << "; rules "
      << name_of(extract::kRuleSetNames, e.rules.rules) << '\n';
  return out.str();
}

std::string to_markdown(const Evaluation& e, const nlohmann::json* baseline,
                        std::size_t misses_shown) {
  std::ostringstream out;
  out << "# docsift evaluation\n\n**Overall accuracy: " << fixed(e.overall) << "** ("
      << band(e.overall) << ", " << e.images.size() << " images; rules "
      << name_of(extract::kRuleSetNames, e.rules.rules) << ")";
  if (!e.missing_predictions.empty()) {
    out << "; " << e.missing_predictions.size() << " without a prediction (coverage "
        << fixed(e.coverage()) << ")";
  }
  if (baseline != nullptr && baseline->contains("overall") && (*baseline)["overall"].is_number()) {
    const double before = (*baseline)["overall"].get<double>();
    out << "; baseline " << fixed(before) << ", delta " << signed_fixed(e.overall - before);
  }
  out << "\n\nMedian image accuracy " << fixed(e.image_median)
      << "; over every field case precision " << fixed(e.counts.precision()) << ", recall "
      << fixed(e.counts.recall()) << ", F1 " << fixed(e.counts.f1())
      << ".\n\n| field | accuracy | precision | recall | F1 | TP | FP | FN | TN |";
  out << (baseline != nullptr
              ? " baseline | delta |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
              : "\n|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& f : e.fields) {
    const auto it = e.field_accuracy.find(f);
    if (it == e.field_accuracy.end()) {
      out << "| " << f << " | - | - | - | - | - | - | - | - |"
          << (baseline != nullptr ? " - | - |\n" : "\n");
      continue;
    }
    const Counts& c = e.field_counts.at(f);
    out << "| " << f << " | " << fixed(it->second) << " | " << fixed(c.precision()) << " | "
        << fixed(c.recall()) << " | " << fixed(c.f1()) << " | " << fixed(c.tp, 1) << " | "
        << fixed(c.fp, 1) << " | " << fixed(c.fn, 1) << " | " << fixed(c.tn, 1) << " |";
    if (baseline != nullptr) {
      const auto before = baseline_field(baseline, f);
      out << ' ' << (before ? fixed(*before) : "-") << " | "
          << (before ? signed_fixed(it->second - *before) : "-") << " |";
    }
    out << '\n';
  }
  out << "\n| document type | accuracy | F1 |\n|---|---|---|\n";
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const auto c = e.document_type_counts.find(type);
    out << "| " << (type.empty() ? "(none)" : type) << " | " << fixed(acc) << " | "
        << (c == e.document_type_counts.end() ? std::string("-") : fixed(c->second.f1())) << " |\n";
  }
  out << "\n| image | document type | accuracy |\n|---|---|---|\n";
  for (const ImageScore& s : e.images) {
    out << "| " << s.image << " | " << s.document_type << " | "
        << (s.predicted ? fixed(s.accuracy) : "no prediction") << " |\n";
  }
  bool any_miss = false;
  for (const std::string& f : e.fields) {
    const auto m = e.field_misses.find(f);
    if (m == e.field_misses.end() || m->second.empty()) continue;
    if (!any_miss)
      out << "\n## Misses\n\nPer field, worst first, at most " << misses_shown << " each.\n";
    any_miss = true;
    const std::size_t total = e.field_miss_count.at(f);
    out << "\n### " << f << " (" << total << (total == 1 ? " miss" : " misses") << ")\n\n"
        << "| image | truth | predicted | score |\n|---|---|---|---|\n";
    for (std::size_t i = 0; i < std::min(m->second.size(), misses_shown); ++i) {
      const Miss& miss = m->second[i];
      out << "| " << cell(miss.image) << " | " << cell(miss.truth) << " | "
          << (miss.has_prediction ? cell(miss.predicted) : "*no prediction*") << " | "
          << fixed(miss.score) << " |\n";
    }
  }
  if (!e.unexpected_predictions.empty()) {
    out << "\nPredictions for images not in the ground truth:";
    for (const auto& image : e.unexpected_predictions) out << ' ' << image;
    out << '\n';
  }
  return out.str();
}

}  // namespace docsift::eval
