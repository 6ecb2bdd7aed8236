#include "docsift/io/file_list.h"

#include "docsift/error.h"

namespace docsift::io {

std::vector<std::string> read_file_list(std::istream& in, bool nul, const std::string& from,
                                        std::int64_t max_bytes) {
  std::vector<std::string> paths;
  std::string entry;
  std::int64_t total = 0;
  while (std::getline(in, entry, nul ? '\0' : '\n')) {
    total += static_cast<std::int64_t>(entry.size()) +
             (in.eof() ? 0 : 1);  // the separator, when there was one
    if (total > max_bytes) {
      throw ConfigError("--files-from " + from + ": over " +
                        (max_bytes == kMaxFileListBytes ? std::string("1 GiB")
                                                        : std::to_string(max_bytes) + " bytes") +
                        "; split the list");
    }
    if (!nul && !entry.empty() && entry.back() == '\r') entry.pop_back();
    if (!entry.empty()) paths.push_back(entry);
  }
  return paths;
}

}  // namespace docsift::io
