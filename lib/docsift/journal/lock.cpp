#include "docsift/journal/lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "docsift/error.h"
#include "docsift/journal/folder.h"

namespace docsift::journal {

// The file's docsift record as a pid and what: nullopt unless it is exactly "PID run", "PID merge"
// or "PID review" (review apply) with PID a process id (1 to INT_MAX: pid_t). A number too large
// for any integer
// ("99999999999999999999999 run") is not one, and must not be an exception from deep inside.
std::optional<std::pair<pid_t, std::string>> parse_lock_record(const std::string& text) {
  const std::size_t space = text.find(' ');
  if (space == std::string::npos) return std::nullopt;
  const std::string what = text.substr(space + 1);
  if (what != "run" && what != "merge" && what != "review") return std::nullopt;
  long long pid = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + space, pid);
  if (error != std::errc() || end != text.data() + space || pid < 1 ||
      pid > std::numeric_limits<pid_t>::max()) {
    return std::nullopt;
  }
  return std::pair{static_cast<pid_t>(pid), what};
}

// `text` quoted for a message line: control bytes, '"' and '\\' as \xNN (the file is read 64 bytes
// at most).
std::string quote_lock_text(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

// Who holds a lock, from what the holder wrote into the file ("PID WHAT", as OutputLock writes:
// "123 run", "456 merge").
struct Holder {
  bool named = false;   // the file holds a docsift record
  std::string who;      // named: "docsift run (pid 123)", or that the recorded process is gone
  std::string content;  // not named: what the file holds, quoted and printable, for the message
};

std::string file_text(int fd) {
  char text[65] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  return n > 0 ? std::string(text, static_cast<std::size_t>(n)) : std::string();
}

// While that process lives: "docsift run (pid 123)"; when it is gone (its lock passed on to a
// process it started, or a file from another machine) it says so.
Holder holder(int fd) {
  const std::string written = file_text(fd);
  const auto record = parse_lock_record(written);
  if (!record) return {false, "", written.empty() ? "nothing" : quote_lock_text(written)};
  const auto& [pid, what] = *record;
  const bool alive = ::kill(pid, 0) == 0 || errno == EPERM;
  const std::string named = "docsift " + what + " (pid " + std::to_string(pid) + ")";
  return {true, alive ? named : "a process whose recorded holder, " + named + ", is gone", ""};
}

// The line for a lock another process holds: by its holder when the file names one, else the
// lock file itself, what it holds and how to find the holder.
std::string taken_message(const std::filesystem::path& folder, const std::filesystem::path& lock,
                          int fd, const std::string& verb, const std::string& then) {
  const Holder h = holder(fd);
  if (h.named) return folder.string() + ": " + h.who + " " + verb + "; " + then;
  return lock.string() + ": locked by a process the file does not name: it holds " + h.content +
         ", not docsift's \"PID run\" (a foreign lock file, or one written over). `fuser -v " +
         lock.string() + "` shows the holder; " + then;
}

}  // namespace

OutputLock::OutputLock(const std::filesystem::path& out_dir, const std::string& what) {
  const std::filesystem::path path = out_dir / out_files::kLock;
  // O_NOFOLLOW: a planted link must not have its target truncated and overwritten with our pid.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw FileError(path.string() +
                    ": is a symbolic link; docsift never writes through links in the output "
                    "folder. Remove it, or choose another --out");
  }
  if (fd_ < 0)
    throw FileError(path.string() + ": cannot create the run lock: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw FileError(path.string() + ": is not a regular file; remove it, or choose another --out");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string message = taken_message(out_dir, path, fd_, "is writing here",
                                              "wait for it to finish, or choose another --out");
    ::close(fd_);
    fd_ = -1;
    throw FileError(message);
  }
  // The kernel's lock is the truth: no process holds it, so whatever the file says is stale.
  const std::string before = file_text(fd_);
  if (!before.empty() && !parse_lock_record(before)) {
    taken_over_ = path.string() + ": held " + quote_lock_text(before) +
                  ", not docsift's \"PID run\", and no process held its lock; stale, so taken over";
  }
  const std::string me = std::to_string(::getpid()) + " " + what;
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

FolderReadLock::FolderReadLock(const std::filesystem::path& folder, const std::string& reader) {
  fd_ = ::open((folder / out_files::kLock).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) return;  // no lock file: no run has ever held it
  if (::flock(fd_, LOCK_SH | LOCK_NB) != 0) {
    const std::string message =
        taken_message(folder, folder / out_files::kLock, fd_, "is still writing here",
                      reader + " when it has finished");
    ::close(fd_);
    fd_ = -1;
    throw FileError(message);
  }
}

FolderReadLock::~FolderReadLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace docsift::journal
