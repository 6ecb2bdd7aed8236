#include "docsift/memory/devices.h"

#ifndef DOCSIFT_WITH_CUDA
namespace docsift::memory {

CudaStatus cuda_status() {
  CudaStatus status;
  status.reason = "this build's LibTorch has no CUDA support";
  return status;
}

}  // namespace docsift::memory
#endif
