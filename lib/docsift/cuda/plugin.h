// The CUDA plugin's own functions (libdocsift_cuda.so; see memory/cuda_backend.h for why it is a
// plugin). plugin.cpp exposes them to the program as a memory::CudaBackend.
#pragma once

#include <c10/core/Device.h>

#include "docsift/memory/device_memory.h"
#include "docsift/memory/devices.h"

namespace docsift::cuda {

memory::CudaStatus status();                              // devices.cpp
memory::DeviceMemory read_memory(c10::Device device);     // device_memory.cpp
void empty_cache();
void reset_peak(c10::Device device);
void synchronize(c10::Device device);
void set_memory_fraction(c10::Device device, double fraction);

}  // namespace docsift::cuda
