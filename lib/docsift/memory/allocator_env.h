// The CUDA caching allocator reads its settings from the environment on first use, so the
// config's memory.allocator must be in the environment before anything touches CUDA.
#pragma once

#include <string>
#include <vector>

namespace docsift::memory {

// Puts `settings` (memory.allocator, already validated) into PYTORCH_CUDA_ALLOC_CONF, and into
// PYTORCH_ALLOC_CONF when the user set that one (newer LibTorch reads it first). An empty
// `settings` leaves the environment as it is. Returns one warning per variable the user had set
// to something else, naming both values.
std::vector<std::string> apply_allocator_settings(const std::string& settings);

}  // namespace docsift::memory
