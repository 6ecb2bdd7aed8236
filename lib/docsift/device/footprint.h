// What of CUDA a process has mapped: no LibTorch here, so that a build without it (the
// supervisor's summary, docs/install.md, "Without LibTorch") says the same thing.
#pragma once

namespace docsift::device {

// What of CUDA this process has mapped (/proc/self/maps), for summary.json: what a run's supervisor
// must not have.
//  - driver_library: libcuda.so, which LibTorch's CUDA libraries map as they load (cuBLASLt's
//    static initializer dlopens it). The supervisor never loads them (device/cuda_backend.h).
//  - gpu_devices: /dev/nvidia* device files, mapped once the driver is initialised and a context
//    exists, which is what costs GPU memory.
struct CudaFootprint {
  bool driver_library = false;
  bool gpu_devices = false;
};
CudaFootprint cuda_footprint();

}  // namespace docsift::device
