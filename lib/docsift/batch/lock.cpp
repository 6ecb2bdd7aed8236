#include "docsift/batch/lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "docsift/error.h"

namespace docsift::batch {
namespace {

// Who holds a lock, from what the holder wrote into the file ("PID WHAT": "123 run", "456 merge"):
// "docsift run (pid 123)" while that process lives; when it is gone (its lock passed on to a
// process it started, or a file from another machine) it says so.
std::string holder(int fd) {
  char text[64] = {};
  (void)!::pread(fd, text, sizeof text - 1, 0);
  const std::string written(text);
  const std::string pid = written.substr(0, written.find(' '));
  const std::string what = written.find(' ') == std::string::npos ? "run" : written.substr(written.find(' ') + 1);
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return "a docsift process";
  const bool alive = ::kill(static_cast<pid_t>(std::stol(pid)), 0) == 0 || errno == EPERM;
  return alive ? "docsift " + what + " (pid " + pid + ")"
               : "a process whose recorded holder, docsift " + what + " (pid " + pid + "), is gone";
}

}  // namespace

OutputLock::OutputLock(const std::filesystem::path& out_dir, const std::string& what) {
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
    const std::string who = holder(fd_);
    ::close(fd_);
    fd_ = -1;
    throw FileError(out_dir.string() + ": " + who + " is writing here; wait for it to finish, or choose another --out");
  }
  const std::string me = std::to_string(::getpid()) + " " + what;
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

FolderReadLock::FolderReadLock(const std::filesystem::path& folder) {
  fd_ = ::open((folder / ".docsift.lock").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) return;  // no lock file: no run has ever held it
  if (::flock(fd_, LOCK_SH | LOCK_NB) != 0) {
    const std::string who = holder(fd_);
    ::close(fd_);
    fd_ = -1;
    throw FileError(folder.string() + ": " + who + " is still writing here; merge when it has finished");
  }
}

FolderReadLock::~FolderReadLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace docsift::batch
