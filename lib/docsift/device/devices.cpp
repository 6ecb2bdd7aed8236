#include "docsift/device/devices.h"

#include <string>

#include "docsift/device/cuda_arch.h"
#include "docsift/device/cuda_backend.h"
#include "docsift/error.h"

namespace docsift::device {

// Loads the CUDA plugin: asking what GPUs there are is the first step towards using one.
CudaStatus cuda_status() {
  std::string why;
  if (const CudaBackend* backend = load_cuda_backend(&why)) return backend->status();
  CudaStatus status;
  status.reason = why;
  return status;
}

c10::Device resolve_device(const std::string& spec) {
  if (spec == "cpu") return c10::Device(c10::kCPU);
  const int index = spec == "cuda" ? 0 : std::stoi(spec.substr(5));
  const CudaStatus status = cuda_status();
  if (!status.available) {
    throw ConfigError("device " + spec + " is not usable: " + status.reason +
                      "; run on the CPU with --device cpu");
  }
  if (index >= static_cast<int>(status.devices.size())) {
    throw ConfigError("device " + spec +
                      " does not exist: " + std::to_string(status.devices.size()) +
                      " CUDA device(s) visible (check CUDA_VISIBLE_DEVICES), or use --device cpu");
  }
  if (const std::string mismatch = arch_mismatch(status, status.devices[index]);
      !mismatch.empty()) {
    throw ConfigError(mismatch);
  }
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
}

std::string arch_mismatch(const CudaStatus& status, const CudaDevice& device) {
  const std::vector<CudaArch> archs = parse_nvcc_arch_flags(status.arch_flags);
  if (archs.empty() || arch_runs_on(archs, device.major, device.minor)) return "";
  const std::string sm = "sm_" + std::to_string(device.major * 10 + device.minor);
  std::string advice = "build docsift against a LibTorch whose CUDA build includes " + sm;
  if (device.major < 7 || (device.major == 7 && device.minor == 0)) {
    // Volta and older: PyTorch's CUDA 12.8+ builds dropped them (docs/install.md, "V100 (sm_70)").
    advice +=
        " (for a V100: the cxx11-ABI LibTorch for CUDA 12.6, then LIBTORCH_DIR=... "
        "scripts/setup.sh)";
  }
  return "cuda:" + std::to_string(device.index) + " (" + device.name + ", " + sm +
         ") cannot run this build's LibTorch (CUDA " + status.runtime_version +
         "), which has GPU code for " + describe(archs) + " only; " + advice +
         ", or run on the CPU with --device cpu";
}

}  // namespace docsift::device
