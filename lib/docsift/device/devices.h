// What accelerators this process can see. Never throws for a machine without a GPU or driver:
// it reports why CUDA is unavailable instead.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

namespace docsift::device {

struct CudaDevice {
  int index = 0;
  std::string name;
  int major = 0;  // compute capability
  int minor = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;  // driver view: includes other processes and CUDA contexts
};

struct CudaStatus {
  bool compiled = false;        // built against a LibTorch with CUDA
  std::string runtime_version;  // CUDA runtime the build uses, "13.0"; empty without CUDA
  bool available = false;       // a driver and at least one device
  std::string reason;           // why not available
  std::vector<CudaDevice> devices;
  // The nvcc flags LibTorch's CUDA kernels were built with (cuda_arch.h); read from LibTorch's
  // build configuration, which needs a driver: empty when none is available or it cannot be read.
  std::string arch_flags;
};

// Queries the driver; creates a CUDA context on each visible device to read free memory.
CudaStatus cuda_status();

// "cpu", "cuda" or "cuda:N" (already syntax-checked by config) as a device this process can use.
// Throws docsift::ConfigError saying why a CUDA device is unusable and suggesting --device cpu,
// including a GPU that the linked LibTorch has no kernels for (arch_mismatch below).
c10::Device resolve_device(const std::string& spec);

// The one-line explanation when `device` cannot run the LibTorch whose build flags are in
// `status.arch_flags` (which GPU, which architectures the build has, what to install), or "" when
// it can or the flags are unknown.
std::string arch_mismatch(const CudaStatus& status, const CudaDevice& device);

}  // namespace docsift::device
