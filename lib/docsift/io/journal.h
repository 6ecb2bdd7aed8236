// results.jsonl: the run's journal and source of truth. One JSON record per line, appended and
// fsynced as each image ends, so `kill -9` at any moment loses at most the image in flight.
// Reopening it (--resume) drops a torn last line and indexes which images are finished.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include <string>

namespace docsift::io {

class JournalWriteError : public FileError {
 public:
  using FileError::FileError;
};

class Journal {
 public:
  // Opens (creating) `path` for appending. With `resume`, existing records are read and a torn
  // last line is cut off; without it an existing non-empty journal is an error (FileError
  // suggesting --resume or another --out), so finished results are never overwritten.
  Journal(const std::filesystem::path& path, bool resume);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Appends one record (must carry a string "file") and fsyncs it. All or nothing: when the write
  // or the fsync fails (a full disk, a file-size limit), the file is cut back to its last complete
  // line and JournalWriteError names the file and the reason.
  void append(const nlohmann::json& record);
  bool finished(const std::string& file) const { return records_.count(file) > 0; }
  // The last record for each file, by file.
  const std::map<std::string, nlohmann::json>& records() const { return records_; }
  const std::filesystem::path& path() const { return path_; }
  std::size_t dropped_torn_bytes() const { return torn_bytes_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::map<std::string, nlohmann::json> records_;
  std::size_t torn_bytes_ = 0;
};

// Writes `text` to `path` atomically: a temporary file in the same folder (`path`.tmp, created
// exclusively and never through a symbolic link), fsynced, renamed over.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

// Throws docsift::FileError naming `path` when it is a symbolic link (dangling or not) or exists
// as anything but a regular file: docsift never writes through a link in its output folder, where
// a planted one would redirect the write to any file the user can change.
void refuse_link(const std::filesystem::path& path);

}  // namespace docsift::io
