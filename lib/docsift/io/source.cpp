#include "docsift/io/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "docsift/error.h"
#include "docsift/io/output_file.h"
#include "docsift/io/pinned_file.h"
#include "docsift/timestamp.h"

namespace docsift::io {

namespace {

// `path` pinned (pinned_file.h), or nullopt when it is not there or not the file the scan found
// (the read that follows fails, saying why).
std::optional<PinnedFile> pin_of(const std::filesystem::path& path,
                                 const std::filesystem::path& expected_real) {
  std::optional<PinnedFile> pin;
  try {
    pin.emplace(path, expected_real);
  } catch (const FileError&) {
    return std::nullopt;
  }
  if (pin->fd() < 0) return std::nullopt;
  return pin;
}

// FNV-1a, 64 bits, of the pinned file's content: it finds a rewrite, which is all resume asks; it
// is not a defence against someone forging a file (nothing here trusts a file for being unchanged).
std::optional<std::string> hash_of(const PinnedFile& pin) {
  const UniqueFd fd(::open(pin.open_path().c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  std::uint64_t h = 1469598103934665603ull, total = 0;
  std::vector<unsigned char> buf(1 << 16);
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (total > kHashMaxBytes) return std::nullopt;  // it grew past the cap as we read
    for (ssize_t i = 0; i < n; ++i) h = (h ^ buf[static_cast<std::size_t>(i)]) * 1099511628211ull;
  }
  char out[32];
  std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return std::string(out);
}

}  // namespace

std::optional<SourceStamp> stamp_file(const std::filesystem::path& path, bool with_hash,
                                      const std::filesystem::path& expected_real) {
  // One opening for the size, the time and the hash: a link put at the name since the scan gets no
  // stamp at all, never the size of the file it leads to.
  const std::optional<PinnedFile> pin = pin_of(path, expected_real);
  return pin ? stamp_pinned(*pin, with_hash) : std::nullopt;
}

std::optional<SourceStamp> stamp_pinned(const PinnedFile& pin, bool with_hash) {
  struct stat st {};
  if (pin.fd() < 0 || ::fstat(pin.fd(), &st) != 0) return std::nullopt;
  SourceStamp s;
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (with_hash && s.size <= kHashMaxBytes) s.hash = hash_of(pin);
  return s;
}

std::optional<std::string> content_hash(const std::filesystem::path& path,
                                        const std::filesystem::path& expected_real) {
  const std::optional<PinnedFile> pin = pin_of(path, expected_real);
  return pin ? hash_of(*pin) : std::nullopt;
}

std::string stamp_change(const SourceStamp& before, const SourceStamp& now) {
  if (before.size != now.size) {
    return "size " + std::to_string(before.size) + " → " + std::to_string(now.size) + " bytes";
  }
  if (before.mtime_ns != now.mtime_ns) {
    const auto time = [](std::int64_t ns) {
      return rfc3339_utc(WallClock::time_point(
          std::chrono::duration_cast<WallClock::duration>(std::chrono::nanoseconds(ns))));
    };
    return "modified " + time(before.mtime_ns) + " → " + time(now.mtime_ns);
  }
  return "";
}

}  // namespace docsift::io
