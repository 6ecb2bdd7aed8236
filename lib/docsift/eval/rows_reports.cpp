// rows.h's reports: the JSON report's "rows" object, the lines on stdout, the Markdown section.
#include <sstream>
#include <string>

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

}  // namespace

nlohmann::json rows_json(const RowEvaluation& e) {
  nlohmann::json columns = nlohmann::json::object();
  for (std::size_t c = 0; c < kColumnCount; ++c) {
    if (shown(e.columns[c])) columns[std::string(kRowColumns[c])] = counts_json(e.columns[c]);
  }
  return {{"documents", e.documents},
          {"rows", counts_json(e.rows)},
          {"cells", counts_json(e.cells)},
          {"columns", columns}};
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
  return out.str();
}

}  // namespace docsift::eval
