// Field confidences measured against the truth (docs/eval.md, "Confidences"): per field, per field
// type and over every value, the risk–coverage table and its area (AURC), the expected
// calibration error over ten equal-width bins, how many wrong values fall under a review
// threshold, and the lowest threshold whose accepted values reach a target accuracy.
//
// A value is a field case of the truth that the predictions fill (not N/A) and that the rules
// score; it is *correct* when its score is 1, or, for the types that give partial credit (text
// by ANLS, lists by F1), at least `correct_at`. A threshold t accepts the values whose confidence
// is ≥ t and sends the others to review, as the run's review.threshold does.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/eval/evaluate.h"
#include "docsift/extract/review_queue.h"
#include "docsift/extract/schema.h"

namespace docsift::eval {

// confidence.csv, beside predictions.csv (a journal's confidences come with its records:
// PredictionFile::confidences): predictions.csv's layout, each cell a number in [0, 1] or empty
// (no value). evaluate.h's errors: 2 missing, 3 unreadable, 7 malformed (a cell that is no
// probability included).
Confidences read_confidences_csv(const std::filesystem::path& path,
                                 const std::string& role = "--confidence");
// One cell of such a file (or of line_items.csv's confidence column): a number in [0, 1], else a
// MalformedInputError naming `where`.
double parse_confidence(const std::string& text, const std::string& where);

// One value: its confidence, and whether it was right.
struct Judged {
  double confidence = 0;
  bool correct = false;
};

// One row of the risk–coverage table: the values with confidence ≥ threshold are accepted.
struct CoveragePoint {
  double threshold = 0;
  std::size_t accepted = 0, correct = 0;
  double coverage = 0;  // accepted ÷ values
  double accuracy = 0;  // correct ÷ accepted (the risk is 1 − accuracy)
};
// One row per distinct confidence, highest first; the last accepts every value (coverage 1).
std::vector<CoveragePoint> risk_coverage(std::vector<Judged> values);
// The area under the risk–coverage step curve: Σ (coverage − previous coverage) × risk over the
// rows, so values of equal confidence share their group's risk (no order among them is assumed).
// 0 when every value is right; the share of wrong values when confidence ranks nothing.
double area_under_risk_coverage(const std::vector<CoveragePoint>& curve);

// Ten equal-width bins: bin k holds confidences in [k/10, (k+1)/10), the last also 1.0.
inline constexpr int kCalibrationBins = 10;
struct CalibrationBin {
  double lower = 0, upper = 0;
  std::size_t count = 0;
  double mean_confidence = 0, accuracy = 0;  // 0 when empty
};
struct Calibration {
  std::array<CalibrationBin, kCalibrationBins> bins;
  // Σ (count ÷ values) × |accuracy − mean confidence| over the bins; 0 is perfect.
  double ece = 0;
};
Calibration calibrate(const std::vector<Judged>& values);

// How many wrong values `target` allows among `accepted`: ⌊accepted × (1 − target)⌋ (at 40 values,
// 0.97 allows 1; below 100 values 0.99 allows none).
std::size_t errors_allowed(std::size_t accepted, double target);

// The lowest threshold of the table whose accepted values reach `target` (correct ≥ target ×
// accepted). Not reached (no row does, or no values): threshold 1, which sends every value below 1
// to review, with the figures of what it still accepts.
struct TargetFit {
  double target = 0;
  bool reached = false;
  double threshold = 1;
  std::size_t accepted = 0, correct = 0;
  double coverage = 0, accuracy = 0;
  std::size_t errors_allowed = 0;  // at `accepted`
};
TargetFit fit_threshold(const std::vector<CoveragePoint>& curve, std::size_t values, double target);

// What a threshold does: the values under it (to review), the wrong ones, and the wrong ones under
// it.
struct ThresholdCheck {
  double threshold = 0;
  std::size_t under = 0, wrong = 0, wrong_under = 0;
};
ThresholdCheck check_threshold(const std::vector<Judged>& values, double threshold);

// "0.8" (the default) or "FIELD=0.8"; ConfigError unless the number is in [0, 1].
void parse_threshold(const std::string& text, extract::ReviewThresholds& into);
// The config fragment `run --config` reads: review.threshold (the default) and review.fields.
// `lowered_by`: each threshold (above 0) written that much lower. extract::ReviewThresholds fitted
// on a CSV's confidences, which confidence.csv rounds to four decimals, are lowered by half the
// last one (5e-5), so that the run, comparing its journal's unrounded confidences, accepts every
// value the CSV showed at or above a threshold and queues every one under it: the queue eval
// counted.
std::string thresholds_yaml(const extract::ReviewThresholds& thresholds, const std::string& comment,
                            double lowered_by = 0);

struct ConfidenceOptions {
  double correct_at = 1.0;               // text and list fields: correct at this score or above
  extract::ReviewThresholds thresholds;  // review.threshold or --threshold; may be empty
  std::optional<double> target_accuracy;
  // The pages whose record speaks against fields (a journal's: their tables' arithmetic, other
  // pages' readings): queued as a run queues them, whatever their confidence.
  Doubts doubts;
};

// The figures for one group of values: a field, a field type, or all values.
struct ConfidenceGroup {
  std::string name;
  std::vector<Judged> values;  // kept for the plots
  std::size_t correct = 0;
  std::vector<CoveragePoint> curve;
  double aurc = 0;
  Calibration calibration;
  std::optional<ThresholdCheck> at_threshold;  // under the thresholds in force (given or fitted)
  std::optional<TargetFit> fit;                // with a target accuracy
};

struct ConfidenceEvaluation {
  double correct_at = 1.0;
  std::optional<double> target_accuracy;
  std::vector<ConfidenceGroup> fields;  // schema order, the fields with at least one value
  std::vector<ConfidenceGroup> types;   // schema field types with at least one value
  ConfidenceGroup all;
  // Scored values that have no confidence (left out of every figure).
  std::size_t without_confidence = 0;
  // The thresholds the figures use: fitted with a target (each field's fit; the default, for
  // fields not fitted, the fit over all values), else those given.
  extract::ReviewThresholds thresholds;
  bool thresholds_fitted = false;
  // Per field, the values of every page of the predictions that has confidences (scored or not, in
  // the truth or not) under its threshold or with no confidence: the review queue a run over the
  // same pages with these thresholds makes.
  std::map<std::string, std::size_t> review;
  std::size_t review_total = 0;
};

// Over every value of `evaluation` (evaluate()'s, on the same predictions) with a confidence.
ConfidenceEvaluation evaluate_confidence(const extract::FieldSchema& schema,
                                         const Evaluation& evaluation, const Records& predictions,
                                         const Confidences& confidences,
                                         const ConfidenceOptions& options);

// Reports: the JSON report's "confidence" object; the Markdown section, linking the PNGs named
// (file names relative to the report; empty: none); the short table for stdout.
nlohmann::json confidence_json(const ConfidenceEvaluation& c);
std::string confidence_markdown(const ConfidenceEvaluation& c, const std::string& reliability_png,
                                const std::string& risk_coverage_png);
std::string confidence_table(const ConfidenceEvaluation& c);

// The rows a report lists for a group: every row when there are at most kCurveRowsListed, else the
// rows at the thresholds 0.00, 0.01, … 1.00 (each the last row at or above it), so that a
// 100,000-value eval's report stays short.
inline constexpr std::size_t kCurveRowsListed = 100;
std::vector<CoveragePoint> listed_rows(const std::vector<CoveragePoint>& curve);

}  // namespace docsift::eval
