// Part of the CUDA plugin (device/cuda_backend.h). Talks to the CUDA runtime directly so that a
// missing driver is a reason to print, not a warning from deep inside LibTorch.
#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <exception>
#include <string>

#include "docsift/device/cuda_plugin/plugin.h"

namespace docsift::device::cuda_plugin {
namespace {

// The "NVCC architecture flags" line of LibTorch's CUDA build configuration. LibTorch throws
// when it cannot query the driver, so this is only asked once a device is known to exist.
std::string nvcc_arch_flags() {
  try {
    const std::string config = at::detail::getCUDAHooks().showConfig();
    for (std::size_t start = 0; start < config.size();) {
      std::size_t end = config.find('\n', start);
      if (end == std::string::npos) end = config.size();
      const std::string line = config.substr(start, end - start);
      if (line.find("arch=compute_") != std::string::npos) return line;
      start = end + 1;
    }
  } catch (const std::exception&) {
  }
  return "";
}

}  // namespace

CudaStatus status() {
  CudaStatus status;
  status.compiled = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    status.runtime_version =
        std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  }
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    status.reason = cudaGetErrorString(err);
    // The runtime reports a machine with no driver at all as an "insufficient" driver; say
    // which of the two it is.
    if (err == cudaErrorInsufficientDriver) {
      if (void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD | RTLD_LOCAL)) {
        ::dlclose(driver);
      } else if (void* probe = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
        ::dlclose(probe);
        status.reason += " (update the NVIDIA driver)";
      } else {
        status.reason = "no NVIDIA driver installed (libcuda.so.1 not found)";
      }
    }
    cudaGetLastError();  // clear the sticky error so LibTorch's own probe starts clean
    return status;
  }
  if (count == 0) {
    status.reason = "no CUDA devices visible";
    return status;
  }
  status.available = true;
  int previous = 0;
  cudaGetDevice(&previous);
  for (int i = 0; i < count; ++i) {
    device::CudaDevice d;
    d.index = i;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) {
      d.name = prop.name;
      d.major = prop.major;
      d.minor = prop.minor;
      d.total_bytes = prop.totalGlobalMem;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(i) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      d.free_bytes = free_bytes;
      d.total_bytes = total_bytes;
    }
    status.devices.push_back(d);
  }
  cudaSetDevice(previous);
  status.arch_flags = nvcc_arch_flags();
  return status;
}

}  // namespace docsift::device::cuda_plugin
