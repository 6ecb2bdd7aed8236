#include "docsift/batch/device_setup.h"

#include "docsift/device/devices.h"
#include "docsift/memory/allocator_env.h"
#include "docsift/memory/cleanup.h"

namespace docsift::batch {

c10::Device start_device(const config::Config& config, const Log* log) {
  for (const std::string& warning : memory::apply_allocator_settings(config.memory.allocator)) {
    if (log != nullptr) log->warning("allocator", warning);
  }
  const c10::Device device = device::resolve_device(config.model.device);
  if (config.memory.budget_gb) {
    const std::string note = memory::apply_memory_budget(device, *config.memory.budget_gb);
    if (log != nullptr) log->info("budget", note);
  }
  return device;
}

}  // namespace docsift::batch
