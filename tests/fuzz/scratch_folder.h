// A temporary folder for a fuzz target whose parser reads files by path: made once per process
// (mkdtemp under the system's temporary folder), its name starting with `prefix`.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace docsift::fuzz {

inline std::filesystem::path make_scratch_folder(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  return pattern;
}

}  // namespace docsift::fuzz
