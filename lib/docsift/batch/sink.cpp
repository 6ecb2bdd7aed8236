#include "docsift/batch/sink.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "docsift/batch/outputs.h"

namespace docsift::batch {

std::vector<Output> tables_of(const std::vector<config::OutputFormat>& formats) {
  if (std::find(formats.begin(), formats.end(), config::OutputFormat::Csv) == formats.end())
    return {};
  return {std::begin(kTables), std::end(kTables)};
}

TableSink::TableSink(Output table, const std::filesystem::path& path,
                     const std::vector<std::string>& fields, Mode mode,
                     std::shared_ptr<DocumentRows> documents)
    : table_(table), fields_(fields), documents_(std::move(documents)) {
  if (table_ == Output::kDocuments && !documents_)
    documents_ = std::make_shared<DocumentRows>(fields_);
  if (mode == Mode::kAppend) {
    append_.emplace(path);
    return;
  }
  whole_.emplace(path);
  whole_->write(table_ == Output::kReview      ? review_header()
                : table_ == Output::kLineItems ? line_items_header()
                                               : csv_header(fields_));
}

void TableSink::write(const Record& record) {
  const std::string rows = table_ == Output::kPredictions  ? csv_row(record, fields_)
                           : table_ == Output::kConfidence ? confidence_row(record, fields_)
                           : table_ == Output::kDocuments  ? documents_->add(record)
                           : table_ == Output::kLineItems  ? line_item_rows(record)
                                                           : review_rows(record);
  try {
    if (whole_) {
      whole_->write(rows);
    } else {
      append_->write(rows);
    }
  } catch (...) {
    if (documents_) documents_->undo();
    throw;
  }
}

void TableSink::finish() {
  if (whole_) whole_->commit();
}

void TableSink::undo_last_write() {
  // A file written whole is dropped uncommitted when anything fails; there is nothing to undo.
  if (!append_) throw std::logic_error("TableSink: undo_last_write on a table written whole");
  append_->undo_last_write();
  if (documents_) documents_->undo();
}

Tables::Tables(std::vector<std::pair<Output, std::filesystem::path>> files,
               std::vector<std::string> fields)
    : files_(std::move(files)), fields_(std::move(fields)) {}

void Tables::rebuild(const Records& each) {
  // The files open for appending go first: the rebuilt ones are renamed over them.
  appended_.clear();
  std::vector<std::unique_ptr<TableSink>> whole;
  // documents.csv's files not yet complete, carried from the whole table to the appended one.
  const auto documents = std::make_shared<DocumentRows>(fields_);
  for (const auto& [table, path] : files_) {
    whole.push_back(
        std::make_unique<TableSink>(table, path, fields_, TableSink::Mode::kWhole, documents));
  }
  if (whole.empty()) return;
  each([&](const Record& record) {
    for (auto& sink : whole) sink->write(record);
  });
  for (auto& sink : whole) sink->finish();
  for (const auto& [table, path] : files_) {
    appended_.push_back(
        std::make_unique<TableSink>(table, path, fields_, TableSink::Mode::kAppend, documents));
  }
}

void Tables::add(const Record& record) {
  std::size_t written = 0;
  try {
    for (; written < appended_.size(); ++written) appended_[written]->write(record);
  } catch (...) {
    // The record's rows go in every table or none: take back those already written.
    while (written-- > 0) appended_[written]->undo_last_write();
    throw;
  }
}

}  // namespace docsift::batch
