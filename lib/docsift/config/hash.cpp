#include <cstdint>
#include <cstdio>

#include "docsift/config/config.h"

namespace docsift::config {

std::string hash(Config config) {
  config.output.dir.clear();
  config.input.follow_links = false;  // which files are read, not what a page's record says
  config.eval = {};  // scoring settings change no result of a run (config.h)
  config.gate = {};
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : to_yaml(config)) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace docsift::config
