// --files-from lists (docsift run): one path a line ("\r\n" ends a line too), or NUL-separated.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace docsift::io {

// A list's size is capped while it is read: one path a line, 1 GiB is millions of them.
inline constexpr std::int64_t kMaxFileListBytes = std::int64_t{1} << 30;

// The entries of a list read from `in`: one a line, a trailing '\r' removed, or with `nul` one
// per NUL-terminated entry; empty entries are skipped, nothing else is changed (a path may hold
// any byte but NUL, and with `nul` a newline). `from` names the list in messages ("-" for standard
// input). Throws docsift::ConfigError when the list runs over `max_bytes`.
std::vector<std::string> read_file_list(std::istream& in, bool nul, const std::string& from,
                                        std::int64_t max_bytes = kMaxFileListBytes);

}  // namespace docsift::io
