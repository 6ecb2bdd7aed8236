// evaluate_confidence (confidence.h): the values of an evaluation judged, grouped (per field, per
// field type, all), fitted to a target accuracy or checked against the thresholds given, and the
// review queue those thresholds make.
#include "docsift/eval/confidence.h"

#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/eval/evaluate.h"
#include "docsift/extract/field.h"
#include "docsift/extract/review_queue.h"
#include "docsift/extract/schema.h"

namespace docsift::eval {

namespace {

// Field types that give partial credit: text (ANLS) and lists (F1). The others score 1 or 0 (a
// date a year off, 0.8, is a wrong date).
bool partial_credit(extract::FieldType type) {
  return type == extract::FieldType::kText || type == extract::FieldType::kList;
}

std::optional<double> found_in(const std::map<std::string, double>& fields,
                               const std::string& field) {
  const auto it = fields.find(field);
  return it == fields.end() ? std::nullopt : std::optional<double>(it->second);
}

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

void check_group(ConfidenceGroup& g, const std::vector<Tagged>& tagged,
                 const extract::ReviewThresholds& thresholds) {
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

// The values judged, as the groups take them: per field, per field type and all together (the last
// two tagged with each value's field, for per-field thresholds).
struct JudgedValues {
  std::map<std::string, std::vector<Judged>> by_field;
  std::map<extract::FieldType, std::vector<Tagged>> by_type;
  std::vector<Tagged> all;
  std::size_t without_confidence = 0;  // scored values with no confidence, left out of the above
};

// Each scored value of `evaluation` that the predictions fill, with its confidence and whether its
// score makes it correct.
JudgedValues judge_values(const extract::FieldSchema& schema, const Evaluation& evaluation,
                          const Records& predictions, const Confidences& confidences,
                          double correct_at) {
  JudgedValues out;
  for (const ImageScore& image : evaluation.images) {
    if (!image.predicted) continue;
    const auto& values = predictions.at(image.image);
    const auto conf_it = confidences.find(image.image);
    for (const auto& [field, score] : image.fields) {
      const auto value = values.find(field);
      if (value == values.end() || extract::is_missing(value->second))
        continue;  // no value, no confidence
      const auto field_conf =
          conf_it == confidences.end() ? std::nullopt : found_in(conf_it->second, field);
      if (!field_conf) {
        ++out.without_confidence;
        continue;
      }
      const extract::Field* f = schema.find(field);
      const double cut = f != nullptr && partial_credit(f->type) ? correct_at : 1.0;
      const Judged judged{*field_conf, score >= cut};
      out.by_field[field].push_back(judged);
      if (f != nullptr) out.by_type[f->type].push_back({field, judged});
      out.all.push_back({field, judged});
    }
  }
  return out;
}

// The groups' figures: every value, each field with a value (in the order of `fields`, the
// schema's), each field type with one.
void make_groups(ConfidenceEvaluation& c, const JudgedValues& judged,
                 const std::vector<std::string>& fields) {
  std::vector<Judged> all_values;
  for (const Tagged& t : judged.all) all_values.push_back(t.value);
  c.all = make_group("all", std::move(all_values));
  for (const std::string& field : fields) {
    const auto it = judged.by_field.find(field);
    if (it != judged.by_field.end()) c.fields.push_back(make_group(field, it->second));
  }
  for (const auto& [type, tagged] : judged.by_type) {
    std::vector<Judged> values;
    for (const Tagged& t : tagged) values.push_back(t.value);
    c.types.push_back(make_group(std::string(extract::to_string(type)), std::move(values)));
  }
}

// Each group's fit to `target`, and the thresholds in force fitted from them.
void fit_thresholds(ConfidenceEvaluation& c, double target) {
  for (ConfidenceGroup& g : c.fields) {
    g.fit = fit_threshold(g.curve, g.values.size(), target);
    c.thresholds.fields[g.name] = g.fit->threshold;
  }
  for (ConfidenceGroup& g : c.types) g.fit = fit_threshold(g.curve, g.values.size(), target);
  c.all.fit = fit_threshold(c.all.curve, c.all.values.size(), target);
  // Fields with no value to fit on get the threshold fitted over every value.
  c.thresholds.every = c.all.fit->threshold;
  c.thresholds_fitted = true;
}

// Each group checked under the thresholds in force, each value under its own field's.
void check_groups(ConfidenceEvaluation& c, const JudgedValues& judged) {
  for (ConfidenceGroup& g : c.fields) {
    std::vector<Tagged> tagged;
    for (const Judged& v : g.values) tagged.push_back({g.name, v});
    check_group(g, tagged, c.thresholds);
  }
  for (ConfidenceGroup& g : c.types) {
    for (const auto& [type, tagged] : judged.by_type) {
      if (extract::to_string(type) == g.name) check_group(g, tagged, c.thresholds);
    }
  }
  check_group(c.all, judged.all, c.thresholds);
}

// The queue a run makes (lib/docsift/batch/outputs.cpp, mark_review, by the same rule): on every
// page predicted that has confidences, scored or not.
void count_review(ConfidenceEvaluation& c, const extract::FieldSchema& schema,
                  const Records& predictions, const Confidences& confidences,
                  const Doubts& doubts) {
  for (const auto& [image, fields] : confidences) {
    const auto values = predictions.find(image);
    if (values == predictions.end()) continue;
    const auto off = doubts.find(image);
    const auto queue =
        extract::review_queue(schema, values->second, fields, c.thresholds,
                              off == doubts.end() ? extract::PageDoubts{} : off->second);
    for (const extract::QueuedValue& q : queue) {
      ++c.review[q.field];
      ++c.review_total;
    }
  }
}

}  // namespace

ConfidenceEvaluation evaluate_confidence(const extract::FieldSchema& schema,
                                         const Evaluation& evaluation, const Records& predictions,
                                         const Confidences& confidences,
                                         const ConfidenceOptions& options) {
  ConfidenceEvaluation c;
  c.correct_at = options.correct_at;
  c.target_accuracy = options.target_accuracy;
  const JudgedValues judged =
      judge_values(schema, evaluation, predictions, confidences, options.correct_at);
  c.without_confidence = judged.without_confidence;
  make_groups(c, judged, evaluation.fields);
  if (options.target_accuracy) {
    fit_thresholds(c, *options.target_accuracy);
  } else {
    c.thresholds = options.thresholds;
  }
  if (!c.thresholds.empty()) {
    check_groups(c, judged);
    count_review(c, schema, predictions, confidences, options.doubts);
  }
  return c;
}

}  // namespace docsift::eval
