// Everything that must happen before the first CUDA allocation of a command that runs the model:
// the allocator settings into the environment, the device resolved, the memory budget applied.
#pragma once

#include <c10/core/Device.h>

#include "docsift/config/config.h"

namespace docsift::batch {

// Warnings go to stderr unless `quiet`. Throws ConfigError for an unusable device or budget.
c10::Device start_device(const config::Config& config, bool quiet = false);

}  // namespace docsift::batch
