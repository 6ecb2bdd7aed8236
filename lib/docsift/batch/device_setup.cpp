#include "docsift/batch/device_setup.h"

#include <iostream>

#include "docsift/memory/allocator_env.h"
#include "docsift/memory/cleanup.h"
#include "docsift/device/devices.h"

namespace docsift::batch {

c10::Device start_device(const config::Config& config, bool quiet) {
  for (const std::string& warning : memory::apply_allocator_settings(config.memory.allocator)) {
    if (!quiet) std::cerr << "docsift: warning: " << warning << '\n';
  }
  const c10::Device device = device::resolve_device(config.model.device);
  if (config.memory.budget_gb) {
    const std::string note = memory::apply_memory_budget(device, *config.memory.budget_gb);
    if (!quiet) std::cerr << "docsift: " << note << '\n';
  }
  return device;
}

}  // namespace docsift::batch
