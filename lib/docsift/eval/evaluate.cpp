// evaluate() and the counts behind it: each field case of the truth scored, counted and, below 1,
// kept as a miss; the means per field, per document type and overall.
#include "docsift/eval/evaluate.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "docsift/error.h"
#include "docsift/eval/scoring.h"
#include "docsift/extract/field.h"

namespace docsift::eval {

void Counts::add(const Counts& o) {
  tp += o.tp;
  fp += o.fp;
  fn += o.fn;
  tn += o.tn;
}

double Counts::precision() const {
  if (tp + fp > 0) return tp / (tp + fp);
  return tn > 0 && fn == 0 ? 1.0 : 0.0;
}
double Counts::recall() const {
  if (tp + fn > 0) return tp / (tp + fn);
  return tn > 0 && fp == 0 ? 1.0 : 0.0;
}
double Counts::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

std::optional<std::string> Evaluation::name_mismatch() const {
  const auto file_name = [](const std::string& name) {
    return std::filesystem::path(name).filename().string();
  };
  std::map<std::string, std::string> missing;  // file name → the truth's name
  for (const auto& image : missing_predictions) missing.emplace(file_name(image), image);
  int matched = 0;
  std::string example;
  for (const auto& image : unexpected_predictions) {
    const auto it = missing.find(file_name(image));
    if (it == missing.end()) continue;
    if (matched++ == 0) example = "'" + image + "' and '" + it->second + "'";
  }
  if (matched == 0) return std::nullopt;
  return std::to_string(matched) + " predicted image" + (matched == 1 ? "" : "s") +
         " match the ground truth's by file name only (" + example +
         "): name them alike in both; a run over a folder records names relative to it, "
         "--files-from as given";
}

double Evaluation::coverage() const {
  return images.empty() ? 0.0
                        : static_cast<double>(images.size() - missing_predictions.size()) /
                              static_cast<double>(images.size());
}

namespace {

Counts count_case(std::string_view predicted, std::string_view truth, double score) {
  Counts c;
  const bool has_value = !extract::is_missing(predicted), has_truth = !extract::is_missing(truth);
  if (!has_value && !has_truth) {
    c.tn = 1;
  } else if (has_value && !has_truth) {
    c.fp = 1;
  } else if (!has_value) {
    c.fn = 1;
  } else {
    c.tp = score;
    c.fp = 1 - score;
  }
  return c;
}

// Worst first: the lower score, then the earlier image.
bool worse(const Miss& a, const Miss& b) {
  return a.score != b.score ? a.score < b.score : a.image < b.image;
}

// Keeps the kMissesKept worst misses as a heap whose top is the best of them; images arrive in
// order, so of equal scores the earlier ones stay.
void keep_miss(std::vector<Miss>& kept, const std::string& image, const std::string& truth,
               const std::string& predicted, double score, bool has_prediction) {
  if (kept.size() == kMissesKept) {
    if (!(score < kept.front().score)) return;
    std::pop_heap(kept.begin(), kept.end(), worse);
    kept.pop_back();
  }
  kept.push_back({image, truth, predicted, score, has_prediction});
  std::push_heap(kept.begin(), kept.end(), worse);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) +
          upper) /
         2;
}

// Running sums for a mean, per key (a field, a document type): the total and the count.
using Sums = std::map<std::string, std::pair<double, int>>;

// The schema's fields to score, in schema order; `e` gets them and names the others (left out, not
// predicted). Nothing left to score is an error.
std::vector<const extract::Field*> fields_to_score(const extract::FieldSchema& schema,
                                                   const Records& truth,
                                                   const std::vector<std::string>& not_predicted,
                                                   const std::string& truth_label, Evaluation& e) {
  // A ground truth with some of the schema's columns scores those and names the rest.
  std::vector<const extract::Field*> scored_fields;
  for (const extract::Field& f : schema.fields) {
    if (truth.begin()->second.count(f.name) == 0) {
      e.fields_left_out.push_back(f.name);
    } else if (std::find(not_predicted.begin(), not_predicted.end(), f.name) !=
               not_predicted.end()) {
      e.fields_not_predicted.push_back(f.name);
    } else {
      e.fields.push_back(f.name);
      scored_fields.push_back(&f);
    }
  }
  if (scored_fields.empty()) {
    if (!e.fields_not_predicted.empty()) {
      throw ConfigError(
          "the predictions have a column for none of the fields the truth has; nothing to score");
    }
    throw MalformedInputError(truth_label + ": no column for any field of " + schema.source +
                              " (is it a ground-truth CSV?)");
  }
  return scored_fields;
}

