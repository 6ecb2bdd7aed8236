// The files a record goes to (docs/run.md, "Outputs"), written the same way, so that `run` and
// `merge` write them alike and output.formats (config.h: jsonl, csv) picks them by name: the
// journal, and the tables derived from it (predictions.csv, confidence.csv, review.csv,
// documents.csv, line_items.csv). Opened through OutputFolder (output_folder.h), which names them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/batch/outputs.h"
#include "docsift/batch/record.h"
#include "docsift/config/config.h"
#include "docsift/io/journal.h"
#include "docsift/io/output_file.h"

namespace docsift::batch {

// A file records go to: the journal (output.formats' jsonl) or a table (csv: all five).
enum class Output { kJournal, kPredictions, kConfidence, kReview, kDocuments, kLineItems };
inline constexpr Output kTables[] = {Output::kPredictions, Output::kConfidence, Output::kReview,
                                     Output::kDocuments, Output::kLineItems};
// The tables `formats` asks for, in kTables' order: none without csv.
std::vector<Output> tables_of(const std::vector<config::OutputFormat>& formats);

// Each file's writer has the same two steps: write(record) adds what the record makes in the file
// (its journal line, its rows: a table has none for a failed record), all of it or nothing and
// throws; finish() completes the file (one written whole is put in place, its name untouched until
// then; one appended to already holds every write). Two concrete writers and no common base: the
// run writes the tables, then the journal last (run_stages.h, write_page), and never treats them
// alike.

// results.jsonl, appended to and fsynced record by record (io/journal.h). The run's record of
// what it did, so the run writes it last and never takes a write back (run_stages.h, write_page).
class JournalSink {
 public:
  explicit JournalSink(io::Journal journal) : journal_(std::move(journal)) {}
  void write(const Record& record) { last_offset_ = journal_.append(record.to_json()); }
  void finish() {}  // each write is fsynced
  // The byte offset of the last write's line: what the journal's visitor sees for it on --resume.
  std::uint64_t last_offset() const { return last_offset_; }
  const std::filesystem::path& path() const { return journal_.path(); }

 private:
  io::Journal journal_;
  std::uint64_t last_offset_ = 0;
};

// A table in predictions.csv's layout (kTables): its header (image_file, then a column per field;
// review.csv's own), then each record's rows.
class TableSink {
 public:
  enum class Mode {
    kWhole,   // a new file: the header into `path`.tmp, which finish() puts in place
    kAppend,  // the file as kWhole left it; each write lands whole at its end or not at all
  };
  // kDocuments: `documents` holds the pages of files not yet complete, shared by the sink that
  // wrote the table whole and the one that appends to it after (Tables); one of its own if null.
  TableSink(Output table, const std::filesystem::path& path, const std::vector<std::string>& fields,
            Mode mode, std::shared_ptr<DocumentRows> documents = nullptr);
  void write(const Record& record);
  // kAppend has nothing to do: no fsync, since --resume rebuilds a table from the journal.
  void finish();
  // kAppend: cuts the last write back out (the journal could not take its record). Throws
  // FileError.
  void undo_last_write();

 private:
  Output table_;
  std::vector<std::string> fields_;
  std::optional<io::AtomicFile> whole_;
  std::optional<io::AppendFile> append_;
  std::shared_ptr<DocumentRows> documents_;  // kDocuments only
};

// The tables a run keeps beside its journal, equal to it at every stop: written whole from the
// journal when the run starts (so they match it after any crash) and whenever a record supersedes a
// row, and appended to as each record is journaled, never rewritten whole per page. A record's rows
// go in all of them or in none.
class Tables {
 public:
  Tables() = default;  // none: output.formats without csv
  Tables(std::vector<std::pair<Output, std::filesystem::path>> files,
         std::vector<std::string> fields);
  bool empty() const { return files_.empty(); }
  // Writes each table whole from the records `each` hands its argument, in order, then opens them
  // for add().
  using Records = std::function<void(const std::function<void(const Record&)>&)>;
  void rebuild(const Records& each);
  void add(const Record& record);

 private:
  std::vector<std::pair<Output, std::filesystem::path>> files_;
  std::vector<std::string> fields_;
  std::vector<std::unique_ptr<TableSink>> appended_;
};

}  // namespace docsift::batch
