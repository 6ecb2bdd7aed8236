#include "docsift/memory/host.h"

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

namespace docsift::memory {

HostMemory read_host_memory() {
  HostMemory m;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    // "VmRSS:     123456 kB" (current) and "VmHWM:  234567 kB" (peak).
    const bool rss = line.rfind("VmRSS:", 0) == 0, hwm = line.rfind("VmHWM:", 0) == 0;
    if (!rss && !hwm) continue;
    std::istringstream fields(line.substr(6));
    std::uint64_t kb = 0;
    fields >> kb;
    (rss ? m.rss_bytes : m.peak_rss_bytes) = kb * 1024;
  }
  if (m.peak_rss_bytes == 0) {
    struct rusage usage {};
    if (::getrusage(RUSAGE_SELF, &usage) == 0) {
#ifdef __APPLE__
      m.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss);  // bytes on macOS
#else
      m.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // kilobytes elsewhere
#endif
    }
  }
  return m;
}

bool reset_peak_host_memory() {
  // Linux ≥ 4.0: writing 5 to clear_refs resets VmHWM to the current RSS.
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return clear.good();
}

nlohmann::json to_json(const HostMemory& host, nlohmann::json device) {
  return {{"host_rss", host.rss_bytes},
          {"host_peak_rss", host.peak_rss_bytes},
          {"device", std::move(device)}};
}

}  // namespace docsift::memory
