#include "support/cuda_kernels.h"

#include "docsift/device/devices.h"
#include "docsift/model/linear.h"

namespace docsift::testing {

std::string why_no_cuda_kernels() {
  if (!model::cuda_kernels_compiled())
    return "docsift's CUDA kernels not compiled in (CPU LibTorch)";
  const auto status = device::cuda_status();
  return status.available ? std::string() : "no CUDA device: " + status.reason;
}

}  // namespace docsift::testing
