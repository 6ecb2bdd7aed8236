// Host memory of this process, on every platform docsift builds on (Linux: /proc/self/status;
// elsewhere the peak from getrusage and no current value).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace docsift::memory {

struct HostMemory {
  std::uint64_t rss_bytes = 0;       // resident now (0 when the platform cannot say)
  std::uint64_t peak_rss_bytes = 0;  // high-water mark of the process
};

HostMemory read_host_memory();

// Starts a new peak from the current RSS, so the peak can be read per image. Returns false where
// the platform cannot (the peak then stays the process's high-water mark).
bool reset_peak_host_memory();

// A record's memory reading: {"host_rss", "host_peak_rss", "device"}, `device` being the device's
// reading (device_memory.h) or null on the CPU.
nlohmann::json to_json(const HostMemory& host, nlohmann::json device = nullptr);

}  // namespace docsift::memory
