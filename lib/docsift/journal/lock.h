// One run per output folder: an advisory lock on OUT/.docsift.lock, held for the run's life. The
// kernel releases it when the process dies, even by kill -9, so a stale lock never blocks --resume.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

namespace docsift::journal {

class OutputLock {
 public:
  // `what` ("run", "merge" or "review") is written into the file with the pid, so that a refused
  // process can name the holder. Throws docsift::FileError naming the folder and the holder when it
  // is taken; when the file does not name a holder ("99999999999999999999999 run", another
  // program's text), it names the lock file, what it holds, and how to find the holder. A file that
  // holds such text but whose lock no process holds is stale: taken over, and taken_over() says so.
  explicit OutputLock(const std::filesystem::path& out_dir, const std::string& what = "run");
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // A line for the log when the lock file held something other than a docsift record; else "".
  const std::string& taken_over() const { return taken_over_; }

 private:
  int fd_ = -1;
  std::string taken_over_;
};

// Reading a finished run's folder (docsift merge, docsift report): a shared lock on its existing
// lock file, held while it is read, so that no run writes there meanwhile. Never creates the file,
// so the folder is unchanged; a folder whose lock file is absent has never had a run writing to it.
class FolderReadLock {
 public:
  // Throws docsift::FileError naming the folder and the writing run's pid when it is taken (or,
  // as OutputLock, the lock file when it names none).
  // `reader` ("merge", "report") is what the message says to do when the run has finished.
  explicit FolderReadLock(const std::filesystem::path& folder, const std::string& reader = "merge");
  ~FolderReadLock();
  FolderReadLock(const FolderReadLock&) = delete;
  FolderReadLock& operator=(const FolderReadLock&) = delete;

 private:
  int fd_ = -1;
};

// The lock file's text (what a holder wrote, "123 run" or "456 merge") as a pid and what: nullopt
// unless it is exactly "PID run", "PID merge" or "PID review" with PID from 1 to the largest pid_t.
// Never throws.
std::optional<std::pair<pid_t, std::string>> parse_lock_record(const std::string& text);

// `text` quoted for a message line: control bytes, '"' and '\\' as \xNN. Never throws.
std::string quote_lock_text(const std::string& text);

}  // namespace docsift::journal
