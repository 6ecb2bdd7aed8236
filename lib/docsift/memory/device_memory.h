// Device memory readings and the allocator controls docsift uses around each image: the CUDA
// caching allocator's counters (allocated, reserved, active, inactive split, peaks, OOM count) and
// the driver's free/total, plus emptying the cache, resetting peaks, synchronising and capping the
// allocator (memory fraction). For a CPU device every reading is empty and every control a no-op.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "docsift/device/readings.h"
#include "docsift/memory/host.h"

namespace docsift::memory {

using device::DeviceMemory;

struct MemoryReading {
  HostMemory host;
  DeviceMemory device;
};

DeviceMemory read_device_memory(c10::Device device);
MemoryReading read_memory(c10::Device device);

// Returns unused cached blocks to the driver (all CUDA devices). No-op without CUDA.
void empty_device_cache();
void reset_peak_device_memory(c10::Device device);
// Waits for all work queued on the device.
void synchronize_device(c10::Device device);
// Caps what the caching allocator may reserve on `device` to `fraction` of its total memory.
void set_device_memory_fraction(c10::Device device, double fraction);

nlohmann::json to_json(const DeviceMemory& memory);
nlohmann::json to_json(const MemoryReading& reading);

}  // namespace docsift::memory
