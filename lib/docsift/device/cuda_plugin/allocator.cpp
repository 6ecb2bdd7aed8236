// Part of the CUDA plugin (device/cuda_backend.h). The allocator API moved between releases
// (DeviceStats went to c10/core/CachingDeviceAllocator.h around 2.5 with aliases kept; emptyCache
// gained a defaulted argument around 2.8); the calls below compile on 2.4 and newer.
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include "docsift/device/cuda_plugin/plugin.h"

namespace docsift::device::cuda_plugin {
namespace {

namespace alloc = c10::cuda::CUDACachingAllocator;
constexpr std::size_t kAggregate = 0;  // StatType::AGGREGATE

c10::DeviceIndex index_of(c10::Device device) { return device.has_index() ? device.index() : 0; }

// The caching allocator's per-device state is created by LibTorch's lazy CUDA initialisation,
// which the first CUDA tensor triggers; its stats and fraction calls fail ("Invalid device
// argument") before that. A one-element tensor is the version-stable way to trigger it.
bool usable(c10::Device device) {
  if (!device.is_cuda() || c10::cuda::device_count() <= index_of(device)) return false;
  static const bool initialised = [&] {
    (void)at::empty({1}, at::TensorOptions().dtype(at::kByte).device(device));
    return true;
  }();
  return initialised;
}

}  // namespace

DeviceMemory read_memory(c10::Device device) {
  DeviceMemory m;
  if (!usable(device)) return m;
  const c10::DeviceIndex index = index_of(device);
  const auto stats = alloc::getDeviceStats(index);
  const auto current = [](const auto& stat) {
    return static_cast<std::uint64_t>(stat[kAggregate].current);
  };
  const auto peak = [](const auto& stat) {
    return static_cast<std::uint64_t>(stat[kAggregate].peak);
  };
  m.valid = true;
  m.allocated = current(stats.allocated_bytes);
  m.reserved = current(stats.reserved_bytes);
  m.active = current(stats.active_bytes);
  m.inactive_split = current(stats.inactive_split_bytes);
  m.requested = current(stats.requested_bytes);
  m.peak_allocated = peak(stats.allocated_bytes);
  m.peak_reserved = peak(stats.reserved_bytes);
  m.num_ooms = stats.num_ooms;
  m.num_alloc_retries = stats.num_alloc_retries;
  const c10::cuda::CUDAGuard guard(index);
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) {
    m.driver_free = free;
    m.driver_total = total;
  } else {
    cudaGetLastError();  // a failed query must not leave a sticky error for LibTorch's next call
  }
  return m;
}

void empty_cache() {
  if (usable(c10::Device(c10::kCUDA, 0))) alloc::emptyCache();
}

void reset_peak(c10::Device device) {
  if (usable(device)) alloc::resetPeakStats(index_of(device));
}

void synchronize(c10::Device device) {
  if (!usable(device)) return;
  const c10::cuda::CUDAGuard guard(index_of(device));
  c10::cuda::device_synchronize();
}

void set_memory_fraction(c10::Device device, double fraction) {
  if (usable(device)) alloc::setMemoryFraction(fraction, index_of(device));
}

}  // namespace docsift::device::cuda_plugin
