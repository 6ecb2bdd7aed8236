// A temporary folder for a fuzz target whose parser reads files by path: made once per process
// (mkdtemp under the system's temporary folder), its name starting with `prefix`, and removed with
// what the target wrote in it when the process exits, so that a replay leaves nothing behind.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace docsift::fuzz {

inline std::filesystem::path make_scratch_folder(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  // Registered after `made` is built, so it runs before `made` is destroyed.
  static std::vector<std::filesystem::path> made;
  static const bool registered = std::atexit([] {
                                   for (const auto& folder : made) {
                                     std::error_code ignored;  // gone already: nothing to remove
                                     std::filesystem::remove_all(folder, ignored);
                                   }
                                 }) == 0;
  (void)registered;
  made.push_back(pattern);
  return pattern;
}

}  // namespace docsift::fuzz
