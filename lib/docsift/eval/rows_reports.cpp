// rows.h's reports: the JSON report's "rows" object, the lines on stdout, the Markdown section.
#include <sstream>
#include <string>

#include "docsift/eval/confidence.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/rows.h"

namespace docsift::eval {

namespace {

nlohmann::json counts_json(const RowCounts& c) {
  return {{"truth", c.truth},           {"predicted", c.predicted}, {"right", c.right},
          {"precision", c.precision()}, {"recall", c.recall()},     {"f1", c.f1()}};
}

// The columns shown: those the truth gives, or the predictions fill where the truth scores.
bool shown(const RowCounts& c) { return c.truth > 0 || c.predicted > 0; }

std::string padded(const std::string& text, std::size_t width) {
  return text + std::string(text.size() < width ? width - text.size() : 1, ' ');
}

// One line of the stdout table: name, the three counts, precision, recall, F1.
std::string table_line(const std::string& name, const RowCounts& c) {
  return padded(name, 17) + padded(std::to_string(c.truth), 7) +
         padded(std::to_string(c.predicted), 11) + padded(std::to_string(c.right), 7) +
         padded(fixed(c.precision()), 11) + padded(fixed(c.recall()), 8) + fixed(c.f1()) + "\n";
}

std::string markdown_line(const std::string& name, const RowCounts& c) {
  return "| " + name + " | " + std::to_string(c.truth) + " | " + std::to_string(c.predicted) +
         " | " + std::to_string(c.right) + " | " + fixed(c.precision()) + " | " +
         fixed(c.recall()) + " | " + fixed(c.f1()) + " |\n";
}

// The rows' confidences against their being right: how many, how many right, their mean and the
// expected calibration error over confidence.h's ten bins.
struct RowCalibration {
  std::size_t rows = 0, right = 0;
  double mean = 0, ece = 0;
};
RowCalibration row_calibration(const RowEvaluation& e) {
  RowCalibration out;
  std::vector<Judged> values;
  for (const RowEvaluation::Judged& j : e.judged) {
    values.push_back({j.confidence, j.right});
    out.right += j.right ? 1 : 0;
    out.mean += j.confidence;
  }
  out.rows = values.size();
  if (out.rows > 0) out.mean /= static_cast<double>(out.rows);
  out.ece = calibrate(values).ece;
  return out;
}

// "312 rows with a confidence: mean 0.912, right 0.904, ECE 0.031".
std::string calibration_line(const RowCalibration& c) {
  return std::to_string(c.rows) + " predicted rows with a confidence: mean " + fixed(c.mean) +
         ", right " + fixed(c.rows == 0 ? 0.0 : static_cast<double>(c.right) / c.rows) + ", ECE " +
         fixed(c.ece);
}

}  // namespace

nlohmann::json rows_json(const RowEvaluation& e) {
  nlohmann::json columns = nlohmann::json::object();
  for (std::size_t c = 0; c < kColumnCount; ++c) {
    if (shown(e.columns[c])) columns[std::string(kRowColumns[c])] = counts_json(e.columns[c]);
  }
  nlohmann::json out = {{"documents", e.documents},
                        {"rows", counts_json(e.rows)},
                        {"cells", counts_json(e.cells)},
                        {"columns", columns}};
  if (!e.judged.empty()) {
    const RowCalibration c = row_calibration(e);
    nlohmann::json judged = nlohmann::json::array();
    for (const RowEvaluation::Judged& j : e.judged)
      judged.push_back({{"document", j.document},
                        {"row", j.row},
                        {"confidence", j.confidence},
                        {"right", j.right}});
    out["confidence"] = {{"rows", c.rows},
                         {"right", c.right},
                         {"mean", c.mean},
                         {"ece", c.ece},
                         {"judged", std::move(judged)}};
  }
  return out;
}

std::string rows_table(const RowEvaluation& e) {
  std::string out = "\nrows: the line items of " + std::to_string(e.documents) + " document" +
                    (e.documents == 1 ? "" : "s") + "\n" + padded("", 17) +
                    "truth  predicted  right  precision  recall  F1\n";
  out += table_line("rows", e.rows) + table_line("cells", e.cells);
  for (std::size_t c = 0; c < kColumnCount; ++c) {
    if (!shown(e.columns[c])) continue;
    std::string name = "  ";  // built in place: GCC 12 warns of "literal" + std::string&&
    name += kRowColumns[c];
    out += table_line(name, e.columns[c]);
  }
  if (!e.judged.empty()) out += calibration_line(row_calibration(e)) + "\n";
  return out;
}

std::string rows_markdown(const RowEvaluation& e) {
  std::ostringstream out;
  out << "\n## Rows\n\nThe line items of " << e.documents << " document"
      << (e.documents == 1 ? "" : "s")
      << ", each predicted row matched to a truth row by the assignment that agrees in the most "
         "cells; a row is right when every cell its truth gives agrees (docs/eval.md, "
         "\"Rows\").\n\n| | truth | predicted | right | precision | recall | F1 |\n"
         "|---|---|---|---|---|---|---|\n"
      << markdown_line("rows", e.rows) << markdown_line("cells", e.cells);
  for (std::size_t c = 0; c < kColumnCount; ++c) {
    if (!shown(e.columns[c])) continue;
    std::string name = "`";
    name += kRowColumns[c];
    name += '`';
    out << markdown_line(name, e.columns[c]);
  }
  if (!e.judged.empty()) out << "\n" << calibration_line(row_calibration(e)) << ".\n";
  return out.str();
}

}  // namespace docsift::eval
