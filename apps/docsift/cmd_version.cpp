#include <cstdio>
#include <iostream>

#include "commands.h"
#if DOCSIFT_WITH_TORCH
#include "docsift/device/cuda_arch.h"
#include "docsift/device/cuda_backend.h"
#include "docsift/device/devices.h"
#include "docsift/format.h"
#endif
#include "docsift/version.h"
#include "exit_codes.h"

namespace docsift::cli {

int print_version() {
  std::cout << "docsift " << version() << '\n';
  std::cout << "LibTorch " << libtorch_version() << '\n';
#if !DOCSIFT_WITH_TORCH
  std::cout << "CUDA: not in this build (no LibTorch)\n";
  return kExitOk;
#else
  const auto cuda = device::cuda_status();
  if (!cuda.compiled) {
    std::cout << "CUDA: " << cuda.reason << '\n';
    return kExitOk;
  }
  std::cout << "CUDA plugin: " << device::cuda_backend_path() << '\n';
  if (!cuda.available) {
    std::cout << "CUDA: compiled in (runtime " << cuda.runtime_version
              << "), not available: " << cuda.reason << '\n';
  } else {
    std::cout << "CUDA: compiled in (runtime " << cuda.runtime_version << "), "
              << cuda.devices.size() << " device" << (cuda.devices.size() == 1 ? "" : "s") << '\n';
    const auto archs = device::parse_nvcc_arch_flags(cuda.arch_flags);
    if (!archs.empty()) std::cout << "LibTorch GPU code: " << device::describe(archs) << '\n';
    for (const auto& d : cuda.devices) {
      std::cout << "  cuda:" << d.index << "  " << d.name << "  sm_" << d.major << d.minor << "  "
                << human_bytes(d.total_bytes) << " total, " << human_bytes(d.free_bytes)
                << " free\n";
      if (const std::string mismatch = device::arch_mismatch(cuda, d); !mismatch.empty()) {
        std::cout << "    " << mismatch << '\n';
      }
    }
  }
  return kExitOk;
#endif
}

}  // namespace docsift::cli
