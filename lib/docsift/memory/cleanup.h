// What runs after every image: queued work finished, fragmentation checked, the allocator's
// cache emptied when it holds too much that no tensor uses, freed host heap returned to the OS,
// and a before/after reading to prove it. Per-image tensors and the KV cache are already gone
// by then: the generation session that owned them has ended.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/memory/cleanup_policy.h"
#include "docsift/memory/device_memory.h"

namespace docsift::memory {

struct CleanupReport {
  MemoryReading before, after;
  bool emptied_cache = false;
  std::string reason;  // why the cache was (or was not) emptied
  double seconds = 0;
};

// Empties the device cache when reserved − allocated or the inactive split bytes exceed
// `threshold_bytes` (fragmentation_threshold_mb), or always when `force` (after an OOM).
CleanupReport cleanup(c10::Device device, std::uint64_t threshold_bytes, bool force = false);

nlohmann::json to_json(const CleanupReport& report);

// Caps the caching allocator on `device` at `budget_gb` GiB to emulate a smaller card (the CUDA
// context is not counted). Returns what was set, for the log. Throws ConfigError when the
// budget exceeds the device. Without a CUDA device it does nothing and says so.
std::string apply_memory_budget(c10::Device device, double budget_gb);

}  // namespace docsift::memory
