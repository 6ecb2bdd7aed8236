#include "docsift/memory/cleanup.h"

#include <chrono>

#include "docsift/error.h"
#include "docsift/format.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace docsift::memory {

CleanupReport cleanup(c10::Device device, std::uint64_t threshold_bytes, bool force) {
  const auto start = std::chrono::steady_clock::now();
  CleanupReport report;
  synchronize_device(device);  // nothing queued may still use memory we are about to release
  report.before = read_memory(device);
  const DeviceMemory& d = report.before.device;
  if (!d.valid) {
    report.reason = "no device cache";
  } else if (force) {
    report.emptied_cache = true;
    report.reason = "after out-of-memory";
  } else if (d.gap() > threshold_bytes) {
    report.emptied_cache = true;
    report.reason = "reserved - allocated " + human_bytes(d.gap()) + " > threshold " +
                    human_bytes(threshold_bytes);
  } else if (d.inactive_split > threshold_bytes) {
    report.emptied_cache = true;
    report.reason = "inactive split " + human_bytes(d.inactive_split) + " > threshold " +
                    human_bytes(threshold_bytes);
  } else {
    report.reason =
        "gap " + human_bytes(d.gap()) + " within threshold " + human_bytes(threshold_bytes);
  }
  if (report.emptied_cache) empty_device_cache();
#if defined(__GLIBC__)
  // glibc keeps freed heap pages (per-image tensors, decoded images) mapped; hand them back so
  // host RSS tracks what is live rather than the largest image so far.
  ::malloc_trim(0);
#endif
  report.after = read_memory(device);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

nlohmann::json to_json(const CleanupReport& r) {
  return {{"before", to_json(r.before)},
          {"after", to_json(r.after)},
          {"emptied_cache", r.emptied_cache},
          {"reason", r.reason},
          {"seconds", r.seconds}};
}

std::string apply_memory_budget(c10::Device device, double budget_gb) {
  const DeviceMemory d = read_device_memory(device);
  if (!d.valid || d.driver_total == 0)
    return "memory.budget_gb ignored: " + device.str() + " is not a CUDA device";
  const double budget = budget_gb * 1024.0 * 1024.0 * 1024.0;
  const double fraction = budget / static_cast<double>(d.driver_total);
  if (fraction > 1.0) {
    throw ConfigError("memory.budget_gb " + std::to_string(budget_gb) + " is more than " +
                      device.str() + " has (" + human_bytes(d.driver_total) +
                      "); lower it or leave it unset to use the whole device");
  }
  set_device_memory_fraction(device, fraction);
  return "memory budget " + human_bytes(static_cast<std::uint64_t>(budget)) + " on " +
         device.str() + " (fraction " + std::to_string(fraction) + " of " +
         human_bytes(d.driver_total) + ")";
}

}  // namespace docsift::memory
