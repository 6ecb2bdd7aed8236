// `docsift worker`: the worker side of worker isolation (supervisor.h), a loop over the pipe
// protocol (worker_protocol.h) that reads each page with a PageReader (page_reader.h).
#pragma once

#include <functional>

#include "docsift/config/config.h"

namespace docsift::batch {

// The `docsift worker` loop on fds 3 and 4. `prepare_device` runs once the config has arrived,
// before the model loads (allocator settings, memory budget). Returns the exit code.
int run_worker(const std::function<void(const config::Config&)>& prepare_device);

}  // namespace docsift::batch
