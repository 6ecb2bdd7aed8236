// Which GPUs a LibTorch's CUDA kernels run on. LibTorch reports the nvcc flags it was built with
// ("-gencode;arch=compute_75,code=sm_75;...", in at::detail::getCUDAHooks().showConfig()); a GPU
// outside them fails at its first kernel with "no kernel image is available for execution on the
// device", far from the cause. docsift checks when it picks the device and says what to install.
// Plain C++: the CUDA plugin reads the flags, this only parses and compares them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace docsift::device {

// One `code=` target of the build: machine code for sm_XY (optionally the arch-specific "a" or
// family "f" variant), or PTX for compute_XY, which the driver compiles for the same or newer GPUs.
struct CudaArch {
  int major = 0, minor = 0;
  char variant = 0;  // 0, 'a' (this exact GPU only) or 'f' (same major version)
  bool ptx = false;
};

// Every `code=` target in `flags` (either nvcc spelling: code=sm_80 or code=[sm_80,compute_80]),
// in order, without repeats. Empty when the text has none.
std::vector<CudaArch> parse_nvcc_arch_flags(std::string_view flags);

// Whether a GPU of compute capability major.minor can run code built for `archs`: machine code for
// the same major version and a minor version no newer ("a" variants: the exact GPU), or PTX for
// the same or an older compute capability.
bool arch_runs_on(const std::vector<CudaArch>& archs, int major, int minor);

// "sm_75 sm_80 sm_90a, PTX compute_120"
std::string describe(const std::vector<CudaArch>& archs);

}  // namespace docsift::device
