#include "docsift/memory/device_memory.h"

#include "docsift/device/cuda_backend.h"

namespace docsift::memory {

// Without the CUDA plugin loaded no CUDA device is in use: nothing to read, nothing to control.
DeviceMemory read_device_memory(c10::Device device) {
  const device::CudaBackend* cuda = device::loaded_cuda_backend();
  return cuda && device.is_cuda() ? cuda->read_memory(device) : DeviceMemory{};
}
void empty_device_cache() {
  if (const device::CudaBackend* cuda = device::loaded_cuda_backend()) cuda->empty_cache();
}
void reset_peak_device_memory(c10::Device device) {
  if (const device::CudaBackend* cuda = device::loaded_cuda_backend()) cuda->reset_peak(device);
}
void synchronize_device(c10::Device device) {
  if (const device::CudaBackend* cuda = device::loaded_cuda_backend()) cuda->synchronize(device);
}
void set_device_memory_fraction(c10::Device device, double fraction) {
  if (const device::CudaBackend* cuda = device::loaded_cuda_backend())
    cuda->set_memory_fraction(device, fraction);
}

MemoryReading read_memory(c10::Device device) {
  return {read_host_memory(), read_device_memory(device)};
}

nlohmann::json to_json(const DeviceMemory& m) {
  if (!m.valid) return nullptr;
  return {{"allocated", m.allocated},
          {"reserved", m.reserved},
          {"gap", m.gap()},
          {"active", m.active},
          {"inactive_split", m.inactive_split},
          {"requested", m.requested},
          {"peak_allocated", m.peak_allocated},
          {"peak_reserved", m.peak_reserved},
          {"num_ooms", m.num_ooms},
          {"num_alloc_retries", m.num_alloc_retries},
          {"driver_free", m.driver_free},
          {"driver_total", m.driver_total}};
}

nlohmann::json to_json(const MemoryReading& r) { return to_json(r.host, to_json(r.device)); }

}  // namespace docsift::memory
