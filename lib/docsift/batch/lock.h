// One run per output folder: an advisory lock on OUT/.docsift.lock, held for the run's life. The
// kernel releases it when the process dies, even by kill -9, so a stale lock never blocks --resume.
#pragma once

#include <filesystem>
#include <string>

namespace docsift::batch {

class OutputLock {
 public:
  // `what` ("run" or "merge") is written into the file with the pid, so that a refused process can
  // name the holder. Throws docsift::FileError naming the folder and the holder when it is taken.
  explicit OutputLock(const std::filesystem::path& out_dir, const std::string& what = "run");
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

// Reading a finished run's folder (docsift merge): a shared lock on its existing lock file, held
// while it is read, so that no run writes there meanwhile. Never creates the file, so the folder is
// unchanged; a folder whose lock file is absent has never had a run writing to it.
class FolderReadLock {
 public:
  // Throws docsift::FileError naming the folder and the writing run's pid when it is taken.
  explicit FolderReadLock(const std::filesystem::path& folder);
  ~FolderReadLock();
  FolderReadLock(const FolderReadLock&) = delete;
  FolderReadLock& operator=(const FolderReadLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace docsift::batch
