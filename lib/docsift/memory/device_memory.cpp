#include "docsift/memory/device_memory.h"

namespace docsift::memory {

#ifndef DOCSIFT_WITH_CUDA
// A LibTorch without CUDA: no device memory to read or control.
DeviceMemory read_device_memory(c10::Device) { return {}; }
void empty_device_cache() {}
void reset_peak_device_memory(c10::Device) {}
void synchronize_device(c10::Device) {}
void set_device_memory_fraction(c10::Device, double) {}
#endif

MemoryReading read_memory(c10::Device device) { return {read_host_memory(), read_device_memory(device)}; }

nlohmann::json to_json(const DeviceMemory& m) {
  if (!m.valid) return nullptr;
  return {{"allocated", m.allocated},         {"reserved", m.reserved},
          {"gap", m.gap()},                   {"active", m.active},
          {"inactive_split", m.inactive_split}, {"requested", m.requested},
          {"peak_allocated", m.peak_allocated}, {"peak_reserved", m.peak_reserved},
          {"num_ooms", m.num_ooms},           {"num_alloc_retries", m.num_alloc_retries},
          {"driver_free", m.driver_free},     {"driver_total", m.driver_total}};
}

nlohmann::json to_json(const MemoryReading& r) {
  return {{"host_rss", r.host.rss_bytes}, {"host_peak_rss", r.host.peak_rss_bytes}, {"device", to_json(r.device)}};
}

}  // namespace docsift::memory
