#include "docsift/memory/devices.h"

#include "docsift/memory/cuda_backend.h"

namespace docsift::memory {

// Loads the CUDA plugin: asking what GPUs there are is the first step towards using one.
CudaStatus cuda_status() {
  std::string why;
  if (const CudaBackend* backend = load_cuda_backend(&why)) return backend->status();
  CudaStatus status;
  status.reason = why;
  return status;
}

}  // namespace docsift::memory
