// The files docsift writes into an output folder, each over one owned file descriptor: written
// whole and atomically (AtomicFile, write_file_atomic), appended to (AppendFile), and never through
// a symbolic link (refuse_link). The journal (journal.h) is built on the same pieces.
#pragma once

#include <filesystem>
#include <string>

namespace docsift::io {

// One open file descriptor, closed when it goes: moves, never copies.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();  // closes it

 private:
  int fd_ = -1;
};

// Writes all of `data` (retrying short writes and EINTR); docsift::OutputWriteError naming `path`
// otherwise (a full disk, a file-size limit: exit 5 wherever it ends a command).
void write_all(const UniqueFd& fd, const std::string& data, const std::filesystem::path& path);
// fsyncs the folder, so that a file just created or renamed in it survives a crash.
void sync_folder(const std::filesystem::path& dir);
// The calling thread's errno as text.
std::string errno_text();

// A file written whole and atomically, in pieces: `path`.tmp (created exclusively, never through a
// symbolic link), then commit() fsyncs it and renames it over `path`. Dropped uncommitted, the
// temporary is removed and `path` is untouched.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& path);
  ~AtomicFile();  // uncommitted: the temporary is removed
  void write(const std::string& data);
  void commit();

 private:
  std::filesystem::path path_, tmp_;
  UniqueFd fd_;
};

// An existing file opened for appending (never through a symbolic link); each write() lands whole
// at the end or not at all: a failed or short write (a full disk, a file-size limit) is cut back
// to where it started. No fsync: for files derived from the journal, which --resume rebuilds.
class AppendFile {
 public:
  explicit AppendFile(const std::filesystem::path& path);
  void write(const std::string& data);
  // Cuts the file back to how it was before the last write() (the run undoes a CSV row whose
  // journal record could not be written). Throws FileError when it cannot.
  void undo_last_write();

 private:
  std::filesystem::path path_;
  UniqueFd fd_;
  long long last_end_ = -1;  // the size before the last write; -1: nothing to undo
};

// Writes `text` to `path` atomically: a temporary file in the same folder (`path`.tmp, created
// exclusively and never through a symbolic link), fsynced, renamed over.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

// Throws docsift::FileError naming `path` when it is a symbolic link (dangling or not) or exists
// as anything but a regular file: docsift never writes through a link in its output folder, where
// a planted one would redirect the write to any file the user can change.
void refuse_link(const std::filesystem::path& path);

}  // namespace docsift::io
