#include "docsift/ocr/calibration.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "docsift/error.h"
#include "docsift/ocr/yaml_source.h"

namespace docsift::ocr {

std::string_view builtin_calibration_text();  // generated from configs/fields/ocr-calibration.yaml

const std::vector<std::string>& feature_names() {
  // A table, four to a row.
  // clang-format off
  static const std::vector<std::string> names = {
      "word_min",      "word_mean",     "labelled",         "label_fuzzy",
      "sums_agree",    "repaired",      "contested",        "margin",
      "second_agreed", "second_taken",  "second_disagreed", "exact",
      "repeated",      "legal",         "word_min_top",     "known",
      "listed",        "reader_agreed", "reader_disagreed", "reader_taken",
      "vouched",       "contradicted",  "label_seen",       "shape_seen",
      "abroad",        "home",          "cut",              "late",
      "reader_score",  "reader_gap",    "ended",            "agreed"};
  // clang-format on
  return names;
}

std::map<std::string, double> feature_values(const Evidence& e) {
  const auto flag = [](bool b) { return b ? 1.0 : 0.0; };
  // The margins are in points of their own scales (TOTAL's: the field finder's probability over
  // the runner-up's, in thousandths; a date's position: 10): log-scaled so that one weight serves
  // a kind, 1 at a margin of 1000.
  const double margin = std::log1p(std::clamp(e.margin, 0.0, 1000.0)) / std::log1p(1000.0);
  return {
      {"word_min", e.word_min / 100.0},
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
      {"reader_taken", flag(e.reader_read && e.reader_taken)},
      // The page's own checks of this value against others (page_checks.h).
      {"vouched", flag(e.vouched)},
      {"contradicted", flag(e.contradicted)},
      // What the page shows of a field left N/A (page_checks.h: absence_of).
      {"label_seen", flag(e.label_seen)},
      {"shape_seen", flag(e.shape_seen)},
      {"abroad", flag(e.abroad)},
      {"home", flag(e.home)},
      // An address that shows it stops short (rule_text.h: address_cut).
      {"cut", flag(e.cut)},
      // ... and one that shows where it ends: a region, a country or a home city last (rule_text.h:
      // address_ended).
      {"ended", flag(e.ended)},
      // An address that started after lines passed over under the seller's: 0, then 0.5 for one
      // line, 1 for two (business_address passes over two at most).
      {"late", std::min(e.lines_skipped, 2) / 2.0},
      // How sure the second recognizer was of its reading, and how far the value still is from it,
      // 1 at a fifth of its letters or more: a name or an address taken letter by letter where
      // the two readings now agree throughout is right far more often than one left a few letters
      // apart (docs/confidence.md).
      {"reader_score", e.reader_read ? e.reader_mean : 0.0},
      {"reader_gap", e.reader_read ? std::min(1.0, 5.0 * e.reader_gap) : 0.0},
      // Another page of the run read the same seller or address (batch/agreement.h).
      {"agreed", flag(e.agreed)}};
}

double Calibrator::probability(const Evidence& evidence, double offset) const {
  const std::map<std::string, double> x = feature_values(evidence);
  double z = intercept + offset;
  for (const auto& [name, weight] : weights) z += weight * x.at(name);
  return 1.0 / (1.0 + std::exp(-z));
}

std::string Calibration::kind_of(const std::string& field) const {
  const auto kind = field_kinds.find(field);
  return kind == field_kinds.end() ? "text" : kind->second;
}

double Calibration::probability(const std::string& field, const Evidence& evidence) const {
  double offset = 0;
  const Calibrator& model = model_of(field, evidence, offset);
  return model.probability(evidence, offset);
}

const Calibrator& Calibration::model_of(const std::string& field, const Evidence& evidence,
                                        double& offset) const {
  const std::string kind = kind_of(field);
  const auto model = kinds.find(kind);
  if (model == kinds.end())
    throw ConfigError(source + ": no parameters for kind '" + kind + "' (field " + field + ")");
  offset = 0;
  if (const auto again = read_again.find(kind); evidence.reader_read && again != read_again.end())
    return again->second;
  if (const auto own = field_offsets.find(field); own != field_offsets.end()) offset = own->second;
  return model->second;
}

double Calibration::agreement_weight(const std::string& field, const Evidence& evidence) const {
  double offset = 0;
  for (const auto& [name, weight] : model_of(field, evidence, offset).weights) {
    if (name == "agreed") return weight;
  }
  return 0;
}

Calibration load_calibration(const std::string& source) {
  const YAML::Node root =
      load_yaml_source(source, {"builtin:ocr-calibration", builtin_calibration_text(),
                                "ocr.calibration", "configs/fields/ocr-calibration.yaml"});
  const YamlReader read(source, "configs/fields/ocr-calibration.yaml");
  if (!root.IsMap())
    read.fail(root, "expected kinds: {KIND: {intercept, weights}} and fields: {FIELD: KIND}");
  Calibration out;
  out.source = source;
  const auto& names = feature_names();
  try {
    read.only(root, "the file", {"kinds", "fields", "absent"});
    const auto calibrator = [&](const YAML::Node& node, const std::string& path,
                                bool with_read_again = false) {
      Calibrator c;
      if (with_read_again)
        read.only(node, path, {"intercept", "weights", "read_again"});
      else
        read.only(node, path, {"intercept", "weights"});
      c.intercept = read.number(read.required(node, "intercept", path), path + ".intercept");
      for (const auto& [name, weight] :
           read.entries(read.required(node, "weights", path), path + ".weights")) {
        if (std::find(names.begin(), names.end(), name) == names.end()) {
          read.fail(weight, path + ".weights: unknown feature '" + name +
                                "' (docs/confidence.md lists them)");
        }
        c.weights.emplace_back(name, read.number(weight, path + ".weights." + name));
      }
      return c;
    };
    for (const auto& [kind, node] :
         read.entries(read.required(root, "kinds", "the file"), "kinds")) {
      out.kinds[kind] = calibrator(node, "kinds." + kind, true);
      if (const YAML::Node again = node["read_again"])
        out.read_again[kind] = calibrator(again, "kinds." + kind + ".read_again");
    }
    if (const YAML::Node absent = root["absent"]; absent && !absent.IsNull()) {
      for (const auto& [field, node] : read.entries(absent, "absent")) {
        out.absent[field] = calibrator(node, "absent." + field);
        out.absent_places[field] = read.place(node);
      }
    }
    if (const YAML::Node fields = root["fields"]; fields && !fields.IsNull()) {
      for (const auto& [field, node] : read.entries(fields, "fields")) {
        // KIND, or {kind: KIND, offset: X}: the kind's model with the field's own intercept shift.
        std::string kind;
        if (node.IsMap()) {
          const std::string path = "fields." + field;
          read.only(node, path, {"kind", "offset"});
          kind = read.word(read.required(node, "kind", path), path + ".kind");
          if (const YAML::Node offset = node["offset"])
            out.field_offsets[field] = read.number(offset, path + ".offset");
        } else {
          kind = read.word(node, "fields." + field);
        }
        if (!out.kinds.count(kind))
          read.fail(node,
                    "fields." + field + ": kind '" + kind + "' has no parameters under kinds");
        out.field_kinds[field] = kind;
        out.field_places[field] = read.place(node);
      }
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": " + e.msg +
                      " (configs/fields/ocr-calibration.yaml shows the layout)");
  }
  if (!out.kinds.count("text")) read.fail(root, "kinds: needs text (a field not listed is text)");
  return out;
}

std::optional<double> Calibration::absent_probability(const std::string& field,
                                                      const Evidence& evidence) const {
  const auto model = absent.find(field);
  if (model == absent.end()) return std::nullopt;
  return model->second.probability(evidence);
}

void Calibration::check_fields(const std::vector<std::string>& field_names) const {
  const auto refuse = [&](const std::string& field, const std::string& place,
                          const std::string& what) {
    if (std::find(field_names.begin(), field_names.end(), field) != field_names.end()) return;
    throw ConfigError(
        place + ": " + what + field +
        ": not a field of the schema (extraction.fields); a misspelt name would "
        "leave its field " +
        (what == "absent." ? "without a confidence when it is N/A" : "calibrated as text"));
  };
  for (const auto& [field, model] : absent) refuse(field, absent_places.at(field), "absent.");
  for (const auto& [field, kind] : field_kinds) refuse(field, field_places.at(field), "fields.");
}

}  // namespace docsift::ocr
