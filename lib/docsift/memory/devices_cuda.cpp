// Built only when the LibTorch has CUDA (DOCSIFT_WITH_CUDA); talks to the CUDA runtime directly
// so that a missing driver is a reason to print, not a warning from deep inside LibTorch.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "docsift/memory/devices.h"

namespace docsift::memory {

CudaStatus cuda_status() {
  CudaStatus status;
  status.compiled = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    status.runtime_version = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
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
    CudaDevice d;
    d.index = i;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) {
      d.name = prop.name;
      d.major = prop.major;
      d.minor = prop.minor;
      d.total_bytes = prop.totalGlobalMem;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      d.free_bytes = free_bytes;
      d.total_bytes = total_bytes;
    }
    status.devices.push_back(d);
  }
  cudaSetDevice(previous);
  return status;
}

}  // namespace docsift::memory
