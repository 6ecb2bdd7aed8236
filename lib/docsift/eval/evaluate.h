// Accuracy of a run against ground truth: per field, per image, per document type, overall —
// the reference's definitions (image = mean over fields, overall = mean over images) — with the
// counts behind precision, recall and F1, the median image, and the misses that explain a score
// (docs/eval.md, "Scoring" and "Counts and F1").
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/extract/schema.h"
#include "docsift/extract/scoring_rules.h"

namespace docsift::eval {

// image file name → field → value.
using Records = std::map<std::string, std::map<std::string, std::string>>;

// Ground truth or predictions in the ground-truth column layout (image_file + one column per field).
Records read_records_csv(const std::filesystem::path& path);
// Predictions from a results.jsonl journal: the last record per file; failed images have no fields.
Records read_records_jsonl(const std::filesystem::path& path);
// By extension: .jsonl → journal, anything else → CSV.
Records read_predictions(const std::filesystem::path& path);
// Ground truth as JSONL, as the reference's current version accepts it: one object per document,
// its name under "image_file" and only the fields it has; the others of `field_names` are N/A for
// it. Throws ConfigError for a run journal given as the truth (its lines carry "status" and
// "timings_s": predictions), FileError naming the line for anything malformed.
Records read_truth_jsonl(const std::filesystem::path& path, const std::vector<std::string>& field_names);

// One field case counted: both missing is a true negative; a value where the truth is missing a
// false positive; a missing value where the truth has one a false negative; a value against a
// value is `score` of a true positive and 1 − score of a false positive (a wrong value is a false
// positive; partial credit, a 0.8 date or a list's F1, splits the case), so that the counts agree
// with accuracy.
struct Counts {
  double tp = 0, fp = 0, fn = 0, tn = 0;
  void add(const Counts& other);
  // Nothing claimed (tp + fp = 0): precision 1 when nothing was missed, else 0; recall likewise.
  double precision() const;
  double recall() const;
  double f1() const;
};

// A field case that scored below 1: what explains the score.
struct Miss {
  std::string image, truth, predicted;
  double score = 0;
};

// Misses kept per field (the reports show fewer): a bound, so that a 100,000-row eval does not copy
// every wrong value.
inline constexpr std::size_t kMissesKept = 100;

struct ImageScore {
  std::string image;
  std::string document_type;  // from the ground truth
  double accuracy = 0;
  bool predicted = true;  // false: no prediction for this image (scored 0)
  std::map<std::string, double> fields;
};

struct Evaluation {
  extract::ScoringRules rules;
  std::vector<std::string> fields;                 // scored fields, schema order
  std::vector<std::string> fields_left_out;        // schema fields with no ground-truth column
  std::vector<ImageScore> images;                  // ground-truth order (sorted by name)
  std::map<std::string, double> field_accuracy;    // mean over images with predictions
  std::map<std::string, Counts> field_counts;      // over images with predictions
  std::map<std::string, std::size_t> field_miss_count;    // cases below 1
  std::map<std::string, std::vector<Miss>> field_misses;  // the kMissesKept worst, worst first
  std::map<std::string, double> document_type_accuracy;
  std::map<std::string, Counts> document_type_counts;
  double overall = 0;                              // mean image accuracy (missing predictions count 0)
  double image_median = 0;                         // median image accuracy
  Counts counts;                                   // every field case
  std::vector<std::string> missing_predictions;    // in the ground truth, not in the predictions
  std::vector<std::string> unexpected_predictions; // in the predictions, not in the ground truth
};

// Scores every ground-truth image under `rules`. Fields scored: those of the schema that are
// ground-truth columns; the others are listed in fields_left_out. A ground truth that is empty or
// has none of the schema's columns is an error.
Evaluation evaluate(const extract::FieldSchema& schema, const Records& truth, const Records& predictions,
                    const std::string& truth_label, const extract::ScoringRules& rules);

std::string band(double accuracy);  // good ≥ 0.8, fair 0.6–0.8, poor < 0.6

// Reports. `baseline`: an earlier to_json report, or null; the Markdown report then has baseline
// and delta columns. Each field's misses are listed worst first, at most `misses_shown`.
inline constexpr std::size_t kMissesShown = 10;
nlohmann::json to_json(const Evaluation& evaluation, std::size_t misses_shown = kMissesShown);
std::string to_markdown(const Evaluation& evaluation, const nlohmann::json* baseline = nullptr,
                        std::size_t misses_shown = kMissesShown);
std::string to_table(const Evaluation& evaluation);

// "%.3f", the precision reports print.
std::string fixed(double value, int digits = 3);

}  // namespace docsift::eval
