#include "docsift/device/footprint.h"

#include <fstream>
#include <string>

namespace docsift::device {

CudaFootprint cuda_footprint() {
  CudaFootprint f;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    f.driver_library = f.driver_library || line.find("/libcuda.so") != std::string::npos;
    f.gpu_devices = f.gpu_devices || line.find("/dev/nvidia") != std::string::npos;
  }
  return f;
}

}  // namespace docsift::device
