// Tables scored row by row (docs/eval.md, "Rows"): a ground truth's line_items against the rows a
// run read (a journal's line_items, or line_items.csv beside predictions.csv). Per document, the
// predicted rows are matched to the truth's by the assignment that maximises the cells that agree
// (the Hungarian algorithm, whatever their order); then rows and cells are counted over every
// document, with precision, recall and F1, and per column.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/extract/scoring_rules.h"
#include "docsift/journal/record.h"

namespace docsift::eval {

struct PredictionFile;  // evaluate.h, which includes this header for its rows

// A row's columns, named as journal/record.h's LineItem and line_items.csv name them (the box is
// no column: it is where the row is, not what it says).
inline constexpr std::array<std::string_view, 8> kRowColumns = {
    "description", "quantity", "unit_price", "amount", "date", "debit", "credit", "balance"};
inline constexpr std::size_t kColumnCount = kRowColumns.size();

// One row: each column's cell as printed, in kRowColumns' order; a cell that is missing
// (extract::is_missing: empty, N/A, NOT_FOUND) gives nothing.
using Row = std::array<std::string, kColumnCount>;
// Document (as eval names it, io::document_key) → its rows.
using DocumentRows = std::map<std::string, std::vector<Row>>;
// Document → each predicted row's confidence, in its rows' order (a journal's line_items'
// `confidence`, line_items.csv's column); nullopt for a row without one (a model's).
using RowConfidences = std::map<std::string, std::vector<std::optional<double>>>;

Row row_of(const journal::Record::LineItem& item);

// The "line_items" value of a JSONL truth's document: an array of objects whose keys are columns
// (a "box", as a journal's rows carry, is ignored), each cell a string or a number (as JSON writes
// it), each row giving at least one cell. Anything else is a MalformedInputError naming `where`
// ("truth.jsonl:3") and the row.
std::vector<Row> truth_rows_of(const nlohmann::json& items, const std::string& where);

// line_items.csv as a run writes it (docs/run.md): image_file, the columns (any other column, the
// row number and the box, ignored). A MalformedInputError when it is not CSV or has no image_file
// column, or when a confidence cell is neither empty nor a number in [0, 1]. `confidences` (when
// given) gets the confidence column's cells.
DocumentRows read_line_items_csv(const std::filesystem::path& path, const std::string& role,
                                 RowConfidences* confidences = nullptr);

// PRED's rows: a journal's (PredictionFile::rows), else line_items.csv beside a predictions.csv.
// `rows` is nullopt when PRED has none to compare, and `missing` then says why, for one warning.
struct PredictedRows {
  std::optional<DocumentRows> rows;
  std::string missing;
  RowConfidences confidences;
};
PredictedRows predicted_rows(const std::filesystem::path& pred, const PredictionFile& file);

// The assignment of truth rows (i) to predicted rows (j) that maximises the sum of weight[i][j]
// (each ≥ 0; every row of weight has the same length): the Hungarian algorithm, O(n² m) for n ≤ m
// (the matrix turned when it has more rows than columns). Per truth row, its predicted row, or -1
// when there are fewer predicted rows than truth rows; every row of the shorter side is assigned,
// at weight 0 too.
std::vector<int> best_assignment(const std::vector<std::vector<int>>& weight);

// Counts of rows, or of cells: in the truth, predicted, right. A figure over nothing (no
// prediction for precision, no truth for recall) is 0.
struct RowCounts {
  std::size_t truth = 0, predicted = 0, right = 0;
  double precision() const;
  double recall() const;
  double f1() const;
};

struct RowEvaluation {
  std::size_t documents = 0;  // the truth's documents that carry line_items
  // rows: a right row is an assigned pair whose every truth cell agrees. cells: the truth's cells
  // (those it gives); the predicted cells in the columns the truth scores (an assigned pair: its
  // truth row's columns; a predicted row left unassigned: the columns of its document's truth
  // rows, or of the whole truth's when the document's has none); the cells that agree.
  RowCounts rows, cells;
  std::array<RowCounts, kColumnCount> columns;  // cells, per column
  // Each predicted row of a truth's document that carries a confidence: whether it is right (an
  // assigned pair whose every truth cell agrees), for the rows' calibration (docs/eval.md,
  // "Rows"). `row` counts from 1 in the document's predicted rows.
  struct Judged {
    std::string document;
    std::size_t row = 0;
    double confidence = 0;
    bool right = false;
  };
  std::vector<Judged> judged;
};

// Every document of `truth` (its rows against `predicted`'s for the same document, none when it
// has no entry there). A cell agrees when the truth gives it and the prediction's compares equal
// by the docsift rules' comparison for its kind, whichever rule set scores the fields: description
// as a text item (ANLS ≥ 0.5), quantity as a number (one that is no number: the same text), the
// amounts as money (rules.money_tolerance), date as a date (rules.date_order, the same day). Pairs
// the assignment makes with no cell that agrees are left unassigned: a missed truth row and an
// extra predicted one.
RowEvaluation evaluate_rows(const DocumentRows& truth, const DocumentRows& predicted,
                            const extract::ScoringRules& rules,
                            const RowConfidences& confidences = {});

// The rows of a truth that has them (`truth` not empty) against PRED's. nullopt when the truth
// has none, or when PRED has none to compare: `not_scored` then says so (" has rows (line_items)
// and PRED ... has no line_items.csv beside it: the rows are not scored"), to follow the truth's
// name in one warning line.
std::optional<RowEvaluation> score_rows(const DocumentRows& truth,
                                        const std::filesystem::path& pred,
                                        const PredictionFile& file,
                                        const extract::ScoringRules& rules,
                                        std::string& not_scored);

// The reports' parts: the JSON report's "rows" object, the lines after eval's table on stdout,
// the Markdown report's "Rows" section.
nlohmann::json rows_json(const RowEvaluation& rows);
std::string rows_table(const RowEvaluation& rows);
std::string rows_markdown(const RowEvaluation& rows);

}  // namespace docsift::eval
