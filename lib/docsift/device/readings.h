// What the CUDA plugin reports of one device's memory: the caching allocator's counters and the
// driver's free/total. A plain struct, so that the plugin interface (cuda_backend.h) and the
// memory layer (memory/device_memory.h, which reads and records it) share one definition.
#pragma once

#include <cstdint>

namespace docsift::device {

struct DeviceMemory {
  bool valid = false;  // a CUDA device was read
  std::uint64_t allocated = 0, reserved = 0, active = 0, inactive_split = 0, requested = 0;
  std::uint64_t peak_allocated = 0, peak_reserved = 0;
  std::int64_t num_ooms = 0, num_alloc_retries = 0;
  std::uint64_t driver_free = 0,
                driver_total = 0;  // cudaMemGetInfo: includes contexts, other processes
  // Cached but unused: what the allocator holds beyond live tensors.
  std::uint64_t gap() const { return reserved > allocated ? reserved - allocated : 0; }
};

}  // namespace docsift::device
