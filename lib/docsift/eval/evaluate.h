// Accuracy of a run against ground truth: per field, per image, per document type, overall —
// the reference's definitions (image = mean over fields, overall = mean over images) — with the
// counts behind precision, recall and F1, the median image, and the misses that explain a score
// (docs/eval.md, "Scoring" and "Counts and F1").
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/eval/rows.h"
#include "docsift/extract/review_queue.h"
#include "docsift/extract/schema.h"
#include "docsift/extract/scoring_rules.h"

namespace docsift::eval {

// image file name → field → value.
using Records = std::map<std::string, std::map<std::string, std::string>>;
// image file name → field → confidence in [0, 1], for the fields with a value (confidence.h).
using Confidences = std::map<std::string, std::map<std::string, double>>;
// image file name → what its journal record says against its values beyond the values (the
// fields its table's own arithmetic speaks against, those other pages read otherwise).
using Doubts = std::map<std::string, extract::PageDoubts>;

// Readers. `role` ("PRED", "GT") names the file in errors: one that is not there is an
// InputMissingError (exit 2), one that cannot be read an InputUnreadableError (3), and one that
// was read but is malformed (bad CSV or JSON, no image_file column, an image twice, a journal
// record of the wrong shape) a MalformedInputError (7).

// Ground truth or predictions in the ground-truth column layout (image_file + one column per
// field).
// The whole of an input file, with io/input_file.h's errors for one that is not there (exit 2) or
// cannot be read (exit 3). `role` names it in them ("GT", "--baseline").
std::string read_input(const std::filesystem::path& path, const std::string& role);

Records read_records_csv(const std::filesystem::path& path, const std::string& role = "");
// Predictions from a results.jsonl journal: the last record per file; a file whose last record is
// not ok (failed, or gone) has no prediction (it is not in the map), as the run's predictions.csv
// has no row for it.
Records read_records_jsonl(const std::filesystem::path& path, const std::string& role = "");

// What a run read before a person corrected it (`docsift review apply`, docs/confidence.md,
// "Corrections"), from its journal: per page, each corrected field's original value, and the
// confidences of the page's last record before its first correction.
struct Originals {
  Records values;
  Confidences confidences;
  int count() const;  // corrected values
  // Each corrected value, and its page's confidences, as they were before the corrections.
  void restore(Records& records) const;
  void restore(Confidences& confidences) const;
};

// A predictions file as eval reads it: the pages predicted, and the columns to check against the
// schema (check_prediction_columns).
struct PredictionFile {
  Records records;
  // The field columns: a CSV's header (without image_file); a journal's field names over its ok
  // records. nullopt: a journal with no ok record, which shows no columns.
  std::optional<std::vector<std::string>> columns;
  std::vector<std::string> failed;  // a journal's files whose last record failed
  // A journal's "confidence" objects, of the same records as the values; nullopt when no record
  // has one (a CSV, or a run that wrote none). A confidence outside [0, 1] is malformed.
  std::optional<Confidences> confidences;
  // A journal's rows (line_items) per page, of the same records as the values; nullopt when no
  // page has any (a CSV: its rows are in line_items.csv beside it, rows.h's predicted_rows).
  std::optional<DocumentRows> rows;
  RowConfidences row_confidences;  // the rows' confidences, where they carry one
  // A journal's pages whose record speaks against some of their fields (the review queue's "rows
  // disagree" and "pages disagree", journal/page_arithmetic.h: page_doubts). None from a CSV.
  Doubts doubts;
  Originals originals;  // a journal's, read in the same pass when asked for; none from a CSV
};
// By extension: .jsonl → journal, anything else → CSV. `with_originals`: a journal's Originals too
// (eval --before-corrections), which cost a copy of every page's confidences otherwise not needed.
PredictionFile read_prediction_file(const std::filesystem::path& path,
                                    const std::string& role = "PRED", bool with_originals = false);
Records read_predictions(const std::filesystem::path& path);  // read_prediction_file(path).records

// Ground truth as JSONL, as the reference's current version accepts it: one object per document,
// its name under "image_file" and only the fields it has; the others of `field_names` are N/A for
// it. A document's "line_items" are its table's rows (rows.h's truth_rows_of), never a field:
// `rows` gets them, for the documents that carry the key (an empty list included). Throws
// ConfigError for a run journal given as the truth (its lines carry "status" and "timings_s":
// predictions), MalformedInputError naming the line for anything malformed.
Records read_truth_jsonl(const std::filesystem::path& path,
                         const std::vector<std::string>& field_names,
                         const std::string& role = "GT", DocumentRows* rows = nullptr);

// An earlier --report JSON (--baseline), parsed strictly (strict_json.h): one that is not JSON is
// a MalformedInputError. Its shape is check_gate's (gate.h).
nlohmann::json read_baseline(const std::filesystem::path& path,
                             const std::string& role = "--baseline");

// PRED's columns against the schema (docs/eval.md, "Prediction columns"). A column that is no
// field of the schema (misspelt, or in another case) is a ConfigError naming each with the field it
// likely means ("did you mean TOTAL?"). A scored field (a truth column) that PRED has no column for
// is a ConfigError too, unless `allow_missing`; the fields returned are those, to leave out.
std::vector<std::string> check_prediction_columns(
    const extract::FieldSchema& schema, const Records& truth,
    const std::optional<std::vector<std::string>>& columns, const std::string& label,
    bool allow_missing);

// One field case counted: both missing is a true negative; a value where the truth is missing a
// false positive; a missing value where the truth has one a false negative; a value against a
// value is `score` of a true positive and 1 − score of a false positive (a wrong value is a false
// positive; partial credit, a 0.8 date or a list's F1, splits the case), so that the counts agree
// with accuracy: accuracy = (tp + tn) ÷ all. A page with no prediction is a false negative in each
// of its fields, the truth's N/A ones included: nothing was read, so nothing was rightly left out.
struct Counts {
  double tp = 0, fp = 0, fn = 0, tn = 0;
  void add(const Counts& other);
  // Nothing claimed (tp + fp = 0): precision 1 when every case is a true negative (the field was
  // rightly left empty on every page), else 0; recall likewise when the truth has nothing
  // (tp + fn = 0). No cases at all is 0: nothing scored is never a perfect score.
  double precision() const;
  double recall() const;
  double f1() const;
};

// A field case that scored below 1: what explains the score.
struct Miss {
  std::string image, truth, predicted;
  double score = 0;
  bool has_prediction = true;  // false: the page has no prediction (predicted is empty)
};

// Misses kept per field (the reports show fewer): a bound, so that a 100,000-row eval does not copy
// every wrong value.
inline constexpr std::size_t kMissesKept = 100;

struct ImageScore {
  std::string image;
  std::string document_type;  // from the ground truth
  double accuracy = 0;
  bool predicted = true;  // false: no prediction for this image (0 in each of its fields)
  std::map<std::string, double> fields;
};

struct Evaluation {
  extract::ScoringRules rules;
  std::vector<std::string> fields;                // scored fields, schema order
  std::vector<std::string> fields_left_out;       // schema fields with no ground-truth column
  std::vector<std::string> fields_not_predicted;  // scored by the truth, no PRED column (left out)
  std::vector<ImageScore> images;                 // ground-truth order (sorted by name)
  std::map<std::string, double>
      field_accuracy;                          // mean over the truth's images of the field's types
  std::map<std::string, Counts> field_counts;  // over the same images
  std::map<std::string, std::size_t> field_miss_count;    // cases below 1
  std::map<std::string, std::vector<Miss>> field_misses;  // the kMissesKept worst, worst first
  std::map<std::string, double> document_type_accuracy;
  std::map<std::string, Counts> document_type_counts;
  double overall = 0;       // mean image accuracy (missing predictions count 0)
  double image_median = 0;  // median image accuracy
  Counts counts;            // every field case
  std::vector<std::string> missing_predictions;     // in the ground truth, not in the predictions
  std::vector<std::string> unexpected_predictions;  // in the predictions, not in the ground truth

  // The share of the truth's images that have a prediction.
  double coverage() const;
  // When predicted images match missing ones by file name alone (a folder in one name and not the
  // other: `run --files-from` records names as given, a folder's run relative to it): what to do,
  // with how many and one pair; none otherwise.
  std::optional<std::string> name_mismatch() const;
};

// Scores every ground-truth image under `rules`: an image with no prediction scores 0 in each of
// its fields (and counts a false negative there). Fields scored: those of the schema that are
// ground-truth columns, less `not_predicted` (check_prediction_columns); the others are listed in
// fields_left_out. A ground truth that is empty or has none of the schema's columns is a
// MalformedInputError.
Evaluation evaluate(const extract::FieldSchema& schema, const Records& truth,
                    const Records& predictions, const std::string& truth_label,
                    const extract::ScoringRules& rules,
                    const std::vector<std::string>& not_predicted = {});

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
