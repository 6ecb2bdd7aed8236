#include "docsift/memory/allocator_env.h"

#include <cstdlib>

namespace docsift::memory {

std::vector<std::string> apply_allocator_settings(const std::string& settings) {
  std::vector<std::string> warnings;
  if (settings.empty()) return warnings;
  for (const char* name : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    const char* user = std::getenv(name);
    const bool primary = std::string_view(name) == "PYTORCH_CUDA_ALLOC_CONF";
    if (user == nullptr && !primary) continue;
    if (user != nullptr && settings != user) {
      warnings.push_back(std::string(name) + "=\"" + user +
                         "\" from the environment is replaced by memory.allocator \"" + settings +
                         "\"; to keep yours, pass --set memory.allocator=\"" + user + "\"");
    }
    ::setenv(name, settings.c_str(), /*overwrite=*/1);
  }
  return warnings;
}

}  // namespace docsift::memory
