#include "docsift/io/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "docsift/error.h"

namespace docsift::io {
namespace fs = std::filesystem;

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string errno_text() { return std::strerror(errno); }

void write_all(const UniqueFd& fd, const std::string& data, const fs::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw OutputWriteError(path.string() + ": cannot write: " + errno_text());
    }
    done += static_cast<std::size_t>(n);
  }
}

void sync_folder(const fs::path& dir) {
  const UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) ::fsync(fd.get());
}

void refuse_link(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::is_symlink(st)) {
    throw FileError(
        path.string() +
        ": is a symbolic link; docsift never writes through links in the output folder (one could "
        "redirect its writes to another file). Remove it, or choose another --out");
  }
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    throw FileError(path.string() +
                    ": exists and is not a regular file; remove it, or choose another --out");
  }
}

AtomicFile::AtomicFile(const fs::path& path) : path_(path), tmp_(path.string() + ".tmp") {
  // O_EXCL: a file already there, a link above all, is never written through. A regular file left
  // by a run that died between create and rename is ours to remove.
  refuse_link(tmp_);
  std::error_code ec;
  fs::remove(tmp_, ec);
  fd_ = UniqueFd(::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd_.valid()) {
    const int error = errno;
    const std::string why = tmp_.string() + ": cannot create: " + errno_text();
    if (error == ENOSPC || error == EDQUOT) throw OutputWriteError(why);
    throw FileError(why);
  }
}

AtomicFile::~AtomicFile() {
  if (!fd_.valid()) return;
  fd_.reset();
  std::error_code ec;
  fs::remove(tmp_, ec);
}

void AtomicFile::write(const std::string& data) { write_all(fd_, data, tmp_); }

void AtomicFile::commit() {
  const bool synced = ::fsync(fd_.get()) == 0;
  fd_.reset();
  if (!synced) throw OutputWriteError(tmp_.string() + ": fsync failed: " + errno_text());
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    throw OutputWriteError(path_.string() + ": cannot replace: " + errno_text());
  sync_folder(path_.parent_path());
}

AppendFile::AppendFile(const fs::path& path) : path_(path) {
  fd_ = UniqueFd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW));
  if (!fd_.valid()) throw FileError(path.string() + ": cannot open for appending: " + errno_text());
}

void AppendFile::write(const std::string& data) {
  const off_t end = ::lseek(fd_.get(), 0, SEEK_END);
  try {
    write_all(fd_, data, path_);
  } catch (const FileError& e) {
    const bool cut = end >= 0 && ::ftruncate(fd_.get(), end) == 0;
    throw OutputWriteError(
        std::string(e.what()) +
        (cut ? "; the partial line was removed" : "; the partial line could not be removed"));
  }
  last_end_ = end;
}

void AppendFile::undo_last_write() {
  if (last_end_ < 0) return;
  if (::ftruncate(fd_.get(), last_end_) != 0)
    throw FileError(path_.string() + ": cannot cut back: " + errno_text());
  last_end_ = -1;
}

void write_file_atomic(const fs::path& path, const std::string& text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

}  // namespace docsift::io
