#include "docsift/ocr/calibration.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "docsift/error.h"

namespace docsift::ocr {

std::string_view builtin_calibration_text();  // generated from configs/fields/ocr-calibration.yaml

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = {
      "word_min",  "word_mean",  "labelled",      "label_fuzzy",  "sums_agree",       "repaired",
      "contested", "margin",     "second_agreed", "second_taken", "second_disagreed", "exact",
      "repeated",  "legal",      "word_min_top", "known",       "listed",
      "reader_agreed", "reader_disagreed", "reader_taken"};
  return names;
}

std::map<std::string, double> feature_values(const Evidence& e) {
  const auto flag = [](bool b) { return b ? 1.0 : 0.0; };
  // The rules' margins are in points of their own scales (a total's labels weigh 100, a date's
  // position 10): log-scaled so that one weight serves a kind, 1 at a margin of 1000.
  const double margin = std::log1p(std::clamp(e.margin, 0.0, 1000.0)) / std::log1p(1000.0);
  return {{"word_min", e.word_min / 100.0},
          {"word_mean", e.word_mean / 100.0},
          {"labelled", flag(e.labelled)},
          {"label_fuzzy", flag(e.label_fuzzy)},
          {"sums_agree", flag(e.sums_agree)},
          {"repaired", flag(e.repaired)},
          {"contested", flag(e.candidates > 1)},
          {"margin", margin},
          {"second_agreed", flag(e.second_read && e.second_agreed)},
          {"second_taken", flag(e.second_read && e.second_taken)},
          {"second_disagreed", flag(e.second_read && !e.second_agreed && !e.second_taken)},
          {"exact", flag(e.exact)},
          {"repeated", flag(e.repeated)},
          {"legal", flag(e.legal)},
          // The top of word_min's range apart (0 under 85, 1 at 100): on the receipts a value read
          // from words all over 90 is right far more often than a line in word_min's logit gives.
          {"word_min_top", std::clamp((e.word_min - 85.0) / 15.0, 0.0, 1.0)},
          // A seller found in the user's list (ocr.known_sellers), and whether there was a list:
          // a value not in a list is less sure than one read with no list to check it against.
          {"known", flag(e.known)},
          {"listed", flag(e.listed)},
          // The second recognizer's reading of the value's box (ocr.recognizer: both; cross_read.h).
          {"reader_agreed", flag(e.reader_read && e.reader_agreed)},
          {"reader_disagreed", flag(e.reader_read && !e.reader_agreed && !e.reader_taken)},
          {"reader_taken", flag(e.reader_read && e.reader_taken)}};
}

double Calibrator::probability(const Evidence& evidence) const {
  const std::map<std::string, double> x = feature_values(evidence);
  double z = intercept;
  for (const auto& [name, weight] : weights) z += weight * x.at(name);
  return 1.0 / (1.0 + std::exp(-z));
}

std::string Calibration::kind_of(const std::string& field) const {
  const auto kind = field_kinds.find(field);
  return kind == field_kinds.end() ? "text" : kind->second;
}

double Calibration::probability(const std::string& field, const Evidence& evidence) const {
  const auto kind = field_kinds.find(field);
  const auto model = kinds.find(kind == field_kinds.end() ? "text" : kind->second);
  if (model == kinds.end()) {
    throw ConfigError(source + ": no parameters for kind '" +
                      (kind == field_kinds.end() ? std::string("text") : kind->second) + "' (field " + field + ")");
  }
  return model->second.probability(evidence);
}

Calibration load_calibration(const std::string& source) {
  constexpr std::string_view kBuiltin = "builtin:";
  YAML::Node root;
  try {
    if (source.rfind(kBuiltin, 0) == 0) {
      if (source != "builtin:ocr-calibration")
        throw ConfigError(source + ": unknown built-in calibration (builtin:ocr-calibration is)");
      root = YAML::Load(std::string(builtin_calibration_text()));
    } else {
      root = YAML::LoadFile(source);
    }
  } catch (const YAML::BadFile&) {
    throw ConfigError(source + ": cannot read the OCR calibration file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap() || !root["kinds"] || !root["kinds"].IsMap()) {
    throw ConfigError(source + ": expected kinds: {KIND: {intercept, weights}} and fields: {FIELD: KIND}, as in "
                               "configs/fields/ocr-calibration.yaml");
  }
  Calibration out;
  out.source = source;
  const auto& names = feature_names();
  try {
    for (const auto& k : root["kinds"]) {
      const std::string kind = k.first.as<std::string>();
      Calibrator c;
      c.intercept = k.second["intercept"].as<double>();
      for (const auto& w : k.second["weights"]) {
        const std::string name = w.first.as<std::string>();
        if (std::find(names.begin(), names.end(), name) == names.end()) {
          throw ConfigError(source + ": kinds." + kind + ".weights: unknown feature '" + name +
                            "' (docs/confidence.md lists them)");
        }
        const double weight = w.second.as<double>();
        if (!std::isfinite(weight)) throw ConfigError(source + ": kinds." + kind + ".weights." + name + ": not a number");
        c.weights.emplace_back(name, weight);
      }
      if (!std::isfinite(c.intercept)) throw ConfigError(source + ": kinds." + kind + ".intercept: not a number");
      out.kinds[kind] = std::move(c);
    }
    for (const auto& f : root["fields"]) {
      const std::string field = f.first.as<std::string>(), kind = f.second.as<std::string>();
      if (!out.kinds.count(kind))
        throw ConfigError(source + ": fields." + field + ": kind '" + kind + "' has no parameters under kinds");
      out.field_kinds[field] = kind;
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": " + e.msg + " (see configs/fields/ocr-calibration.yaml for the layout)");
  }
  if (!out.kinds.count("text")) throw ConfigError(source + ": kinds: needs text (a field not listed is text)");
  return out;
}

}  // namespace docsift::ocr
