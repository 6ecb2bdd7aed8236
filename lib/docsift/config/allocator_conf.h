// Validation of the CUDA caching allocator settings string (PYTORCH_CUDA_ALLOC_CONF syntax).
// Newer LibTorch releases abort on unknown keys at the first CUDA allocation; we reject them
// when the config is read instead, with the key named.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docsift::config {

// "max_split_size_mb:64,expandable_segments:False" -> {{"max_split_size_mb","64"}, ...}.
// An empty string is valid (leave the allocator at its defaults). Throws ConfigError with a
// message that does not carry a location (the caller adds it).
std::vector<std::pair<std::string, std::string>> parse_allocator_conf(std::string_view text);

}  // namespace docsift::config
