// results.jsonl: the run's journal and source of truth. One JSON record per line, appended and
// fsynced as each image ends, so `kill -9` at any moment loses at most the image in flight.
// Reopening it (--resume) drops a torn last line and hands each record to the caller, which keeps
// what it needs of them (batch/run.cpp: each page's latest record); whatever else needs the records
// streams through the file again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "docsift/error.h"
#include "docsift/io/output_file.h"

namespace docsift::io {

class JournalWriteError : public FileError {
 public:
  using FileError::FileError;
};

// What a visitor throws for a line that is JSON but not a record of the right shape (the record's
// shape is batch/record.h's): the problem, which the journal reports with the file and line.
class BadRecord : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Sees each complete record read back with the byte offset of its line; throws BadRecord for a
// wrong shape.
using JournalVisitor = std::function<void(const nlohmann::json& record, std::uint64_t offset)>;

// Reads the complete records of a journal without changing it, each to `visit`. Returns the bytes
// the complete lines take; the file's size minus that is a torn last line (a run killed
// mid-write), which is not visited. A damaged line is a FileError with its line number.
std::uint64_t read_journal(const std::filesystem::path& path, const JournalVisitor& visit);

class Journal {
 public:
  // Opens (creating) `path` for appending. With `resume`, existing records are read and a torn
  // last line is cut off; without it an existing non-empty journal is an error (FileError
  // suggesting --resume or another --out), so finished results are never overwritten.
  // `visit` sees each complete record read back, in order, so a caller can rebuild what it derives
  // from the journal (what each page last did) in the same single pass.
  Journal(const std::filesystem::path& path, bool resume, const JournalVisitor& visit);

  // Appends one record (must carry a string "file") and fsyncs it. All or nothing: when the write
  // or the fsync fails (a full disk, a file-size limit), the file is cut back to its last complete
  // line and JournalWriteError names the file and the reason. Returns the line's byte offset (what
  // a JournalVisitor sees for it when the journal is read back).
  std::uint64_t append(const nlohmann::json& record);
  const std::filesystem::path& path() const { return path_; }
  std::size_t dropped_torn_bytes() const { return torn_bytes_; }

 private:
  std::filesystem::path path_;
  UniqueFd fd_;
  std::size_t torn_bytes_ = 0;
};

}  // namespace docsift::io
