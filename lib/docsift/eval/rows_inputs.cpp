// rows.h's readers: a truth's line_items, a run's line_items.csv, and which of them PRED has.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "docsift/edit_distance.h"
#include "docsift/error.h"
#include "docsift/eval/confidence.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/rows.h"
#include "docsift/extract/field.h"
#include "docsift/format.h"
#include "docsift/io/csv.h"
#include "docsift/io/page_name.h"
#include "docsift/journal/folder.h"

namespace docsift::eval {

namespace {

namespace fs = std::filesystem;

// The column named `name`, or kColumnCount.
std::size_t column_index(std::string_view name) {
  const auto it = std::find(kRowColumns.begin(), kRowColumns.end(), name);
  return static_cast<std::size_t>(it - kRowColumns.begin());
}

std::string column_list() {
  std::string out;
  for (const std::string_view c : kRowColumns) out += (out.empty() ? "" : ", ") + std::string(c);
  return out;
}

// A key of a truth's row that is no column: named with the column it likely means.
[[noreturn]] void unknown_cell(const std::string& where, const std::string& key) {
  const std::vector<std::string> names(kRowColumns.begin(), kRowColumns.end());
  const std::string meant = closest_match(key, names);
  throw MalformedInputError(where + ": unknown cell \"" + printable(key) + "\"" +
                            (meant.empty() ? "" : " (did you mean " + meant + "?)") +
                            "; a row's cells are " + column_list());
}

Row truth_row_of(const nlohmann::json& row, const std::string& where) {
  if (!row.is_object()) throw MalformedInputError(where + " is not an object");
  Row out;
  bool gives = false;
  for (const auto& [key, cell] : row.items()) {
    if (key == "box") continue;  // where a journal's row is on its page: not a cell
    const std::size_t c = column_index(key);
    if (c == kColumnCount) unknown_cell(where, key);
    if (!cell.is_string() && !cell.is_number()) {
      throw MalformedInputError(where + ": \"" + key + "\" is not a string or a number");
    }
    out[c] = cell.is_string() ? cell.get<std::string>() : cell.dump();
    gives = gives || !extract::is_missing(out[c]);
  }
  if (!gives) throw MalformedInputError(where + " gives no cell (" + column_list() + ")");
  return out;
}

}  // namespace

Row row_of(const journal::Record::LineItem& item) {
  Row row;
  row[0] = item.description;
  const std::optional<std::string>* cells[] = {&item.quantity, &item.unit_price, &item.amount,
                                               &item.date,     &item.debit,      &item.credit,
                                               &item.balance};
  for (std::size_t c = 1; c < kColumnCount; ++c) row[c] = cells[c - 1]->value_or("");
  return row;
}

std::vector<Row> truth_rows_of(const nlohmann::json& items, const std::string& where) {
  if (!items.is_array()) throw MalformedInputError(where + ": \"line_items\" is not an array");
  std::vector<Row> rows;
  for (const nlohmann::json& row : items) {
    rows.push_back(
        truth_row_of(row, where + ": line_items row " + std::to_string(rows.size() + 1)));
  }
  return rows;
}

DocumentRows read_line_items_csv(const fs::path& path, const std::string& role,
                                 RowConfidences* confidences) {
  const std::string text = read_input(path, role);
  io::CsvTable table;
  try {
    table = io::parse_csv(text, path.string());
  } catch (const FileError& e) {
    throw MalformedInputError(e.what());  // a syntax error, naming the line
  }
  std::size_t image = table.header.size(), confidence = table.header.size();
  std::vector<std::size_t> column(table.header.size(), kColumnCount);
  for (std::size_t h = 0; h < table.header.size(); ++h) {
    if (table.header[h] == "image_file") image = h;
    if (table.header[h] == "confidence") confidence = h;
    column[h] = column_index(table.header[h]);
  }
  if (image == table.header.size())
    throw MalformedInputError(path.string() + ": no image_file column");
  DocumentRows rows;
  for (const auto& cells : table.rows) {
    Row row;
    for (std::size_t h = 0; h < cells.size(); ++h) {
      if (column[h] != kColumnCount) row[column[h]] = cells[h];
    }
    const std::string document(io::document_key(cells[image]));
    rows[document].push_back(std::move(row));
    if (confidences == nullptr) continue;
    const std::string cell = confidence < cells.size() ? cells[confidence] : "";
    (*confidences)[document].push_back(
        cell.empty()
            ? std::nullopt
            : std::optional(parse_confidence(cell, path.string() + ": " + document + ", row " +
                                                       std::to_string(rows[document].size()))));
  }
  return rows;
}

PredictedRows predicted_rows(const fs::path& pred, const PredictionFile& file) {
  const auto none = [&pred](const std::string& why) {
    return PredictedRows{std::nullopt, "PRED " + pred.string() + why, {}};
  };
  if (pred.extension() == ".jsonl") {
    if (file.rows) return {file.rows, "", file.row_confidences};
    return none(" has no page with line_items (a model's pages have no rows yet)");
  }
  const fs::path beside = pred.parent_path() / journal::out_files::kLineItems;
  if (pred.filename() != journal::out_files::kPredictions)
    return none(" is no run's predictions.csv or results.jsonl, the files whose rows eval reads");
  if (!fs::exists(beside))
    return none(" has no " + std::string(journal::out_files::kLineItems) + " beside it");
  PredictedRows out;
  out.rows =
      read_line_items_csv(beside, std::string(journal::out_files::kLineItems), &out.confidences);
  return out;
}

std::optional<RowEvaluation> score_rows(const DocumentRows& truth, const fs::path& pred,
                                        const PredictionFile& file,
                                        const extract::ScoringRules& rules,
                                        std::string& not_scored) {
  if (truth.empty()) return std::nullopt;
  const PredictedRows found = predicted_rows(pred, file);
  if (!found.rows) {
    not_scored = " has rows (line_items) and " + found.missing + ": the rows are not scored";
    return std::nullopt;
  }
  return evaluate_rows(truth, *found.rows, rules, found.confidences);
}

}  // namespace docsift::eval
