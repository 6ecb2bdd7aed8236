#include "docsift/strict_json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "docsift/error.h"

namespace docsift {

using nlohmann::json;

json parse_json_strict(std::string_view text, const std::string& label, int max_depth) {
  std::vector<std::unordered_set<std::string>> keys_per_object;
  std::string duplicate;
  bool too_deep = false;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_depth) too_deep = true;
    switch (event) {
      case json::parse_event_t::object_start:
        keys_per_object.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys_per_object.empty()) keys_per_object.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys_per_object.empty() &&
            !keys_per_object.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return !too_deep;  // false discards the value: nothing too deep is kept
  };
  json root;
  try {
    root = json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::exception& e) {
    throw FileError(label + ": malformed JSON: " + e.what());
  }
  if (too_deep) {
    throw FileError(label + ": JSON nests deeper than " + std::to_string(max_depth) +
                    " levels, which this file never needs");
  }
  if (!duplicate.empty()) {
    throw FileError(label + ": key '" + duplicate + "' appears more than once");
  }
  return root;
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: a FIFO by that name must not hang the open; it is refused below as not a regular
  // file. Links are followed (the Hugging Face cache's snapshots are made of them).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    throw FileError(path + ": cannot open for reading: " + std::strerror(error));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw FileError(path + ": cannot determine the file size");
  if (!S_ISREG(st.st_mode)) throw FileError(path + ": not a regular file");
  // The size checked on the opened file, so that a file swapped after a stat of its path cannot
  // slip a larger one past the cap; the read stops at the cap if it grows meanwhile.
  if (st.st_size < 0 || static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw FileError(path + ": " + std::to_string(static_cast<long long>(st.st_size)) +
                    " bytes is larger than the " + std::to_string(max_bytes) +
                    "-byte limit for this kind of file");
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileError(path + ": read failed: " + std::strerror(errno));
    if (n == 0) break;  // shrank since the fstat: what is there
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

json read_json_file(const std::string& path, int max_depth, std::size_t max_bytes) {
  return parse_json_strict(read_text_file(path, max_bytes), path, max_depth);
}

}  // namespace docsift
