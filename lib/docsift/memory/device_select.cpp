#include <string>

#include "docsift/error.h"
#include "docsift/memory/devices.h"

namespace docsift::memory {

c10::Device resolve_device(const std::string& spec) {
  if (spec == "cpu") return c10::Device(c10::kCPU);
  const int index = spec == "cuda" ? 0 : std::stoi(spec.substr(5));
  const CudaStatus status = cuda_status();
  if (!status.available) {
    throw ConfigError("device " + spec + " is not usable: " + status.reason + "; run on the CPU with --device cpu");
  }
  if (index >= static_cast<int>(status.devices.size())) {
    throw ConfigError("device " + spec + " does not exist: " + std::to_string(status.devices.size()) +
                      " CUDA device(s) visible (check CUDA_VISIBLE_DEVICES), or use --device cpu");
  }
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
}

}  // namespace docsift::memory