// One image's field cases: each scored into `score` (its fields, then its accuracy), its score
// added to `per_field`, and its case counted in `e` (per field, per document type, overall) and,
// below 1, kept as a miss.
void score_image(ImageScore& score, const std::map<std::string, std::string>& truth_fields,
                 const std::map<std::string, std::string>& predicted,
                 const std::vector<const extract::Field*>& scored_fields,
                 const extract::ScoringRules& rules, Sums& per_field, Evaluation& e) {
  const bool by_type = rules.rules == extract::RuleSet::kDocsift;
  double image_sum = 0;
  std::size_t scored = 0;
  Counts& type_counts = e.document_type_counts[score.document_type];
  for (const extract::Field* field : scored_fields) {
    const extract::Field& f = *field;
    // The reference's first rules score every field of every document (as reference-2025 must).
    if (by_type && !f.applies(score.document_type)) continue;
    ++scored;
    const auto p = predicted.find(f.name);
    const std::string& value = p == predicted.end() ? std::string() : p->second;
    const std::string& expected = truth_fields.at(f.name);
    double s = 0;
    Counts c;
    if (score.predicted) {
      s = score_field(f.type, value, expected, rules, f.items);
      c = count_case(value, expected, s);
    } else {
      c.fn = 1;
    }
    score.fields[f.name] = s;
    image_sum += s;
    per_field[f.name].first += s;
    per_field[f.name].second += 1;
    e.field_counts[f.name].add(c);
    type_counts.add(c);
    e.counts.add(c);
    if (s < 1.0) {
      ++e.field_miss_count[f.name];
      keep_miss(e.field_misses[f.name], score.image, expected, value, s, score.predicted);
    }
  }
  score.accuracy = scored == 0 ? 0.0 : image_sum / static_cast<double>(scored);
}

}  // namespace

Evaluation evaluate(const extract::FieldSchema& schema, const Records& truth,
                    const Records& predictions, const std::string& truth_label,
                    const extract::ScoringRules& rules,
                    const std::vector<std::string>& not_predicted) {
  if (truth.empty()) throw MalformedInputError(truth_label + ": no images in the ground truth");
  Evaluation e;
  e.rules = rules;
  const std::vector<const extract::Field*> scored_fields =
      fields_to_score(schema, truth, not_predicted, truth_label, e);
  const std::map<std::string, std::string> no_prediction;
  Sums per_field, per_type;
  std::vector<double> image_accuracies;
  double sum = 0;
  for (const auto& [image, truth_fields] : truth) {
    ImageScore score;
    score.image = image;
    const auto type_it = truth_fields.find("DOCUMENT_TYPE");
    score.document_type = type_it == truth_fields.end() ? "" : type_it->second;
    const auto predicted_it = predictions.find(image);
    score.predicted = predicted_it != predictions.end();
    if (!score.predicted) e.missing_predictions.push_back(image);
    // A page with no prediction is still a case in each of its fields, so that a field's score
    // and counts cover the whole truth whichever pages were predicted (docs/eval.md, "Scoring").
    const auto& predicted = score.predicted ? predicted_it->second : no_prediction;
    score_image(score, truth_fields, predicted, scored_fields, rules, per_field, e);
    sum += score.accuracy;
    image_accuracies.push_back(score.accuracy);
    per_type[score.document_type].first += score.accuracy;
    per_type[score.document_type].second += 1;
    e.images.push_back(std::move(score));
  }
  for (const auto& [image, fields] : predictions) {
    if (truth.count(image) == 0) e.unexpected_predictions.push_back(image);
  }
  for (const auto& [field, acc] : per_field) e.field_accuracy[field] = acc.first / acc.second;
  for (const auto& [type, acc] : per_type) e.document_type_accuracy[type] = acc.first / acc.second;
  for (auto& [field, misses] : e.field_misses) std::sort_heap(misses.begin(), misses.end(), worse);
  e.overall = sum / static_cast<double>(e.images.size());
  e.image_median = median(std::move(image_accuracies));
  return e;
}

std::string band(double accuracy) {
  return accuracy >= 0.8 ? "good" : accuracy >= 0.6 ? "fair" : "poor";
}

}  // namespace docsift::eval
