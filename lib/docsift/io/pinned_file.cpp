#include "docsift/io/pinned_file.h"

#include <fcntl.h>

#include <system_error>

#include "docsift/error.h"

namespace docsift::io {
namespace fs = std::filesystem;

PinnedFile::PinnedFile(const fs::path& path, const fs::path& expected_real)
    : path_(path), open_path_(path) {
  // O_PATH: the file is found, not opened for reading (nor a device's open run, nor a FIFO waited
  // on); the readers open /proc/self/fd/N, which is this file whatever the name leads to by then.
  fd_ = UniqueFd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd_.valid()) {
    // Not opened: the readers say why in their own words (missing, permission, ...).
    return;
  }
  const fs::path proc = "/proc/self/fd/" + std::to_string(fd_.get());
  std::error_code ec;
  const fs::path opened = fs::read_symlink(proc, ec);
  if (ec) return;  // no /proc: nothing can say which file this is (docs/run.md)
  open_path_ = proc;
  if (expected_real.empty() || opened == expected_real) return;
  throw FileError(path.string() + ": is not the file the scan found there (it now leads to " +
                  opened.string() +
                  "; a link or a linked folder was put in its place since); not read, pass "
                  "--follow-links (input.follow_links) to read what links lead to");
}

std::string PinnedFile::named(std::string text) const {
  if (open_path_ == path_) return text;
  const std::string from = open_path_.string(), to = path_.string();
  std::size_t at = 0;
  while ((at = text.find(from, at)) != std::string::npos) {
    const std::size_t end = at + from.size();
    if (end < text.size() && text[end] >= '0' && text[end] <= '9') {
      at = end;  // another descriptor that starts the same ("/proc/self/fd/1" in ".../fd/12")
      continue;
    }
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

}  // namespace docsift::io
