// The launch check every kernel entry point of the plugin ends with. Host code for the .cu files.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace docsift::device::cuda_plugin {

// Throws std::runtime_error, "<kernel>: kernel launch failed: <cudaGetErrorString>", when the
// launches just queued (or an earlier asynchronous error still pending on the thread) failed.
inline void check_launch(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(kernel) +
                             ": kernel launch failed: " + cudaGetErrorString(err));
  }
}

}  // namespace docsift::device::cuda_plugin
