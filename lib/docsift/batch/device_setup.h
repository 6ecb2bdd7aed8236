// Everything that must happen before the first CUDA allocation of a command that runs the model:
// the allocator settings into the environment, the device resolved, the memory budget applied.
#pragma once

#include <c10/core/Device.h>

#include "docsift/batch/log.h"
#include "docsift/config/config.h"

namespace docsift::batch {

// Allocator warnings and the budget note go to `log` (nothing said when null). Throws
// ConfigError for an unusable device or budget.
c10::Device start_device(const config::Config& config, const Log* log);

}  // namespace docsift::batch
