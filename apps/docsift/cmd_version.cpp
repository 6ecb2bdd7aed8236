#include <cstdio>
#include <iostream>

#include "commands.h"
#include "docsift/memory/devices.h"
#include "docsift/format.h"
#include "docsift/version.h"
#include "exit_codes.h"

namespace docsift::cli {

int print_version() {
  std::cout << "docsift " << version() << '\n';
  std::cout << "LibTorch " << libtorch_version() << '\n';
  const auto cuda = memory::cuda_status();
  if (!cuda.compiled) {
    std::cout << "CUDA: not compiled in (" << cuda.reason << ")\n";
  } else if (!cuda.available) {
    std::cout << "CUDA: compiled in (runtime " << cuda.runtime_version << "), not available: "
              << cuda.reason << '\n';
  } else {
    std::cout << "CUDA: compiled in (runtime " << cuda.runtime_version << "), "
              << cuda.devices.size() << " device" << (cuda.devices.size() == 1 ? "" : "s") << '\n';
    for (const auto& d : cuda.devices) {
      std::cout << "  cuda:" << d.index << "  " << d.name << "  sm_" << d.major << d.minor << "  "
                << human_bytes(d.total_bytes) << " total, " << human_bytes(d.free_bytes)
                << " free\n";
    }
  }
  return kExitOk;
}

}  // namespace docsift::cli
