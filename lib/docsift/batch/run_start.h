// What `docsift run` does between loading its config and its first page that is the run's own, not
// the command line's (docs/run.md): it says which engine reads the pages, names a missing model
// folder before any device is asked for, and sets up the device (or, with worker isolation, the
// environment the worker inherits).
#pragma once

#include <string>

#include "docsift/batch/log.h"
#include "docsift/config/config.h"

namespace docsift::batch {

// With the OCR engine: one line naming it and its readers (and that --model would use a
// vision-language model instead), and a warning when `device_option` (--device as given, "" when
// not) names a device it would ignore. Nothing with the vlm engine.
void say_engine(const config::Config& config, const std::string& device_option, const Log& log);

// The model folder named as missing (InputMissingError) before any device is asked for, which would
// fail first on a machine without one; then, under worker isolation, the allocator's environment
// (its warnings said once, here), else for the vlm engine the device (prepare_model_device).
void prepare_engine(const config::Config& config, const Log& log);

}  // namespace docsift::batch
