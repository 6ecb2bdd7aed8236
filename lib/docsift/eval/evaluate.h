// Accuracy of a run against ground truth: per field, per image, per document type, overall —
// the reference's definitions (image = mean over fields, overall = mean over images) — plus the
// regression gate used by CI.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/extract/schema.h"

namespace docsift::eval {

// image file name → field → value.
using Records = std::map<std::string, std::map<std::string, std::string>>;

// Ground truth or predictions in the ground-truth column layout (image_file + one column per field).
Records read_records_csv(const std::filesystem::path& path);
// Predictions from a results.jsonl journal: the last record per file; failed images have no fields.
Records read_records_jsonl(const std::filesystem::path& path);
// By extension: .jsonl → journal, anything else → CSV.
Records read_predictions(const std::filesystem::path& path);

struct ImageScore {
  std::string image;
  std::string document_type;  // from the ground truth
  double accuracy = 0;
  bool predicted = true;  // false: no prediction for this image (scored 0)
  std::map<std::string, double> fields;
};

struct Evaluation {
  std::vector<std::string> fields;                 // scored fields, schema order
  std::vector<ImageScore> images;                  // ground-truth order (sorted by name)
  std::map<std::string, double> field_accuracy;    // mean over images with predictions
  std::map<std::string, double> document_type_accuracy;
  double overall = 0;                              // mean image accuracy (missing predictions count 0)
  std::vector<std::string> missing_predictions;    // in the ground truth, not in the predictions
  std::vector<std::string> unexpected_predictions; // in the predictions, not in the ground truth
};

// Scores every ground-truth image. Fields scored: those of the schema that are ground-truth
// columns; a schema field missing from the ground truth is an error, as is an empty ground truth.
Evaluation evaluate(const extract::FieldSchema& schema, const Records& truth, const Records& predictions,
                    const std::string& truth_label);

std::string band(double accuracy);  // good ≥ 0.8, fair 0.6–0.8, poor < 0.6
nlohmann::json to_json(const Evaluation& evaluation);
std::string to_markdown(const Evaluation& evaluation);
std::string to_table(const Evaluation& evaluation);

// Regressions of `current` against a baseline report (to_json output): the overall or any field
// lower by more than `tolerance`. Each entry says what dropped and by how much.
std::vector<std::string> regressions(const Evaluation& current, const nlohmann::json& baseline, double tolerance);

}  // namespace docsift::eval
