// The CUDA plugin's own functions (libdocsift_cuda.so; see device/cuda_backend.h for why it is a
// plugin). plugin.cpp exposes them to the program as a CudaBackend.
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>

#include "docsift/device/cuda_backend.h"
#include "docsift/device/devices.h"
#include "docsift/device/readings.h"

namespace docsift::device::cuda_plugin {

CudaStatus status();                           // status.cpp
DeviceMemory read_memory(c10::Device device);  // allocator.cpp
void empty_cache();
void reset_peak(c10::Device device);
void synchronize(c10::Device device);
void set_memory_fraction(c10::Device device, double fraction);
std::unique_ptr<CudaGraph> capture_graph(c10::Device device,
                                         const std::function<void()>& body);  // graph.cpp

}  // namespace docsift::device::cuda_plugin
