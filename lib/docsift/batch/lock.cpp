#include "docsift/batch/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "docsift/error.h"

namespace docsift::batch {
namespace {

// The pid the holder of a lock wrote into the file ("" when it cannot be read).
std::string holder_pid(int fd) {
  char pid[32] = {};
  (void)!::pread(fd, pid, sizeof pid - 1, 0);
  return pid;
}

}  // namespace

OutputLock::OutputLock(const std::filesystem::path& out_dir) {
  const std::filesystem::path path = out_dir / ".docsift.lock";
  // O_NOFOLLOW: a planted link must not have its target truncated and overwritten with our pid.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw FileError(path.string() + ": is a symbolic link; docsift never writes through links in the output folder. "
                                    "Remove it, or choose another --out");
  }
  if (fd_ < 0) throw FileError(path.string() + ": cannot create the run lock: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw FileError(path.string() + ": is not a regular file; remove it, or choose another --out");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    throw FileError(out_dir.string() + ": another docsift run is writing here (pid " + pid +
                    "); wait for it to finish, or choose another --out");
  }
  const std::string me = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

FolderReadLock::FolderReadLock(const std::filesystem::path& folder) {
  fd_ = ::open((folder / ".docsift.lock").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) return;  // no lock file: no run has ever held it
  if (::flock(fd_, LOCK_SH | LOCK_NB) != 0) {
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    throw FileError(folder.string() + ": a docsift run is still writing here (pid " + pid +
                    "); merge when it has finished");
  }
}

FolderReadLock::~FolderReadLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace docsift::batch
