#include "docsift/batch/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "docsift/error.h"

namespace docsift::batch {

OutputLock::OutputLock(const std::filesystem::path& out_dir) {
  const std::filesystem::path path = out_dir / ".docsift.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw FileError(path.string() + ": cannot create the run lock: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    (void)!::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    throw FileError(out_dir.string() + ": another docsift run is writing here (pid " + std::string(pid) +
                    "); wait for it to finish, or choose another --out");
  }
  const std::string me = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace docsift::batch
