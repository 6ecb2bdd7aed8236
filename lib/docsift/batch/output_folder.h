// An output folder as `run` and `merge` write it and `merge` and `report` read it (docs/run.md,
// "Outputs"): the names of its files in one place, the checks every writer makes before it writes
// there, and the opening of its journal and tables, so that the commands cannot drift apart (merge
// once checked results.jsonl.tmp for a link and run did not).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/batch/sink.h"
#include "docsift/config/config.h"
#include "docsift/io/journal.h"
#include "docsift/io/same_file.h"
#include "docsift/journal/folder.h"
#include "docsift/journal/lock.h"

namespace docsift::batch {

using journal::FolderReadLock;
using journal::OutputLock;

// The files docsift writes in an output folder (journal/folder.h), and the file each output
// (sink.h) is written to.
namespace out_files {
using namespace journal::out_files;
// The file an output (sink.h) is written to.
constexpr std::string_view of(Output output) {
  switch (output) {
    case Output::kJournal:
      return kJournal;
    case Output::kPredictions:
      return kPredictions;
    case Output::kConfidence:
      return kConfidence;
    case Output::kReview:
      return kReview;
    case Output::kDocuments:
      return kDocuments;
    case Output::kLineItems:
      return kLineItems;
  }
  return kJournal;
}
}  // namespace out_files

class OutputFolder {
 public:
  // Creates `dir` when it is not there; refuses (docsift::FileError naming it) a link or anything
  // but a regular file at the lock's name, at every name of out_files::kWritten and at each one's
  // temporary, before anything is written; then takes the folder's lock for `what` ("run",
  // "merge"; lock.h), held as long as this object lives.
  OutputFolder(const std::filesystem::path& dir, const std::string& what);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path file(std::string_view name) const { return dir_ / name; }
  const OutputLock& lock() const { return lock_; }

  // The journal, open for appending (io/journal.h): with `resume`, its records are read back to
  // `visit` first; without, a journal already there is refused (FileError: --resume or another
  // --out).
  JournalSink journal(bool resume, const io::JournalVisitor& visit) const;
  // The tables `formats` asks for (sink.h: none without csv), for the run to rebuild and append to.
  Tables tables(const std::vector<config::OutputFormat>& formats,
                const std::vector<std::string>& fields) const;
  // One table, written whole or appended to (TableSink::Mode).
  std::unique_ptr<TableSink> table(Output table, const std::vector<std::string>& fields,
                                   TableSink::Mode mode) const;
  // Writes summary.json atomically. Throws docsift::FileError.
  void write_summary(const Summary& summary) const;
  // Removes summary.json: a run that takes the folder over owns its summary from then on, so that
  // one that dies, or cannot write its own, never leaves a stale one (docs/run.md, "Stops").
  void remove_summary() const;

 private:
  static const std::filesystem::path& checked(const std::filesystem::path& dir);
  std::filesystem::path dir_;
  OutputLock lock_;
};

// Throws ConfigError (exit 2), before anything is written or removed, when `path`, which `option`
// ("--junit", "--metrics") would write, is a folder, or one of the files the command reads
// (`reads`, by device and inode) or one of an output folder's own files: a name of out_files (or
// its temporary) in `out_dir`, or in any folder that holds a journal or a lock (a run's or a
// merge's folder). A command never writes over what it reads, nor over a run's journal or tables.
void refuse_to_overwrite(const std::filesystem::path& path, const std::string& option,
                         const io::ReadFiles& reads, const std::filesystem::path& out_dir = {});

}  // namespace docsift::batch
