// results.jsonl: the run's journal and source of truth. One JSON record per line, appended and
// fsynced as each image ends, so `kill -9` at any moment loses at most the image in flight.
// Reopening it (--resume) drops a torn last line and indexes which images are finished. Only the
// names are kept in memory; whatever else needs the records streams through the file again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "docsift/error.h"

namespace docsift::io {

class JournalWriteError : public FileError {
 public:
  using FileError::FileError;
};

// A record's identity: its "file_bytes" (the exact name, percent-escaped, present when the name is
// not valid UTF-8), else its "file".
std::string record_key(const nlohmann::json& record);

// Reads the complete records of a journal without changing it: each record, checked as --resume
// checks it, goes to `visit` with the byte offset of its line. Returns the bytes the complete
// lines take; the file's size minus that is a torn last line (a run killed mid-write), which is
// not visited. A damaged line is a FileError with its line number.
std::uint64_t read_journal(const std::filesystem::path& path,
                           const std::function<void(const nlohmann::json&, std::uint64_t offset)>& visit);

class Journal {
 public:
  // Opens (creating) `path` for appending. With `resume`, existing records are read and a torn
  // last line is cut off; without it an existing non-empty journal is an error (FileError
  // suggesting --resume or another --out), so finished results are never overwritten.
  // `visit` sees each complete record read back, in order, so a caller can rebuild what it derives
  // from the journal (the CSV, totals) in the same single pass.
  Journal(const std::filesystem::path& path, bool resume,
          const std::function<void(const nlohmann::json&)>& visit = {});
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Appends one record (must carry a string "file") and fsyncs it. All or nothing: when the write
  // or the fsync fails (a full disk, a file-size limit), the file is cut back to its last complete
  // line and JournalWriteError names the file and the reason.
  void append(const nlohmann::json& record);
  // Whether the journal held a record for `file` when it was opened (what --resume skips).
  bool finished(const std::string& file) const { return files_.count(file) > 0; }
  const std::filesystem::path& path() const { return path_; }
  std::size_t dropped_torn_bytes() const { return torn_bytes_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::set<std::string> files_;
  std::size_t torn_bytes_ = 0;
};

// A file written whole and atomically, in pieces: `path`.tmp (created exclusively, never through a
// symbolic link), then commit() fsyncs it and renames it over `path`. Dropped uncommitted, the
// temporary is removed and `path` is untouched.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const std::string& data);
  void commit();

 private:
  std::filesystem::path path_, tmp_;
  int fd_ = -1;
};

// An existing file opened for appending (never through a symbolic link); each write() lands whole
// at the end. No fsync: for files derived from the journal, which --resume rebuilds.
class AppendFile {
 public:
  explicit AppendFile(const std::filesystem::path& path);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  void write(const std::string& data);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// Writes `text` to `path` atomically: a temporary file in the same folder (`path`.tmp, created
// exclusively and never through a symbolic link), fsynced, renamed over.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

// Throws docsift::FileError naming `path` when it is a symbolic link (dangling or not) or exists
// as anything but a regular file: docsift never writes through a link in its output folder, where
// a planted one would redirect the write to any file the user can change.
void refuse_link(const std::filesystem::path& path);

}  // namespace docsift::io
